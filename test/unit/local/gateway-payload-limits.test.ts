import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { LAMBDA_EVENT_MAX_BYTES, LAMBDA_RESULT_LIMIT_BYTES } from '../../../infra/local/gateway';
import { resultBytes } from '../../../shared/http/answer-size';
import { FUNCTION_GROUPS, type RegisteredRoute } from '../../../shared/http/route-table';
import { ManualClock } from '../../../shared/time/clock';
import { testGateways } from '../../support/local-gateway';

const ROUTES: RegisteredRoute[] = [
  { ...FUNCTION_GROUPS.health.routes.health, path: '/answer' },
  { ...FUNCTION_GROUPS.health.routes.health, method: 'POST', path: '/take' },
];

describe("the local gateway keeps Lambda's payload limits, as AWS does", () => {
  const gateways = testGateways();
  afterEach(() => gateways.stopAll());

  async function gateway(answer: APIGatewayProxyResult) {
    const logged: string[] = [];
    const invoked: string[] = [];
    const base = await gateways.start({
      handlers: {
        health: async (event: { httpMethod: string }) => {
          invoked.push(event.httpMethod);
          return answer;
        },
      } as never,
      clock: new ManualClock('2025-03-01T08:00:00Z'),
      routes: ROUTES,
      log: (line) => logged.push(line),
    });
    return { base, logged, invoked };
  }

  it("answers a result of Lambda's 6,291,556 bytes, and a byte more is API Gateway's 502", async () => {
    expect(LAMBDA_RESULT_LIMIT_BYTES).toBe(6_291_556);
    // Quotes count twice in the result: the body is escaped as a string in it.
    const fill = (bytes: number) => {
      const answer = { statusCode: 200, body: '' };
      const quotes = Math.floor((bytes - resultBytes(answer)) / 2);
      answer.body = `${'"'.repeat(quotes)}${'a'.repeat(bytes - resultBytes(answer) - quotes * 2)}`;
      return answer;
    };
    const fits = fill(LAMBDA_RESULT_LIMIT_BYTES);
    expect(resultBytes(fits)).toBe(LAMBDA_RESULT_LIMIT_BYTES);
    const ok = await gateway(fits);
    const answered = await fetch(`${ok.base}/answer`);
    expect([answered.status, (await answered.text()).length]).toEqual([200, fits.body.length]);
    expect(ok.logged).toEqual([]);

    const over = fill(LAMBDA_RESULT_LIMIT_BYTES + 1);
    const failing = await gateway(over);
    const refused = await fetch(`${failing.base}/answer`);
    expect([refused.status, await refused.json()]).toEqual([502, { error: 'Internal server error' }]);
    expect(failing.logged).toEqual([`GET /answer: a result of 6291557 bytes passes Lambda's 6291556: deployed, API Gateway answers 502`]);
  });

  it('refuses with 413 a body whose event passes 6 MiB once escaped, before the function runs (a 3.2 MB body of quotes)', async () => {
    expect(LAMBDA_EVENT_MAX_BYTES).toBe(6_291_456);
    const { base, logged, invoked } = await gateway({ statusCode: 200, body: '{}' });
    const plain = await fetch(`${base}/take`, { method: 'POST', body: 'a'.repeat(3_200_000) });
    expect(plain.status).toBe(200);
    const quoted = await fetch(`${base}/take`, { method: 'POST', body: '"'.repeat(3_200_000) });
    expect([quoted.status, await quoted.json()]).toEqual([413, { error: 'Request body too large' }]);
    expect(invoked).toEqual(['POST']);
    expect(logged).toEqual(["POST /take: the event passes Lambda's 6291456 bytes"]);
  });
});
