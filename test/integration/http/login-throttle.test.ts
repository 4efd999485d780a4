import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type SignedUpUser, type TestStack, signUp, startTestStack } from '../../support/test-stack';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: Record<string, unknown>;
}

const TOO_MANY = { error: 'Too many login attempts' };
const INVALID = { error: 'Invalid email or password' };

describe('login throttling over HTTP', () => {
  let stack: TestStack;
  // 10:15 on the hour: the per-address window ends in 45 minutes.
  const clock = new ManualClock('2026-11-23T10:15:00.000Z');
  let ada: SignedUpUser;

  beforeAll(async () => {
    // A lower per-address cap than the default 100, so reaching it takes 30 attempts.
    stack = await startTestStack({ clock, settings: { loginFailuresPerIpPerHour: 30 } });
    ada = await signUp(stack);
  });
  afterAll(async () => stack?.stop());

  /**
   * POST /auth/login from a given loopback address (127.0.0.0/8 all reach the gateway), so each
   * test is its own caller: the gateway hands the socket's address to the function as sourceIp.
   */
  function logIn(from: string, email: string, password: string): Promise<Answer> {
    const url = new URL(stack.baseUrl);
    const text = JSON.stringify({ email, password });
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: url.hostname,
          port: url.port,
          localAddress: from,
          method: 'POST',
          path: '/api/v1/auth/login',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const retryAfter = response.headers['retry-after'];
            resolve({ status: response.statusCode ?? 0, retryAfter, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(text);
    });
  }

  const fail = (from: string, email = ada.email) => logIn(from, email, 'not the password');
  const succeed = (from: string) => logIn(from, ada.email, ada.password);

  it('lets 5 failures through, then makes the (email, address) pair wait 1, 2, 4 … seconds up to 15 minutes: 429 with Retry-After', async () => {
    const from = '127.0.0.2';
    for (let i = 1; i <= 5; i += 1) expect(await fail(from), `failure ${i}`).toEqual({ status: 401, retryAfter: undefined, body: INVALID });
    // The 5th failure holds the pair for 2^0 s. The right password is not even checked meanwhile.
    expect(await succeed(from)).toEqual({ status: 429, retryAfter: '1', body: TOO_MANY });
    clock.advance(999);
    expect(await fail(from)).toEqual({ status: 429, retryAfter: '1', body: TOO_MANY });
    clock.advance(1);
    const waits: string[] = [];
    for (let failure = 6; failure <= 16; failure += 1) {
      expect(await fail(from), `failure ${failure}`).toEqual({ status: 401, retryAfter: undefined, body: INVALID });
      const held = await fail(from);
      expect(held.status, `after failure ${failure}`).toBe(429);
      waits.push(String(held.retryAfter));
      clock.advance(Number(held.retryAfter) * 1000);
    }
    expect(waits).toEqual(['2', '4', '8', '16', '32', '64', '128', '256', '512', '900', '900']);
    // After the wait, the right password works and starts the pair over.
    expect((await succeed(from)).status).toBe(200);
    for (let i = 1; i <= 5; i += 1) expect((await fail(from)).status, `failure ${i} after the success`).toBe(401);
    expect(await fail(from)).toEqual({ status: 429, retryAfter: '1', body: TOO_MANY });
    clock.advance(1_000);
  });

  it('a success before the 5th failure starts the count over', async () => {
    const from = '127.0.0.3';
    for (let i = 0; i < 4; i += 1) await fail(from);
    expect((await succeed(from)).status).toBe(200);
    for (let i = 1; i <= 5; i += 1) expect((await fail(from)).status, `failure ${i}`).toBe(401);
    expect((await fail(from)).status).toBe(429);
    clock.advance(1_000);
  });

  it('holds the pair only: the same email from another address and another email from the same address go on', async () => {
    const from = '127.0.0.4';
    for (let i = 0; i < 5; i += 1) await fail(from);
    expect((await fail(from)).status).toBe(429);
    // The owner, from elsewhere: not locked out by someone else's failures.
    expect((await succeed('127.0.0.5')).status).toBe(200);
    // The address, for an email it has not failed on (an unknown one: the same answer as a wrong password).
    expect(await fail(from, 'nobody@example.com')).toEqual({ status: 401, retryAfter: undefined, body: INVALID });
    clock.advance(1_000);
  });

  it('checks no more passwords when attempts come at once than one at a time: the 5 free ones, then the pair waits', async () => {
    const from = '127.0.0.6';
    const answers = await Promise.all(Array.from({ length: 20 }, () => fail(from)));
    for (const answer of answers) expect([401, 429]).toContain(answer.status);
    // Each count is taken by one attempt and the 5th sets the wait, so at most 5 are checked;
    // attempts that lost 4 races in a row are refused too (each lost race is a count another took),
    // so at least 4 are.
    const counted = answers.filter((answer) => answer.status === 401).length;
    expect([4, 5]).toContain(counted);
    // Whatever the burst took, the pair goes on as if its attempts had come one at a time.
    if (counted === 4) expect(await fail(from)).toEqual({ status: 401, retryAfter: undefined, body: INVALID });
    expect(await fail(from)).toEqual({ status: 429, retryAfter: '1', body: TOO_MANY });
    clock.advance(1_000);
    expect(await fail(from)).toEqual({ status: 401, retryAfter: undefined, body: INVALID });
    expect(await fail(from)).toEqual({ status: 429, retryAfter: '2', body: TOO_MANY });
    clock.advance(2_000);
  });

  it('forgets a pair a day after its last attempt', async () => {
    const from = '127.0.0.7';
    for (let i = 0; i < 5; i += 1) await fail(from);
    expect((await fail(from)).retryAfter).toBe('1');
    clock.advance(24 * 60 * 60 * 1000 + 1_000);
    // Counted from one again (remembered, the 6th would hold the pair and the 7th be refused):
    // five free failures, and the fifth holds for 1 s.
    for (let i = 1; i <= 5; i += 1) expect((await fail(from)).status, `failure ${i} a day later`).toBe(401);
    expect(await fail(from)).toEqual({ status: 429, retryAfter: '1', body: TOO_MANY });
  });

  it('caps failed attempts per address at 30 in the clock hour, whatever the emails; a success is not counted', async () => {
    const from = '127.0.0.9';
    clock.set(new Date('2026-11-23T11:15:00.000Z'));
    // Four failures per email stay under the pair delay: only the address cap is at work.
    const email = (i: number) => `spray${Math.floor(i / 4)}@example.com`;
    for (let i = 0; i < 29; i += 1) expect((await fail(from, email(i))).status, `failure ${i + 1}`).toBe(401);
    expect((await succeed(from)).status).toBe(200);
    expect((await fail(from, email(29))).status).toBe(401);
    // The 31st: refused until 12:00, for any email and even the right password.
    expect(await fail(from, 'someone.else@example.com')).toEqual({ status: 429, retryAfter: '2700', body: TOO_MANY });
    expect(await succeed(from)).toEqual({ status: 429, retryAfter: '2700', body: TOO_MANY });
    // Other addresses are counted apart.
    expect((await succeed('127.0.0.10')).status).toBe(200);
    clock.set(new Date('2026-11-23T12:00:00.000Z'));
    expect((await succeed(from)).status).toBe(200);
  });
});
