import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anId } from '../../support/formats';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, createList, getList, importLeads, leadsStack, person } from './helpers';

const LIMITS = { searchQuotaPerMonth: 3, maxLeadsPerList: 3 };

describe('limits: monthly search quota and list size', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack({ settings: LIMITS }));
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('counts directory searches per workspace per month and answers 429 when the quota is used up', async () => {
    const body = { filters: { job_title: 'CTO' }, page_size: 1 };
    for (let i = 0; i < 3; i += 1) {
      expect((await stack.call('POST', '/public/prospects/search/', { apiKey: alice.key, body })).status).toBe(200);
    }
    const before = Date.now();
    const refused = await stack.call('POST', '/public/prospects/search/', { apiKey: alice.key, body });
    const after = Date.now();
    expect(refused.status).toBe(429);
    const now = new Date();
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
    expect(refused.body).toEqual({
      error: `Monthly search quota exceeded: 3 directory searches per workspace per month; it resets on ${reset}`,
    });
    // Retry-After: the seconds until the quota resets, as measured around the request.
    const resetAt = Date.parse(`${reset}T00:00:00.000Z`);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter >= Math.ceil((resetAt - after) / 1000) && retryAfter <= Math.ceil((resetAt - before) / 1000), `Retry-After ${retryAfter}`).toBe(true);
    // Workspace searches do not use the directory and stay available; other workspaces have their own quota.
    const own = await stack.call('POST', '/public/prospects/search/', { apiKey: alice.key, body: { ...body, source: 'WORKSPACE' } });
    expect(own.status).toBe(200);
    expect((await stack.call('POST', '/public/prospects/search/', { apiKey: bob.key, body })).status).toBe(200);
  });

  it('a full list refuses more leads: add-leads and import skip them with a reason, counts stay true', async () => {
    const source = await createList(stack, alice, 'Source');
    const ids = (await importLeads(stack, alice, source.id, { leads: [1, 2, 3].map((n) => person(n)) })).leads.map((l) => l.id);
    const spare = (await importLeads(stack, alice, (await createList(stack, alice, 'Spare')).id, { leads: [person(4)] })).leads[0]?.id;

    const list = await createList(stack, alice, 'Small');
    const imported = await importLeads(stack, alice, list.id, { leads: [person(1), person(2), person(5), person(6)] });
    expect(imported).toEqual({
      success: true,
      search_type: 'PEOPLE',
      total_rows: 4,
      created: 1,
      updated: 2,
      skipped: 1,
      skipped_rows: [{ row: 4, reason: 'the list is full' }],
      leads: [
        { row: 1, id: ids[0], status: 'updated' },
        { row: 2, id: ids[1], status: 'updated' },
        { row: 3, id: anId(), status: 'created' },
      ],
      total_prospects: 3,
    });
    const added = await stack.call('POST', `/public/lead-lists/${list.id}/add-leads/`, {
      apiKey: alice.key,
      body: { prospect_ids: [ids[2], spare] },
    });
    expect(added.body).toEqual({
      success: true,
      search_type: 'PEOPLE',
      added: 0,
      added_ids: [],
      skipped: [
        { id: ids[2], reason: 'list_full' },
        { id: spare, reason: 'list_full' },
      ],
      total_prospects: 3,
    });
    expect((await getList(stack, alice, list.id))?.total_prospects).toBe(3);
  });
});
