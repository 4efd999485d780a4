import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

describe('per-key rate limit (a burst of 10, 50 requests a minute)', () => {
  let stack: TestStack;
  const clock = new ManualClock('2026-11-21T12:00:00Z');
  let alice: SignedUpUser;
  let bob: SignedUpUser;

  beforeAll(async () => {
    // The limiter's clock is frozen so that "within a minute" does not depend on machine speed.
    stack = await startTestStack({ clock });
    alice = await signUp(stack);
    bob = await signUp(stack);
  });
  afterAll(async () => stack?.stop());

  it('lets the burst of 10 through, refuses the 11th with 429 and Retry-After, and refills one request every 1.2 s', async () => {
    const { key } = await createKey(stack, alice, 'limited');
    for (let i = 1; i <= 10; i += 1) {
      const response = await stack.call('GET', '/api-keys/', { apiKey: key });
      expect(response.status, `request ${i}`).toBe(200);
    }
    const refused = await stack.call('GET', '/api-keys/', { apiKey: key });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded' });
    // The next token is 1.2 s away: rounded up.
    expect(refused.headers.get('retry-after')).toBe('2');

    clock.advance(1_199);
    const almost = await stack.call('GET', '/api-keys/', { apiKey: key });
    expect([almost.status, almost.headers.get('retry-after')]).toEqual([429, '1']);
    clock.advance(1); // one token comes back every 1.2 s
    expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(200);
    expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(429);
  });

  it('counts each key on its own: other keys of the same user and other users are unaffected', async () => {
    const first = await createKey(stack, alice, 'first');
    const second = await createKey(stack, alice, 'second');
    const bobs = await createKey(stack, bob, 'bob');
    for (let i = 0; i < 10; i += 1) await stack.call('GET', '/api-keys/', { apiKey: first.key });
    expect((await stack.call('GET', '/api-keys/', { apiKey: first.key })).status).toBe(429);
    expect((await stack.call('GET', '/api-keys/', { apiKey: second.key })).status).toBe(200);
    expect((await stack.call('GET', '/api-keys/', { apiKey: bobs.key })).status).toBe(200);
    // Sessions are not counted against the user's keys.
    expect((await stack.call('GET', '/api-keys/', { token: alice.token })).status).toBe(200);
  });

  it('does not count refused credentials against anyone', async () => {
    const { key } = await createKey(stack, bob, 'untouched');
    for (let i = 0; i < 60; i += 1) await stack.call('GET', '/api-keys/', { apiKey: `${key}x` });
    // The bucket is still full: exactly the burst passes.
    for (let i = 0; i < 10; i += 1) {
      expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(200);
    }
    expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(429);
  });

  it('measured: a client asking every 250 ms gets 59 in its first minute, 60 counting the one at 60 s, then 50 a minute', async () => {
    const { key } = await createKey(stack, alice, 'measured');
    const start = clock.now().getTime();
    const passedAt: number[] = [];
    const ask = async (offsetMs: number) => {
      clock.set(new Date(start + offsetMs));
      const response = await stack.call('GET', '/auth/me/', { apiKey: key });
      expect([200, 429], `at ${offsetMs} ms`).toContain(response.status);
      if (response.status === 200) passedAt.push(offsetMs);
    };
    for (let at = 0; at <= 60_000; at += 250) await ask(at);
    for (let at = 60_500; at < 120_000; at += 500) await ask(at);
    const within = (from: number, to: number) => passedAt.filter((at) => at >= from && at < to).length;
    expect(within(0, 60_000)).toBe(59);
    expect(within(0, 60_001)).toBe(60);
    expect(within(60_000, 120_000)).toBe(50);
  });

  it('gives a session the sessions plan: a burst of 100, then 10 requests a second', async () => {
    const carol = await signUp(stack);
    clock.advance(60_000); // whatever earlier sessions took from carol's pool key is back
    for (let i = 1; i <= 100; i += 1) {
      expect((await stack.call('GET', '/api-keys/', { token: carol.token })).status, `request ${i}`).toBe(200);
    }
    const refused = await stack.call('GET', '/api-keys/', { token: carol.token });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded' });
    clock.advance(100); // one token every 0.1 s
    expect((await stack.call('GET', '/api-keys/', { token: carol.token })).status).toBe(200);
    expect((await stack.call('GET', '/api-keys/', { token: carol.token })).status).toBe(429);
    // Session-only routes take from the same bucket (they were not counted before 2026-11-29).
    expect((await stack.call('GET', '/prospects/999999/connection-status/', { token: carol.token })).status).toBe(429);
    expect((await stack.call('POST', '/user/webhook/test/', { token: carol.token })).status).toBe(429);
    clock.advance(100);
    expect((await stack.call('GET', '/prospects/999999/connection-status/', { token: carol.token })).body).toEqual({ error: 'Prospect not found' });
    expect((await stack.call('GET', '/prospects/999999/connection-status/', { token: carol.token })).status).toBe(429);
  });
});
