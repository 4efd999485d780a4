import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { lambdaContext } from '../../infra/local/lambda-context';
import { functionTimeoutSeconds } from '../../shared/http/route-table';
import { type BenchScenario, fmt, percentile, table } from '../lib';

const LOAD_REQUESTS = 3000;
const CONCURRENCY = 10;
const IN_PROCESS_ITERATIONS = 2000;

/**
 * Authenticated requests to a cheap endpoint (GET /api/v1/auth/me with an API key):
 * 1. load over HTTP through the local gateway: latency percentiles and requests per second;
 * 2. the authorizer alone, in process: DynamoDB capacity per authentication;
 * 3. authorizer + handler in process: the service's own time per request minus its DynamoDB waits.
 */
export const scenario: BenchScenario = {
  name: 'auth',
  async run({ stack, meter, user }) {
    const url = `${stack.baseUrl}/api/v1/auth/me`;
    const headers = { 'x-api-key': user.apiKey };
    // Warm up: first use writes last_used, and connections and JIT settle.
    for (let i = 0; i < 200; i += 1) await (await fetch(url, { headers })).arrayBuffer();

    meter.reset();
    const latencies: number[] = [];
    let next = 0;
    let failures = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < LOAD_REQUESTS) {
          next += 1;
          const t0 = performance.now();
          const response = await fetch(url, { headers });
          await response.arrayBuffer();
          latencies.push(performance.now() - t0);
          if (response.status !== 200) failures += 1;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const httpRcu = meter.readUnits / LOAD_REQUESTS;
    const httpWcu = meter.writeUnits / LOAD_REQUESTS;

    // The stack's own functions, built by their builders as the Lambda entries build them.
    const authorizer = stack.functions.authorizer;
    const authHandler = stack.functions.http.auth;
    const authorizerEvent = {
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:local:000000000000:local/local/GET/api/v1/auth/me',
      resource: '/api/v1/auth/me',
      path: '/api/v1/auth/me',
      httpMethod: 'GET',
      headers: { 'X-API-Key': user.apiKey },
    } as unknown as APIGatewayRequestAuthorizerEvent;

    meter.reset();
    for (let i = 0; i < IN_PROCESS_ITERATIONS; i += 1) await authorizer(authorizerEvent);
    const authRcu = meter.readUnits / IN_PROCESS_ITERATIONS;
    const authWcu = meter.writeUnits / IN_PROCESS_ITERATIONS;
    const authCalls = meter.calls / IN_PROCESS_ITERATIONS;

    const overheads: number[] = [];
    const totals: number[] = [];
    for (let i = 0; i < IN_PROCESS_ITERATIONS; i += 1) {
      meter.reset();
      const t0 = performance.now();
      const auth = await authorizer(authorizerEvent);
      const event = {
        resource: '/api/v1/auth/me',
        path: '/api/v1/auth/me',
        httpMethod: 'GET',
        headers: {},
        body: null,
        requestContext: { authorizer: { principalId: auth.principalId, ...auth.context } },
      } as unknown as APIGatewayProxyEvent;
      const response = await authHandler(event, lambdaContext('auth', functionTimeoutSeconds('auth') * 1000));
      const total = performance.now() - t0;
      if (response.statusCode !== 200) throw new Error(`unexpected ${response.statusCode}`);
      totals.push(total);
      overheads.push(total - meter.dbMillis);
    }

    const markdown = [
      `Load: ${LOAD_REQUESTS} requests of \`GET /api/v1/auth/me\` with \`X-API-Key\`, ${CONCURRENCY} concurrent, over HTTP through the local gateway (${failures} non-200).`,
      '',
      table(
        ['p50 ms', 'p95 ms', 'p99 ms', 'requests/s', 'RCU/request', 'WCU/request'],
        [[fmt(percentile(latencies, 50)), fmt(percentile(latencies, 95)), fmt(percentile(latencies, 99)), fmt(LOAD_REQUESTS / seconds, 0), fmt(httpRcu, 3), fmt(httpWcu, 3)]],
      ),
      '',
      `Authentication alone (the authorizer, ${IN_PROCESS_ITERATIONS} calls in process, key already used this minute):`,
      '',
      table(['DynamoDB calls/auth', 'RCU/auth', 'WCU/auth'], [[fmt(authCalls, 2), fmt(authRcu, 3), fmt(authWcu, 3)]]),
      '',
      `Service overhead per request (authorizer + handler in process, minus time waiting on DynamoDB; ${IN_PROCESS_ITERATIONS} requests):`,
      '',
      table(
        ['overhead p50 ms', 'overhead p95 ms', 'total p50 ms (incl. DynamoDB Local)'],
        [[fmt(percentile(overheads, 50), 3), fmt(percentile(overheads, 95), 3), fmt(percentile(totals, 50), 3)]],
      ),
      '',
      'Targets: at most one DynamoDB read (0.5–1 RCU) and no write per authentication; overhead p50 under 2 ms.',
    ].join('\n');
    return { title: 'Authenticated requests (auth)', markdown };
  },
};
