import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignProspectKey, padId } from '../../../shared/db/keys';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import type { TestStack } from '../../support/test-stack';
import {
  type LeadListView,
  type Workspace,
  createList,
  expectedProspect,
  getList,
  leadsOf,
} from '../leads/helpers';
import { addToCampaign, campaignItems, createCampaign, prospectCount, storedProspect } from './helpers';
import { NOW, moveHelpers, startMoveWorld } from './add-to-campaign-helpers';

/** Moving prospects into a campaign (add-to-campaign): errors, choosing who moves, duplicates, per-company limits. Scheduling, races and isolation: add-to-campaign-scheduling.test.ts. */
describe('add-to-campaign', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bobsList: LeadListView;
  let bobsProspect: number;
  let bobsCampaign: Campaign;
  const { seedList, expectConsistent, rowsSoFar } = moveHelpers(() => ({ stack, alice }));

  beforeAll(async () => {
    ({ stack, alice, bobsList, bobsProspect, bobsCampaign } = await startMoveWorld());
  });
  afterAll(async () => stack?.stop());

  it('answers the documented errors before moving anything', async () => {
    const { list, ids } = await seedList('Errors', [{}]);
    const campaign = await createCampaign(stack, alice, 'Errors');
    const companies = await createList(stack, alice, 'Companies', 'COMPANY');
    const archived = await createCampaign(stack, alice, 'Archived', { status: 'ARCHIVED' });
    const cases: [number, unknown, number, string][] = [
      [list.id, {}, 400, 'Missing required fields: campaign, prospect_ids'],
      [list.id, { prospect_ids: ids }, 400, 'Missing required fields: campaign, prospect_ids'],
      [list.id, { campaign: null, amount: 3 }, 400, 'Missing required fields: campaign, prospect_ids'],
      [list.id, { campaign: 'abc' }, 400, 'campaign must be an integer id'],
      [list.id, { campaign: campaign.id, prospect_ids: 'x' }, 400, 'prospect_ids must be an array of integer ids'],
      [list.id, { campaign: campaign.id, prospect_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }, 400, 'prospect_ids may hold at most 1000 ids'],
      [list.id, { campaign: campaign.id, amount: -1 }, 400, 'amount must be an integer of at least 0'],
      [list.id, { campaign: campaign.id, amount: 1.5 }, 400, 'amount must be an integer of at least 0'],
      [list.id, { campaign: campaign.id, amount: 1e20 }, 400, 'amount must be at most 9007199254740991'],
      [list.id, { campaign: campaign.id, prospects_per_company: 1e20 }, 400, 'prospects_per_company must be at most 9007199254740991'],
      [list.id, { campaign: campaign.id, prospects_per_company: 0 }, 400, 'prospects_per_company must be an integer of at least 1'],
      [list.id, { campaign: campaign.id, allow_duplicates: 'yes' }, 400, 'allow_duplicates must be true or false'],
      [list.id, { campaign: campaign.id, activate: 1 }, 400, 'activate must be true or false'],
      [list.id, { campaign: campaign.id, filters: ['cto'] }, 400, 'filters must be an object of filter name -> value or list of values'],
      [
        list.id,
        { campaign: campaign.id, filters: { shoe_size: '42' } },
        400,
        "Unknown filter 'shoe_size'. Filters of PEOPLE lists: first_name, last_name, email, phone_number, network_profile_url, job_title, location, headline, industry, company_name, company_industry, company_location, company_size, company_website_url",
      ],
      [list.id, { campaign: campaign.id, filters: { job_title: 7 } }, 400, 'Filter job_title must be a string or a list of strings'],
      [list.id, { campaign: campaign.id, sort_field: 'email' }, 400, 'sort_field must be one of: id, first_name, last_name, job_title, location, created_at'],
      [list.id, { campaign: campaign.id, sort_direction: 'up' }, 400, "sort_direction must be 'asc' or 'desc'"],
      // A misspelt field is named, not ignored (ignored, `prospectIds` would move every match).
      [
        list.id,
        { campaign: campaign.id, prospectIds: ids },
        400,
        'prospectIds is not a field of add-to-campaign (fields: campaign, prospect_ids, amount, allow_duplicates, prospects_per_company, filters, sort_field, sort_direction, activate)',
      ],
      [987654321, { campaign: campaign.id }, 404, 'Lead list not found'],
      [bobsList.id, { campaign: campaign.id }, 404, 'Lead list not found'],
      [list.id, { campaign: 987654321 }, 404, 'Campaign not found'],
      [list.id, { campaign: bobsCampaign.id }, 404, 'Campaign not found'],
      [companies.id, { campaign: campaign.id }, 400, 'add-to-campaign is only available for people lists'],
      [list.id, { campaign: archived.id, prospect_ids: ids }, 409, 'Campaign is archived'],
    ];
    for (const [listId, body, status, error] of cases) {
      const response = await addToCampaign(stack, alice, listId, body);
      expect({ body, status: response.status, answer: response.body }).toEqual({ body, status, answer: { error } });
    }
    expect((await storedProspect(stack, ids[0] as number))?.status).toBe('NEW');
    expect(await prospectCount(stack, campaign.id)).toBe(0);
    expect(await prospectCount(stack, archived.id)).toBe(0);
  });

  it('moves named prospects, says why the others stay, and shows them IN_REVIEW with their campaign in every list', async () => {
    const acme = { company: { name: 'Acme', website_url: 'https://acme.example', industry: 'Software', location: 'Berlin' } };
    const { list, ids } = await seedList('Named', [
      { first_name: 'Ada', job_title: 'CTO', ...acme },
      { first_name: 'Ben', ...acme },
      { first_name: 'Cy' },
      { first_name: 'Dee', company_name: 'Beta', company_website_url: 'beta.example' },
    ]);
    const [ada, ben, cy, dee] = ids as [number, number, number, number];
    // Ada is in a second list too: its view there shows the move as well.
    const other = await createList(stack, alice, 'Other list');
    await stack.call('POST', `/public/lead-lists/${other.id}/add-leads/`, { apiKey: alice.key, body: { prospect_ids: [ada] } });
    const campaign = await createCampaign(stack, alice, 'Named');

    const response = await addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospect_ids: [ada, ben, cy, ada, 987654321, bobsProspect] });
    expect(response.status, response.text).toBe(200);
    const acmeId = (await leadsOf(stack, alice, list.id)).prospects?.[0]?.company?.id;
    expect(response.body).toEqual({
      success: true,
      count: 2,
      prospects: [
        expectedProspect({
          id: ada,
          first_name: 'Ada',
          last_name: `Last${rowsSoFar() - 3}`,
          network_profile_url: `https://www.linkedin.com/in/person-${rowsSoFar() - 3}`,
          job_title: 'CTO',
          status: 'IN_REVIEW',
          campaign_id: campaign.id,
          company: { id: acmeId, name: 'Acme', website_url: 'https://acme.example', industry: 'Software' },
          created_at: NOW,
          updated_at: NOW,
        }),
        expectedProspect({
          id: cy,
          first_name: 'Cy',
          last_name: `Last${rowsSoFar() - 1}`,
          network_profile_url: `https://www.linkedin.com/in/person-${rowsSoFar() - 1}`,
          status: 'IN_REVIEW',
          campaign_id: campaign.id,
          created_at: NOW,
          updated_at: NOW,
        }),
      ],
      has_more: false,
      skipped: [
        { id: 987654321, reason: 'not_in_list' },
        { id: bobsProspect, reason: 'not_in_list' },
        // One prospect per company by default: Ada took Acme's place.
        { id: ben, reason: 'company_limit' },
      ],
    });

    const page = await leadsOf(stack, alice, list.id);
    expect(page.prospects?.map((p) => [p.id, p.status, p.campaign_id])).toEqual([
      [ada, 'IN_REVIEW', campaign.id],
      [ben, 'NEW', null],
      [cy, 'IN_REVIEW', campaign.id],
      [dee, 'NEW', null],
    ]);
    expect((await leadsOf(stack, alice, other.id)).prospects?.map((p) => [p.id, p.status, p.campaign_id])).toEqual([[ada, 'IN_REVIEW', campaign.id]]);
    // Filtered (digest) pages show the same.
    expect((await leadsOf(stack, alice, list.id, 'first_name=a')).prospects?.map((p) => [p.id, p.campaign_id])).toEqual([[ada, campaign.id]]);
    expect((await getList(stack, alice, list.id))?.total_prospects).toBe(4);

    const items = await campaignItems(stack, campaign.id);
    expect(items.find((item) => item.prospectId === ada)).toEqual({
      ...campaignProspectKey(campaign.id, ada),
      lsi1sk: `IN_REVIEW#${padId(ada)}`,
      lsi2sk: `UNSCHEDULED#${padId(ada)}`,
      entityType: 'CampaignProspect',
      campaignId: campaign.id,
      prospectId: ada,
      workspaceId: alice.workspaceId,
      status: 'IN_REVIEW',
      nodeId: null,
      schedule: 'WAITING',
      nextActionAt: null,
      lastError: null,
      companyId: acmeId,
      addedAt: NOW,
      updatedAt: NOW,
    });
    expect(await prospectCount(stack, campaign.id)).toBe(2);
    expect(await storedProspect(stack, ada)).toMatchObject({ status: 'IN_REVIEW', campaignId: campaign.id, listIds: new Set([list.id, other.id]) });

    // Again: those in the campaign are skipped; with two per company Ben joins Ada.
    const again = await addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospect_ids: [ada, ben, cy, dee], prospects_per_company: 2 });
    expect(again.body).toMatchObject({
      count: 2,
      skipped: [
        { id: ada, reason: 'already_in_campaign' },
        { id: cy, reason: 'already_in_campaign' },
      ],
    });
    expect(again.body.prospects.map((p) => p.id)).toEqual([ben, dee]);
    await expectConsistent([campaign]);
    expect(await prospectCount(stack, campaign.id)).toBe(4);
  });

  it('picks `amount` prospects in the requested order, from those matching the filters; amount 0 takes every match', async () => {
    const { list, ids } = await seedList('Amount', [
      { first_name: 'Carla', job_title: 'CTO' },
      { first_name: 'anna', job_title: 'VP Sales' },
      { first_name: 'Émile', job_title: 'CTO' },
      { first_name: 'Bob', job_title: 'Head of Sales' },
      { first_name: 'Dirk', job_title: 'CTO', location: 'Zürich' },
    ]);
    const [carla, anna, emile, bobby, dirk] = ids as [number, number, number, number, number];
    const campaign = await createCampaign(stack, alice, 'Amount');
    const two = await addToCampaign(stack, alice, list.id, { campaign: campaign.id, amount: 2, sort_field: 'first_name', sort_direction: 'desc' });
    expect(two.body).toMatchObject({ count: 2, has_more: false, skipped: [] });
    expect(two.body.prospects.map((p) => p.id)).toEqual([emile, dirk]);

    // Those in the campaign already are not matches: amount 1 of the CTOs by id is Carla.
    const cto = await addToCampaign(stack, alice, list.id, { campaign: campaign.id, amount: 1, filters: { job_title: 'cto' } });
    expect(cto.body.prospects.map((p) => p.id)).toEqual([carla]);
    const none = await addToCampaign(stack, alice, list.id, { campaign: campaign.id, amount: 0, filters: { job_title: ['cto'], location: 'zurich' } });
    expect(none.body).toEqual({ success: true, count: 0, prospects: [], has_more: false, skipped: [] });

    const rest = await addToCampaign(stack, alice, list.id, { campaign: campaign.id, amount: 0, filters: { job_title: ['sales', 'nobody'] } });
    expect(rest.body.prospects.map((p) => p.id)).toEqual([anna, bobby]);
    // An optional field given null takes its default (amount 0: every match, none left here).
    const nulls = { prospect_ids: null, amount: null, allow_duplicates: null, prospects_per_company: null, filters: null, sort_field: null, sort_direction: null, activate: null };
    expect((await addToCampaign(stack, alice, list.id, { campaign: campaign.id, ...nulls })).body).toEqual({ success: true, count: 0, prospects: [], has_more: false, skipped: [] });
    expect(rest.body.has_more).toBe(false);
    expect(await prospectCount(stack, campaign.id)).toBe(5);
    await expectConsistent([campaign]);
  });

  it('leaves prospects of other campaigns alone unless duplicates are allowed; moving takes them out of their campaign', async () => {
    const { list, ids } = await seedList('Duplicates', [{}, {}, {}]);
    const [p1, p2, p3] = ids as [number, number, number];
    const first = await createCampaign(stack, alice, 'First', { status: 'ACTIVE' });
    const second = await createCampaign(stack, alice, 'Second');
    expect((await addToCampaign(stack, alice, list.id, { campaign: first.id, prospect_ids: [p1, p2], activate: true })).body.count).toBe(2);
    expect(await campaignItems(stack, first.id)).toHaveLength(2);

    const skipping = await addToCampaign(stack, alice, list.id, { campaign: second.id });
    expect(skipping.body).toMatchObject({ count: 1, skipped: [] });
    expect(skipping.body.prospects.map((p) => p.id)).toEqual([p3]);
    const named = await addToCampaign(stack, alice, list.id, { campaign: second.id, prospect_ids: [p1], allow_duplicates: false });
    expect(named.body).toMatchObject({ count: 0, skipped: [{ id: p1, reason: 'in_other_campaign' }] });

    const moving = await addToCampaign(stack, alice, list.id, { campaign: second.id, allow_duplicates: true });
    expect(moving.body.prospects.map((p) => [p.id, p.status, p.campaign_id])).toEqual([
      [p1, 'IN_REVIEW', second.id],
      [p2, 'IN_REVIEW', second.id],
    ]);
    // The first campaign lost them (count and items, their scheduled actions with them).
    expect(await prospectCount(stack, first.id)).toBe(0);
    expect(await campaignItems(stack, first.id)).toEqual([]);
    expect(await prospectCount(stack, second.id)).toBe(3);
    await expectConsistent([first, second]);
  });

  it('takes prospects still in an archived campaign without allow_duplicates: the archive ended their sequences', async () => {
    const { list, ids } = await seedList('From archived', [{}, {}]);
    const [p1, p2] = ids as [number, number];
    const archived = await createCampaign(stack, alice, 'Archived source', { status: 'ACTIVE' });
    const running = await createCampaign(stack, alice, 'Running source', { status: 'ACTIVE' });
    const target = await createCampaign(stack, alice, 'After the archive');
    expect((await addToCampaign(stack, alice, list.id, { campaign: archived.id, prospect_ids: [p1], activate: true })).body.count).toBe(1);
    expect((await addToCampaign(stack, alice, list.id, { campaign: running.id, prospect_ids: [p2], activate: true })).body.count).toBe(1);
    const archiving = await stack.call('POST', `/public/campaigns/${archived.id}/archive/`, { apiKey: alice.key });
    expect(archiving.status, archiving.text).toBe(200);

    const moved = await addToCampaign(stack, alice, list.id, { campaign: target.id });
    expect(moved.body.prospects.map((p) => [p.id, p.status, p.campaign_id])).toEqual([[p1, 'IN_REVIEW', target.id]]);
    const named = await addToCampaign(stack, alice, list.id, { campaign: target.id, prospect_ids: [p2] });
    expect(named.body).toMatchObject({ count: 0, skipped: [{ id: p2, reason: 'in_other_campaign' }] });
    expect(await prospectCount(stack, target.id)).toBe(1);
  });

  it('takes at most prospects_per_company of a company (counting the campaign’s members from the list); prospects without a company each count alone', async () => {
    const acme = { company_name: 'Acme', company_website_url: 'acme-ppc.example' };
    const beta = { company_name: 'Beta', company_website_url: 'beta-ppc.example' };
    const { list, ids } = await seedList('Per company', [acme, acme, acme, beta, beta, {}, {}, {}]);
    const campaign = await createCampaign(stack, alice, 'Per company');
    const once = await addToCampaign(stack, alice, list.id, { campaign: campaign.id });
    expect(once.body.prospects.map((p) => p.id)).toEqual([ids[0], ids[3], ids[5], ids[6], ids[7]]);
    const again = await addToCampaign(stack, alice, list.id, { campaign: campaign.id });
    expect(again.body).toEqual({ success: true, count: 0, prospects: [], has_more: false, skipped: [] });
    const two = await addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospects_per_company: 2, sort_direction: 'desc' });
    expect(two.body.prospects.map((p) => p.id)).toEqual([ids[4], ids[2]]);
    expect(await prospectCount(stack, campaign.id)).toBe(7);
  });
});
