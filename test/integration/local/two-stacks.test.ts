import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

/**
 * Handlers are built from plain config objects, not process-wide state: two stacks in one process
 * keep their own limits. (Before, the second stack silently ran with the first one's settings.)
 */
describe('two local stacks with different settings in one process', () => {
  let strict: TestStack;
  let roomy: TestStack;

  beforeAll(async () => {
    strict = await startTestStack({ rateLimitPerMinute: 100_000, settings: { maxActiveKeysPerUser: 2, maxLeadsPerList: 1 } });
    roomy = await startTestStack({ rateLimitPerMinute: 100_000 });
  });
  afterAll(async () => {
    await strict?.stop();
    await roomy?.stop();
  });

  it('each enforces its own API-key limit', async () => {
    const strictUser = await signUp(strict);
    const roomyUser = await signUp(roomy);
    for (let i = 0; i < 2; i += 1) await createKey(strict, strictUser);
    for (let i = 0; i < 3; i += 1) await createKey(roomy, roomyUser);

    const refused = await strict.call('POST', '/api-keys/', { token: strictUser.token, body: { name: 'third' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'API key limit reached: at most 2 active keys per user' });
    const fourth = await roomy.call('POST', '/api-keys/', { token: roomyUser.token, body: { name: 'fourth' } });
    expect(fourth.status).toBe(201);
  });

  it('each enforces its own list size', async () => {
    const leads = [
      { first_name: 'Ada', last_name: 'One', network_profile_url: 'https://www.linkedin.com/in/ada-one' },
      { first_name: 'Bea', last_name: 'Two', network_profile_url: 'https://www.linkedin.com/in/bea-two' },
    ];
    const results = [];
    for (const stack of [strict, roomy]) {
      const user = await signUp(stack);
      const { key } = await createKey(stack, user);
      const list = await stack.call<{ lead_list: { id: number } }>('POST', '/public/lead-lists/', { apiKey: key, body: { name: 'Size' } });
      const imported = await stack.call<{ created: number; skipped: number; total_prospects: number }>(
        'POST',
        `/public/lead-lists/${list.body.lead_list.id}/import/`,
        { apiKey: key, body: { leads } },
      );
      results.push({ created: imported.body.created, skipped: imported.body.skipped, total: imported.body.total_prospects });
    }
    expect(results).toEqual([
      { created: 1, skipped: 1, total: 1 },
      { created: 2, skipped: 0, total: 2 },
    ]);
  });
});
