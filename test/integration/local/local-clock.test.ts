import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, OffsetClock } from '../../../shared/time/clock';
import { type TestStack, signUp, startTestStack } from '../../support/test-stack';

const START = '2025-03-03T08:00:00.000Z';

/** `/_local/clock` over real HTTP against a local stack given a ManualClock (`npm start` gives an OffsetClock). */
describe('the local clock endpoints', () => {
  const clock = new ManualClock(START);
  let stack: TestStack;

  const clockCall = async (method: string, body?: unknown) => {
    const response = await fetch(`${stack.baseUrl}/_local/clock`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const visible = async (queueUrl: string) =>
    Number(
      (await stack.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }))).Attributes
        ?.ApproximateNumberOfMessages,
    );

  beforeAll(async () => {
    stack = await startTestStack({ clock });
  });
  afterAll(async () => stack?.stop());

  it('tells the time and moves it forward by hours or to a time, without credentials', async () => {
    expect(await clockCall('GET')).toEqual({ status: 200, body: { now: START } });
    expect(await clockCall('POST', { advance_hours: 24 })).toEqual({ status: 200, body: { now: '2025-03-04T08:00:00.000Z' } });
    expect(await clockCall('POST', { advance_hours: 0.5 })).toEqual({ status: 200, body: { now: '2025-03-04T08:30:00.000Z' } });
    expect(await clockCall('POST', { now: '2025-03-10T09:00:00Z' })).toEqual({ status: 200, body: { now: '2025-03-10T09:00:00.000Z' } });
    expect(clock.now().toISOString()).toBe('2025-03-10T09:00:00.000Z');
    expect(await clockCall('GET')).toEqual({ status: 200, body: { now: '2025-03-10T09:00:00.000Z' } });
    // The API runs on the moved clock.
    const key = await stack.call<{ created_at: string }>('POST', '/api-keys', { token: (await signUp(stack)).token, body: { name: 'k' } });
    expect(key.body.created_at).toBe('2025-03-10T09:00:00.000Z');
  });

  it('only moves forward, and answers bad bodies with a 400 that says what to give', async () => {
    const before = clock.now().toISOString();
    const cases: [unknown, string][] = [
      [{ now: '2025-03-01T00:00:00Z' }, 'now must not be earlier than the current clock: it only moves forward'],
      [{ now: 'next week' }, 'now must be an ISO time with its zone, e.g. 2030-01-06T09:00:00Z'],
      [{ advance_hours: 0 }, 'advance_hours must be a positive number of hours (at most 8760)'],
      [{ advance_hours: 8761 }, 'advance_hours must be a positive number of hours (at most 8760)'],
      [{}, 'give advance_hours or now'],
      [{ advance_hours: 1, now: '2030-01-01T00:00:00Z' }, 'give advance_hours or now, not both'],
    ];
    for (const [body, error] of cases) {
      expect(await clockCall('POST', body), JSON.stringify(body)).toEqual({ status: 400, body: { error } });
    }
    expect(clock.now().toISOString()).toBe(before);
  });

  it('runs the schedules and a receive round on every queue before it answers', async () => {
    // A message the campaign-scheduling consumer can only drop: its log line shows the consumer ran.
    const queue = stack.queue('campaign-scheduling');
    await stack.sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: 'not a scheduling message' }));
    expect(await visible(queue.queueUrl)).toBe(1);
    expect((await clockCall('POST', { advance_hours: 1 })).status).toBe(200);
    expect(await visible(queue.queueUrl)).toBe(0);
    expect(stack.logs.filter((line) => line.includes('Poison campaign-scheduling message dropped'))).toHaveLength(1);
    // SCHEDULES is empty for now: running them is a no-op that resolves.
    await expect(stack.runSchedules()).resolves.toBeUndefined();
  });

  it('answers a move by a moment with npm start’s clock, which runs on while the move plays out', async () => {
    // An OffsetClock (system time plus an offset, as `npm start` has), moved by one millisecond:
    // real time passes the target while the move plays out (its queries alone take longer), and
    // the clock never goes back.
    const running = await startTestStack({ clock: new OffsetClock() });
    try {
      const response = await fetch(`${running.baseUrl}/_local/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advance_hours: 1 / 3_600_000 }),
      });
      expect(response.status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('moves sent at once take turns, each from where the one before left the clock', async () => {
    const start = clock.now().getTime();
    const answers = await Promise.all([clockCall('POST', { advance_hours: 1 }), clockCall('POST', { advance_hours: 1 }), clockCall('POST', { advance_hours: 0.5 })]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    // In turn: 1 h, 2 h, then 2.5 h after the start.
    const hoursOn = (hours: number) => new Date(start + hours * 3_600_000).toISOString();
    expect(answers.map((answer) => answer.body.now).sort()).toEqual([hoursOn(1), hoursOn(2), hoursOn(2.5)]);
    expect(clock.now().toISOString()).toBe(hoursOn(2.5));
  });

  it('is not part of the API: the gateway knows no /api/v1/_local path', async () => {
    const response = await stack.call('GET', '/_local/clock');
    expect(response.status).toBe(404);
  });
});
