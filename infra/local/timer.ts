import type { Context, ScheduledEvent } from 'aws-lambda';
import type { Clock } from '../../shared/time/clock';
import { lambdaContext } from './lambda-context';

export type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface TimedJob {
  name: string;
  everyMs: number;
  handler: ScheduledHandler;
}

export interface ScheduleRunner {
  /** Calls each job on its interval, as EventBridge does; a tick while that job still runs is skipped. */
  start(): void;
  /**
   * Stops the timers and resolves once the runs under way have ended, so that what the stack stops
   * next (DynamoDB Local) is not pulled from under a run (before 2026-11-28 Ctrl-C could print
   * `scheduled job outreach-scheduler failed: ... ECONNREFUSED`).
   */
  stop(): Promise<void>;
  /**
   * Runs every job once, one after another, each after the run of it under way (if any) ended.
   * Resolves when all have run; rejects naming the jobs that failed (every job still runs).
   */
  runAll(): Promise<void>;
}

/**
 * The local stand-in for the EventBridge schedules: scheduled handlers called with an
 * EventBridge-shaped event, never two runs of one job at once.
 */
export function createScheduleRunner(jobs: readonly TimedJob[], clock: Clock, log: (line: string) => void = () => {}): ScheduleRunner {
  const running = new Map<string, Promise<boolean>>();
  let timers: ReturnType<typeof setInterval>[] = [];

  /** One run of the job; false when it failed (logged). */
  const run = (job: TimedJob): Promise<boolean> => {
    const event = {
      version: '0',
      id: crypto.randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: clock.now().toISOString(),
      region: 'us-east-1',
      resources: [`arn:aws:events:local:000000000000:rule/${job.name}`],
      detail: {},
    } as ScheduledEvent;
    const done = Promise.resolve()
      .then(() => job.handler(event, lambdaContext(job.name, 60_000)))
      .then(
      () => true,
      (error: unknown) => {
        log(`scheduled job ${job.name} failed: ${String(error)}`);
        return false;
      },
    );
    running.set(job.name, done);
    void done.then(() => {
      if (running.get(job.name) === done) running.delete(job.name);
    });
    return done;
  };

  return {
    start() {
      timers = jobs.map((job) =>
        setInterval(() => {
          if (!running.has(job.name)) void run(job);
        }, job.everyMs),
      );
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      timers = [];
      await Promise.all(running.values());
    },
    async runAll() {
      const failed: string[] = [];
      for (const job of jobs) {
        for (let current = running.get(job.name); current; current = running.get(job.name)) await current;
        if (!(await run(job))) failed.push(job.name);
      }
      if (failed.length > 0) throw new Error(`Scheduled jobs failed: ${failed.join(', ')}`);
    },
  };
}
