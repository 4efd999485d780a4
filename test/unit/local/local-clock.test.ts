import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_CLOCK_PATH, clockTarget } from '../../../infra/local/local-clock';
import { renderOpenApi } from '../../../infra/openapi';
import { ROUTES } from '../../../shared/http/route-table';
import { type Clock, ManualClock, systemClock } from '../../../shared/time/clock';
import { testGateways } from '../../support/local-gateway';

const START = '2025-03-01T08:00:00.000Z';

describe('POST /_local/clock bodies', () => {
  const now = new Date(START);
  it('move the clock by hours (fractions allowed, at most a year) or to a time not earlier than now', () => {
    expect(clockTarget({ advance_hours: 24 }, now)).toEqual({ to: new Date('2025-03-02T08:00:00.000Z') });
    expect(clockTarget({ advance_hours: 0.25 }, now)).toEqual({ to: new Date('2025-03-01T08:15:00.000Z') });
    expect(clockTarget({ advance_hours: 8760 }, now)).toEqual({ to: new Date('2026-03-01T08:00:00.000Z') });
    expect(clockTarget({ now: '2025-03-05T09:30:00Z' }, now)).toEqual({ to: new Date('2025-03-05T09:30:00.000Z') });
    expect(clockTarget({ now: '2025-03-05T09:30:00.250+02:00' }, now)).toEqual({ to: new Date('2025-03-05T07:30:00.250Z') });
    expect(clockTarget({ now: START }, now)).toEqual({ to: now });
  });

  it('refuse anything else with the text of the 400', () => {
    const hours = 'advance_hours must be a positive number of hours (at most 8760)';
    const time = 'now must be an ISO time with its zone, e.g. 2030-01-06T09:00:00Z';
    const earlier = 'now must not be earlier than the current clock: it only moves forward';
    const cases: [unknown, string][] = [
      [{ advance_hours: 0 }, hours],
      [{ advance_hours: -1 }, hours],
      [{ advance_hours: 8760.01 }, hours],
      [{ advance_hours: '24' }, hours],
      [{ advance_hours: null }, hours],
      [{ now: '2025-03-01T07:59:59.999Z' }, earlier],
      [{ now: '2025-03-05' }, time],
      [{ now: '2025-03-05T09:30:00' }, time],
      [{ now: '2025-02-30T09:30:00Z' }, time],
      [{ now: 1_800_000_000_000 }, time],
      [{}, 'give advance_hours or now'],
      [[], 'give advance_hours or now'],
      ['tomorrow', 'give advance_hours or now'],
      [{ advance_hours: 1, now: '2025-03-05T09:30:00Z' }, 'give advance_hours or now, not both'],
    ];
    for (const [body, error] of cases) expect(clockTarget(body, now), JSON.stringify(body)).toEqual({ error });
  });
});

describe('the local gateway at /_local/clock', () => {
  const gateways = testGateways();
  afterEach(() => gateways.stopAll());

  /** A gateway with no functions: the clock paths are answered before any route matching. */
  async function gateway(clock: Clock, moveClock?: (to: Date) => Promise<void>) {
    const base = await gateways.start({ handlers: {} as never, clock, ...(moveClock ? { moveClock } : {}) });
    return async (method: string, body?: unknown, path = LOCAL_CLOCK_PATH) => {
      const response = await fetch(`${base}${path}`, {
        method,
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, string> };
    };
  }

  it('reads the clock, moves it forward through the stack’s callback, and answers only after it ran', async () => {
    const clock = new ManualClock(START);
    const seen: string[] = [];
    let release = () => {};
    const call = await gateway(clock, async (to) => {
      seen.push(to.toISOString());
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      clock.set(to);
    });
    expect(await call('GET')).toEqual({ status: 200, body: { now: START } });
    expect(await call('GET', undefined, `${LOCAL_CLOCK_PATH}/`)).toEqual({ status: 200, body: { now: START } });

    let answered = false;
    const moved = call('POST', { advance_hours: 1.5 }).then((answer) => {
      answered = true;
      return answer;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The callback is given the target (it moves the clock), and the answer waits for it.
    expect(seen).toEqual(['2025-03-01T09:30:00.000Z']);
    expect(answered).toBe(false);
    release();
    expect(await moved).toEqual({ status: 200, body: { now: '2025-03-01T09:30:00.000Z' } });

    const to = call('POST', { now: '2025-04-01T00:00:00Z' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect(await to).toEqual({ status: 200, body: { now: '2025-04-01T00:00:00.000Z' } });
    expect(seen).toEqual(['2025-03-01T09:30:00.000Z', '2025-04-01T00:00:00.000Z']);
    expect(await call('GET')).toEqual({ status: 200, body: { now: '2025-04-01T00:00:00.000Z' } });
  });

  it('refuses bad bodies and going back with a 400, without moving the clock or calling back', async () => {
    const clock = new ManualClock(START);
    let calls = 0;
    const call = await gateway(clock, async () => {
      calls += 1;
    });
    const cases: [unknown, string][] = [
      [{ now: '2025-03-01T07:00:00Z' }, 'now must not be earlier than the current clock: it only moves forward'],
      [{ advance_hours: -24 }, 'advance_hours must be a positive number of hours (at most 8760)'],
      [{ advance_hours: 9000 }, 'advance_hours must be a positive number of hours (at most 8760)'],
      [{}, 'give advance_hours or now'],
      [undefined, 'give advance_hours or now'],
      ['{"advance_hours":', 'Request body must be valid JSON'],
    ];
    for (const [body, error] of cases) {
      expect(await call('POST', body), JSON.stringify(body)).toEqual({ status: 400, body: { error } });
    }
    expect(await call('PUT', { advance_hours: 1 })).toEqual({ status: 405, body: { error: 'Use GET or POST' } });
    expect(calls).toBe(0);
    expect(clock.now().toISOString()).toBe(START);
  });

  it("answers 400 when the stack's clock cannot be moved, and still tells the time", async () => {
    const call = await gateway(systemClock);
    expect(await call('POST', { advance_hours: 1 })).toEqual({ status: 400, body: { error: "This stack's clock cannot be moved" } });
    const { status, body } = await call('GET');
    expect(status).toBe(200);
    expect(Math.abs(new Date(body.now ?? '').getTime() - systemClock.now().getTime())).toBeLessThan(5_000);
  });

  it('says when the jobs after the move failed', async () => {
    const clock = new ManualClock(START);
    const call = await gateway(clock, () => Promise.reject(new Error('Scheduled jobs failed: engine')));
    expect(await call('POST', { advance_hours: 2 })).toEqual({
      status: 500,
      body: { error: 'The clock moved, but running the jobs after it failed', details: 'Error: Scheduled jobs failed: engine' },
    });
    expect(clock.now().toISOString()).toBe('2025-03-01T10:00:00.000Z');
  });

  it('is no route of the deployed API: neither the route table nor the OpenAPI document has a /_local path', () => {
    expect(ROUTES.filter((route) => route.path.includes('_local'))).toEqual([]);
    const document = JSON.parse(renderOpenApi()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.includes('_local'))).toEqual([]);
    expect(Object.keys(document.paths).length).toBeGreaterThan(0);
  });
});
