import { describe, expect, it } from 'vitest';
import { createScheduleRunner } from '../../../infra/local/timer';
import { ManualClock } from '../../../shared/time/clock';

const deferred = () => {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
};

describe('local schedule runner', () => {
  it('runs every job once, one after another, awaited, with an EventBridge-shaped event at the clock time', async () => {
    const clock = new ManualClock('2025-03-01T08:00:00.000Z');
    const calls: string[] = [];
    const runner = createScheduleRunner(
      ['a', 'b'].map((name) => ({
        name,
        everyMs: 60_000,
        handler: async (event) => {
          calls.push(`${name} start ${event.time} ${event.resources.join()}`);
          await new Promise((resolve) => setTimeout(resolve, 5));
          calls.push(`${name} end`);
        },
      })),
      clock,
    );
    await runner.runAll();
    expect(calls).toEqual([
      'a start 2025-03-01T08:00:00.000Z arn:aws:events:local:000000000000:rule/a',
      'a end',
      'b start 2025-03-01T08:00:00.000Z arn:aws:events:local:000000000000:rule/b',
      'b end',
    ]);
  });

  it('waits for the run of a job under way before running it again, so a job never runs twice at once', async () => {
    const first = deferred();
    let runs = 0;
    let concurrent = 0;
    let most = 0;
    const runner = createScheduleRunner(
      [
        {
          name: 'slow',
          everyMs: 10,
          handler: async () => {
            runs += 1;
            concurrent += 1;
            most = Math.max(most, concurrent);
            if (runs === 1) await first.promise;
            concurrent -= 1;
          },
        },
      ],
      new ManualClock(0),
    );
    runner.start();
    // The timer's first run is under way (and blocked); its ticks are skipped meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 60));
    let stopped = false;
    const stopping = runner.stop().then(() => {
      stopped = true;
    });
    expect(runs).toBe(1);
    let settled = false;
    const all = runner.runAll().then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Stopping waits for the run under way, as the stack stops DynamoDB Local after it.
    expect([settled, stopped]).toEqual([false, false]);
    first.resolve();
    await Promise.all([all, stopping]);
    expect(stopped).toBe(true);
    expect(runs).toBe(2);
    expect(most).toBe(1);
  });

  it('runs every job even when one fails, logs it, and then rejects naming the failed jobs', async () => {
    const lines: string[] = [];
    const ran: string[] = [];
    const runner = createScheduleRunner(
      [
        { name: 'broken', everyMs: 60_000, handler: async () => Promise.reject(new Error('boom')) },
        {
          name: 'fine',
          everyMs: 60_000,
          handler: async () => {
            ran.push('fine');
          },
        },
      ],
      new ManualClock(0),
      (line) => lines.push(line),
    );
    await expect(runner.runAll()).rejects.toThrow('Scheduled jobs failed: broken');
    expect(ran).toEqual(['fine']);
    expect(lines).toEqual(['scheduled job broken failed: Error: boom']);
    await expect(createScheduleRunner([], new ManualClock(0)).runAll()).resolves.toBeUndefined();
  });
});
