import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { FUNCTION_GROUPS, type RegisteredRoute, functionTimeoutSeconds } from '../../../shared/http/route-table';
import { ManualClock } from '../../../shared/time/clock';
import { testGateways } from '../../support/local-gateway';

/** Two public routes, one in a group with the default timeout and one in a group that sets 28 s. */
const ROUTES: RegisteredRoute[] = [
  { ...FUNCTION_GROUPS.health.routes.health, path: '/default-timeout' },
  { ...FUNCTION_GROUPS.health.routes.health, group: 'leadLists', path: '/long-timeout' },
];

describe('the local gateway gives each function its deployed timeout', () => {
  const gateways = testGateways();
  afterEach(() => gateways.stopAll());

  /** A gateway whose elapsed time is `elapsed.ms`, moved by the handlers themselves. */
  async function gateway(handlerTakesMs: number) {
    const elapsed = { ms: 1_000 };
    const seen: { group: string; remainingAtStart: number; remainingAtEnd: number }[] = [];
    const logged: string[] = [];
    const handler = (group: string) => async (_event: unknown, context: Context): Promise<APIGatewayProxyResult> => {
      const remainingAtStart = context.getRemainingTimeInMillis();
      elapsed.ms += handlerTakesMs;
      seen.push({ group, remainingAtStart, remainingAtEnd: context.getRemainingTimeInMillis() });
      return { statusCode: 200, body: '{}' };
    };
    const base = await gateways.start({
      handlers: { health: handler('health'), leadLists: handler('leadLists') } as never,
      clock: new ManualClock('2025-03-01T08:00:00Z'),
      routes: ROUTES,
      log: (line) => logged.push(line),
      monotonicNow: () => elapsed.ms,
    });
    const call = async (path: string) => (await fetch(`${base}${path}`)).status;
    return { call, seen, logged };
  }

  it('as the remaining time: 10 s by default, the group’s own when it sets one', async () => {
    expect(functionTimeoutSeconds('health')).toBe(10);
    expect(functionTimeoutSeconds('leadLists')).toBe(28);
    const { call, seen, logged } = await gateway(2_500);
    expect(await call('/default-timeout')).toBe(200);
    expect(await call('/long-timeout')).toBe(200);
    expect(seen).toEqual([
      { group: 'health', remainingAtStart: 10_000, remainingAtEnd: 7_500 },
      { group: 'leadLists', remainingAtStart: 28_000, remainingAtEnd: 25_500 },
    ]);
    expect(logged).toEqual([]);
  });

  it('reports a call that ran past its timeout, and still answers it (DynamoDB Local is slower than DynamoDB)', async () => {
    const { call, seen, logged } = await gateway(10_001);
    expect(await call('/default-timeout')).toBe(200);
    expect(await call('/long-timeout')).toBe(200);
    expect(seen.map((s) => s.remainingAtEnd)).toEqual([0, 17_999]);
    expect(logged).toEqual([
      "GET /default-timeout took 10001 ms, past the health function's 10 s timeout: deployed, it would have been stopped (502)",
    ]);
  });
});
