import type { Context, ScheduledEvent } from 'aws-lambda';
import type { Clock } from '../../shared/time/clock';
import { lambdaContext } from './lambda-context';

export type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface TimedJob {
  name: string;
  everyMs: number;
  handler: ScheduledHandler;
}

/** Calls scheduled handlers on an interval with an EventBridge-shaped event, never two runs of one job at once. */
export function startTimer(jobs: readonly TimedJob[], clock: Clock, log: (line: string) => void = () => {}): { stop(): void } {
  const timers = jobs.map((job) => {
    let busy = false;
    return setInterval(async () => {
      if (busy) return;
      busy = true;
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
      try {
        await job.handler(event, lambdaContext(job.name, 60_000));
      } catch (error) {
        log(`scheduled job ${job.name} failed: ${String(error)}`);
      } finally {
        busy = false;
      }
    }, job.everyMs);
  });
  return { stop: () => timers.forEach(clearInterval) };
}
