import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { REQUEST_TIMEOUT_MS } from '../../../infra/local/gateway';
import { FUNCTION_GROUPS, type RegisteredRoute } from '../../../shared/http/route-table';
import { ManualClock } from '../../../shared/time/clock';
import { testGateways } from '../../support/local-gateway';

const ROUTES: RegisteredRoute[] = [{ ...FUNCTION_GROUPS.health.routes.health, method: 'POST', path: '/take' }];

/** What a raw connection gets back after writing `request` and nothing more: the whole answer, once the gateway closes it. */
function rawExchange(base: string, request: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('the local gateway answers a request that does not arrive in full in time', () => {
  const gateways = testGateways();
  afterEach(() => gateways.stopAll());

  it('answers 408 JSON and closes a request whose body is shorter than its Content-Length, without running the function', async () => {
    expect(REQUEST_TIMEOUT_MS).toBe(30_000);
    const invoked: string[] = [];
    const logged: string[] = [];
    const base = await gateways.start({
      handlers: {
        health: async (event: { body: string }) => {
          invoked.push(event.body);
          return { statusCode: 200, body: '{}' };
        },
      } as never,
      clock: new ManualClock('2025-03-01T08:00:00Z'),
      routes: ROUTES,
      requestTimeoutMs: 300,
      log: (line) => logged.push(line),
    });
    const answer = await rawExchange(base, 'POST /take HTTP/1.1\r\nHost: local\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name": "short"}');
    const [head, body] = answer.split('\r\n\r\n');
    expect(head?.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(body as string)).toEqual({ error: 'Request not received in time: the body was shorter than its Content-Length, or too slow' });
    expect(invoked).toEqual([]);
    // A request that arrives whole is answered as usual.
    const whole = await fetch(`${base}/take`, { method: 'POST', body: '{}' });
    expect(whole.status).toBe(200);
    expect(invoked).toEqual(['{}']);
    expect(logged).toEqual([]);
  });
});
