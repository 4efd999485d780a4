import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, leadsStack } from './helpers';

// The sandbox directory refuses this key, as a real provider refuses a revoked one.
const FAILURE_SETTINGS = { directoryApiKey: 'revoked-key', searchQuotaPerMonth: 1 };

describe('directory failures', () => {
  let stack: TestStack;
  let alice: Workspace;

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack({ settings: FAILURE_SETTINGS }));
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 502 with the reason, saves nothing and gives the search back to the quota', async () => {
    for (let i = 0; i < 2; i += 1) {
      const response = await stack.call('POST', '/public/prospects/search/', { apiKey: alice.key, body: { filters: { job_title: 'CTO' } } });
      // The quota is 1: a second 502 (not a 429) shows the failed search was not counted.
      expect(response.status).toBe(502);
      expect(response.body).toEqual({ error: 'Directory search failed: the directory answered HTTP 401' });
    }
    const own = await stack.call<{ total_count: number }>('POST', '/public/prospects/search/', {
      apiKey: alice.key,
      body: { source: 'WORKSPACE' },
    });
    expect(own.body.total_count).toBe(0);
  });
});
