import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

describe('per-key rate limit (50 requests per minute)', () => {
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

  it('lets 50 requests through, refuses the 51st with 429 and Retry-After, and refills at 50 per minute', async () => {
    const { key } = await createKey(stack, alice, 'limited');
    for (let i = 1; i <= 50; i += 1) {
      const response = await stack.call('GET', '/api-keys/', { apiKey: key });
      expect(response.status, `request ${i}`).toBe(200);
    }
    const refused = await stack.call('GET', '/api-keys/', { apiKey: key });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded' });
    expect(refused.headers.get('retry-after')).toBe('2');

    clock.advance(1_200); // one token comes back every 1.2 s
    expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(200);
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
    for (let i = 0; i < 50; i += 1) {
      expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(200);
    }
  });
});
