import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ANSWER_VIEW_BYTES } from '../../../shared/domain/answer-budget';
import { ANSWER_TOO_LARGE, LAMBDA_RESULT_MAX_BYTES } from '../../../shared/http/answer-size';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, createList, importLeads, leadsStack, person } from '../leads/helpers';
import { addToCampaign, createCampaign } from './helpers';
import { inLambdaResult } from '../../support/formats';

/**
 * Prospects as large as validation allows (every text field at 1,000 characters, custom fields at
 * 10,000): ~66 KB each in a function's result, where a quote takes 4 bytes and a CJK character 3.
 * Answers that list many of them must stay under Lambda's 6 MB result, or API Gateway answers 502
 * (the local gateway does the same).
 */
const Q = '"'.repeat(1000);
const wide = (n: number) => `${n}${'界'.repeat(990)}`;
const large = (n: number) =>
  person(n, {
    first_name: wide(n),
    last_name: Q,
    job_title: Q,
    headline: Q,
    location: Q,
    industry: Q,
    custom_fields: { notes: '界'.repeat(9_980) },
    company_name: wide(n),
    company_industry: Q,
    company_location: Q,
  });


describe('answers that would pass what Lambda can return', () => {
  let stack: TestStack;
  let alice: Workspace;
  let listId: number;
  let ids: number[];

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
    listId = (await createList(stack, alice, 'Large prospects')).id;
    ids = [];
    // 120 of them: listed whole, ~7.3 MB (a 502 before answers were bounded).
    for (let start = 1; start <= 120; start += 24) {
      const imported = await importLeads(stack, alice, listId, { leads: Array.from({ length: 24 }, (_, i) => large(start + i)) });
      expect([imported.created, imported.skipped_rows]).toEqual([24, []]);
      ids.push(...imported.leads.map((lead) => lead.id));
    }
  }, 120_000);
  afterAll(async () => stack?.stop());

  it('list-leads: a page of 100 would pass it, so it is a 400 that says to ask for less; 50 a page are answered', async () => {
    const full = await stack.call('GET', `/public/lead-lists/${listId}/leads/?page_size=100`, { apiKey: alice.key });
    expect([full.status, full.body]).toEqual([400, ANSWER_TOO_LARGE]);
    for (const page of [1, 2]) {
      const half = await stack.call<{ prospects: { id: number }[] }>('GET', `/public/lead-lists/${listId}/leads/?page_size=50&page=${page}`, { apiKey: alice.key });
      expect(half.status).toBe(200);
      expect(half.body.prospects.map((p) => p.id)).toEqual(ids.slice((page - 1) * 50, page * 50));
      expect(inLambdaResult(half.text)).toBeLessThan(LAMBDA_RESULT_MAX_BYTES);
    }
  });

  it('a workspace search (a POST that only asks) of 100 is the same 400; of 50 it answers', async () => {
    const search = (pageSize: number) =>
      stack.call<{ results: { id: number }[] }>('POST', '/public/prospects/search/', { apiKey: alice.key, body: { source: 'WORKSPACE', page_size: pageSize } });
    const full = await search(100);
    expect([full.status, full.body]).toEqual([400, ANSWER_TOO_LARGE]);
    const half = await search(50);
    expect([half.status, half.body.results.length]).toEqual([200, 50]);
  });

  it('add-to-campaign with amount: moves what one answer can list, says has_more, and the same call moves the rest', async () => {
    const campaign = await createCampaign(stack, alice, 'Every large prospect');
    const first = await addToCampaign(stack, alice, listId, { campaign: campaign.id });
    expect(first.status, first.text).toBe(200);
    expect([first.body.count, first.body.has_more, first.body.skipped]).toEqual([82, true, []]);
    expect(first.body.prospects.map((p) => p.id)).toEqual(ids.slice(0, 82));
    expect(inLambdaResult(JSON.stringify(first.body.prospects))).toBeLessThanOrEqual(MAX_ANSWER_VIEW_BYTES);
    const second = await addToCampaign(stack, alice, listId, { campaign: campaign.id });
    expect([second.status, second.body.count, second.body.has_more]).toEqual([200, 38, false]);
    expect(second.body.prospects.map((p) => p.id)).toEqual(ids.slice(82));
  });

  it('add-to-campaign with prospect_ids: the ones the answer could not hold are skipped as answer_full, and not moved', async () => {
    const campaign = await createCampaign(stack, alice, 'Named large prospects');
    const moved = await addToCampaign(stack, alice, listId, { campaign: campaign.id, prospect_ids: ids, allow_duplicates: true });
    expect([moved.status, moved.body.count, moved.body.has_more]).toEqual([200, 82, false]);
    expect(moved.body.prospects.map((p) => p.id)).toEqual(ids.slice(0, 82));
    expect(moved.body.skipped).toEqual(ids.slice(82).map((id) => ({ id, reason: 'answer_full' })));
    const again = await addToCampaign(stack, alice, listId, { campaign: campaign.id, prospect_ids: ids.slice(82), allow_duplicates: true });
    expect([again.status, again.body.count, again.body.skipped]).toEqual([200, 38, []]);
  });

  it('add-to-campaign with an amount the answer cannot hold: a short count, has_more false (the amount asked was not all of them)', async () => {
    const campaign = await createCampaign(stack, alice, 'Ninety large prospects');
    const moved = await addToCampaign(stack, alice, listId, { campaign: campaign.id, amount: 90, allow_duplicates: true });
    expect([moved.status, moved.body.count, moved.body.has_more, moved.body.skipped]).toEqual([200, 82, false, []]);
    expect(moved.body.prospects.map((p) => p.id)).toEqual(ids.slice(0, 82));
  });

  it("a campaign's prospects page ends early, its cursor after the last shown, and the next page goes on from there", async () => {
    const campaign = await createCampaign(stack, alice, 'Paged large prospects');
    await addToCampaign(stack, alice, listId, { campaign: campaign.id, prospect_ids: ids.slice(0, 82), allow_duplicates: true });
    await addToCampaign(stack, alice, listId, { campaign: campaign.id, prospect_ids: ids.slice(82), allow_duplicates: true });
    const seen: number[][] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const query: string = cursor ? `?cursor=${cursor}` : '';
      const page = await stack.call<{ prospects: { id: number }[]; next_cursor: string | null }>('GET', `/public/campaigns/${campaign.id}/prospects${query}`, { apiKey: alice.key });
      expect(page.status).toBe(200);
      expect(inLambdaResult(page.text)).toBeLessThan(LAMBDA_RESULT_MAX_BYTES);
      seen.push(page.body.prospects.map((p) => p.id));
      cursor = page.body.next_cursor;
    }
    expect(seen.map((page) => page.length)).toEqual([77, 43]);
    expect(seen.flat()).toEqual(ids);
  });
});
