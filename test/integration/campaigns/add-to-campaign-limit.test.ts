import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../../support/test-stack';
import { type LeadListView, type Workspace, createList, importLeads, leadsStack, person } from '../leads/helpers';
import { addToCampaign, campaignItems, createCampaign, prospectCount } from './helpers';

/** One request moves at most 1,000 prospects: a list of 1,001 takes two. */
describe('add-to-campaign: 1,000 prospects a request', () => {
  let stack: TestStack;
  let alice: Workspace;
  let list: LeadListView;

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
    list = await createList(stack, alice, 'A thousand and one');
    // Without companies: each prospect counts as its own company, so none is held back by prospects_per_company.
    await importLeads(stack, alice, list.id, { leads: Array.from({ length: 1000 }, (_, i) => person(i)) });
    await importLeads(stack, alice, list.id, { leads: [person(1000)] });
  });
  afterAll(async () => stack?.stop());

  it('moves 1,000 of 1,001 with amount 0 and says has_more; the repeated call moves the last one', async () => {
    const campaign = await createCampaign(stack, alice, 'All of them');
    const first = await addToCampaign(stack, alice, list.id, { campaign: campaign.id });
    expect(first.status, first.text).toBe(200);
    expect([first.body.count, first.body.prospects.length, first.body.has_more, first.body.skipped]).toEqual([1000, 1000, true, []]);
    const second = await addToCampaign(stack, alice, list.id, { campaign: campaign.id });
    expect([second.body.count, second.body.has_more]).toEqual([1, false]);
    const ids = [...first.body.prospects, ...second.body.prospects].map((p) => p.id);
    expect(new Set(ids).size).toBe(1001);
    expect(await prospectCount(stack, campaign.id)).toBe(1001);
    expect(await campaignItems(stack, campaign.id)).toHaveLength(1001);
  }, 60_000);

  it('an amount above 1,000 says has_more until it is met; exactly 1,000 has no more to say', async () => {
    const larger = await createCampaign(stack, alice, 'Larger amount');
    const first = await addToCampaign(stack, alice, list.id, { campaign: larger.id, amount: 1200, allow_duplicates: true });
    expect([first.body.count, first.body.has_more]).toEqual([1000, true]);
    const rest = await addToCampaign(stack, alice, list.id, { campaign: larger.id, amount: 200, allow_duplicates: true });
    expect([rest.body.count, rest.body.has_more]).toEqual([1, false]);
    const exact = await createCampaign(stack, alice, 'Exact amount');
    const moved = await addToCampaign(stack, alice, list.id, { campaign: exact.id, amount: 1000, allow_duplicates: true });
    expect([moved.body.count, moved.body.has_more]).toEqual([1000, false]);
    expect([await prospectCount(stack, larger.id), await prospectCount(stack, exact.id)]).toEqual([1, 1000]);
  }, 90_000);
});

/**
 * prospects_per_company is counted on the campaign as the request reads it: adds from one list
 * into one campaign take turns on a lease (docs/campaigns.md), so two sent at once cannot each
 * take a company's last place (before 2026-11-27 they did: 2 per company at a limit of 1).
 */
describe('add-to-campaign: two at once from one list', () => {
  let stack: TestStack;
  let alice: Workspace;

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  it('each names one prospect of each of 5 companies (2 each in the list): 5 move in all, the other 5 are company_limit', async () => {
    const list = await createList(stack, alice, 'Two per company');
    const rows = Array.from({ length: 10 }, (_, i) => person(5000 + i, { company_name: `Pair ${Math.floor(i / 2)}` }));
    const ids = (await importLeads(stack, alice, list.id, { leads: rows })).leads.map((lead) => lead.id);
    const campaign = await createCampaign(stack, alice, 'One per company');
    const firsts = ids.filter((_, i) => i % 2 === 0);
    const seconds = ids.filter((_, i) => i % 2 === 1);
    const answers = await Promise.all([firsts, seconds].map((prospectIds) => addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospect_ids: prospectIds })));
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const moved = answers.flatMap((answer) => answer.body.prospects.map((p) => p.id));
    const limited = answers.flatMap((answer) => answer.body.skipped.filter((skip) => skip.reason === 'company_limit').map((skip) => skip.id));
    expect({ moved: moved.length, limited: limited.length }).toEqual({ moved: 5, limited: 5 });
    // One of each pair: the first request to hold the lease moved all of its 5, the other none.
    expect(answers.map((answer) => answer.body.count).sort()).toEqual([0, 5]);
    expect([...moved, ...limited].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(await prospectCount(stack, campaign.id)).toBe(5);
  }, 60_000);
});
