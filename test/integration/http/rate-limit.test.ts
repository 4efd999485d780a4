import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

describe('per-key rate limit (50 requests a minute, exactly; a burst of 50)', () => {
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

  it('lets 50 through at once and refuses the 51st with 429 and Retry-After until the first is a minute old', async () => {
    const { key } = await createKey(stack, alice, 'limited');
    for (let i = 1; i <= 50; i += 1) {
      const response = await stack.call('GET', '/api-keys/', { apiKey: key });
      expect(response.status, `request ${i}`).toBe(200);
    }
    const refused = await stack.call('GET', '/api-keys/', { apiKey: key });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded' });
    // The first of the 50 leaves the minute 60 s after it passed.
    expect(refused.headers.get('retry-after')).toBe('60');

    // The bucket has a token back every 1.2 s, but the minute still holds 50.
    clock.advance(30_000);
    const halfway = await stack.call('GET', '/api-keys/', { apiKey: key });
    expect([halfway.status, halfway.headers.get('retry-after')]).toEqual([429, '30']);
    clock.advance(29_999);
    const almost = await stack.call('GET', '/api-keys/', { apiKey: key });
    expect([almost.status, almost.headers.get('retry-after')]).toEqual([429, '1']);
    clock.advance(1);
    // A minute after the 50: another 50 at once, and no more.
    for (let i = 1; i <= 50; i += 1) {
      expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status, `second minute, request ${i}`).toBe(200);
    }
    expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(429);
  });

  it('counts each key on its own: other keys of the same user and other users are unaffected', async () => {
    const first = await createKey(stack, alice, 'first');
    const second = await createKey(stack, alice, 'second');
    const bobs = await createKey(stack, bob, 'bob');
    for (let i = 0; i < 50; i += 1) await stack.call('GET', '/api-keys/', { apiKey: first.key });
    expect((await stack.call('GET', '/api-keys/', { apiKey: first.key })).status).toBe(429);
    expect((await stack.call('GET', '/api-keys/', { apiKey: second.key })).status).toBe(200);
    expect((await stack.call('GET', '/api-keys/', { apiKey: bobs.key })).status).toBe(200);
    // Sessions are not counted against the user's keys.
    expect((await stack.call('GET', '/api-keys/', { token: alice.token })).status).toBe(200);
  });

  it('does not count refused credentials against anyone', async () => {
    const { key } = await createKey(stack, bob, 'untouched');
    for (let i = 0; i < 60; i += 1) await stack.call('GET', '/api-keys/', { apiKey: `${key}x` });
    // Nothing was taken: exactly 50 pass.
    for (let i = 0; i < 50; i += 1) {
      expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(200);
    }
    expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(429);
  });

  it('measured: a client asking every 250 ms gets 50 in any minute, the first minute too', async () => {
    const { key } = await createKey(stack, alice, 'measured');
    const start = clock.now().getTime();
    const passedAt: number[] = [];
    const ask = async (offsetMs: number) => {
      clock.set(new Date(start + offsetMs));
      const response = await stack.call('GET', '/auth/me/', { apiKey: key });
      expect([200, 429], `at ${offsetMs} ms`).toContain(response.status);
      if (response.status === 200) passedAt.push(offsetMs);
    };
    for (let at = 0; at < 180_000; at += 250) await ask(at);
    const within = (from: number, to: number) => passedAt.filter((at) => at >= from && at < to).length;
    // The first 50 in 12.25 s, then none until the first is a minute old, and so on.
    expect(passedAt.slice(0, 51)).toEqual([...Array.from({ length: 50 }, (_, i) => i * 250), 60_000]);
    expect([within(0, 60_000), within(60_000, 120_000), within(120_000, 180_000)]).toEqual([50, 50, 50]);
    for (let from = 0; from + 60_000 <= 180_000; from += 250) expect(within(from, from + 60_000), `from ${from} ms`).toBeLessThanOrEqual(50);
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
  });
});
