import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignProspectKey, dueShard, listMemberKey, padId } from '../../../shared/db/keys';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import { ManualClock } from '../../../shared/time/clock';
import type { TestStack } from '../../support/test-stack';
import {
  type LeadListView,
  type Workspace,
  createList,
  expectedProspect,
  getList,
  importLeads,
  leadsOf,
  leadsStack,
  person,
} from '../leads/helpers';
import { addToCampaign, campaignItems, createCampaign, engineAction, prospectCount, setStatus, storedProspect } from './helpers';

const NOW = '2026-12-01T09:30:00.000Z';
const DRAFT_WARNING = 'Campaign is in DRAFT: prospects were added but not scheduled; activate the campaign to start outreach';

describe('add-to-campaign', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;
  let bobsList: LeadListView;
  let bobsProspect: number;
  let bobsCampaign: Campaign;
  let row = 0;

  /** A fresh PEOPLE list of Alice's holding these rows (each with a profile URL of its own); their ids in row order. */
  async function seedList(name: string, rows: Record<string, unknown>[]): Promise<{ list: LeadListView; ids: number[] }> {
    const list = await createList(stack, alice, name);
    const leads = rows.map((fields, i) => person(row + i + 1, fields));
    row += rows.length;
    const imported = await importLeads(stack, alice, list.id, { leads });
    expect(imported.created + imported.updated).toBe(rows.length);
    return { list, ids: imported.leads.map((lead) => lead.id) };
  }

  /** Each campaign's count equals its items, and every item's prospect names that campaign. */
  async function expectConsistent(campaigns: Campaign[]) {
    for (const campaign of campaigns) {
      const items = await campaignItems(stack, campaign.id);
      expect(await prospectCount(stack, campaign.id), `count of ${campaign.name}`).toBe(items.length);
      for (const item of items) expect((await storedProspect(stack, item.prospectId as number))?.campaignId).toBe(campaign.id);
    }
  }

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack({ clock: new ManualClock(NOW) }));
    bobsList = await createList(stack, bob, 'Bob source');
    bobsProspect = ((await importLeads(stack, bob, bobsList.id, { leads: [person(9000)] })).leads[0] as { id: number }).id;
    bobsCampaign = await createCampaign(stack, bob, 'Bob campaign');
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
          last_name: `Last${row - 3}`,
          network_profile_url: `https://www.linkedin.com/in/person-${row - 3}`,
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
          last_name: `Last${row - 1}`,
          network_profile_url: `https://www.linkedin.com/in/person-${row - 1}`,
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

  it('schedules by the campaign’s status: ACTIVE now, PAUSED queued for resume, DRAFT waiting with a warning, COMPLETED made ACTIVE again; activate false waits', async () => {
    const { list, ids } = await seedList('Activation', [{}, {}, {}, {}, {}]);
    const flow = { root: 4242, nodes: { 4242: { kind: 'STEP' as const, type: 'NETWORK_INVITE', parent: null, child: null } }, redirects: {} };
    const active = await createCampaign(stack, alice, 'Active', { status: 'ACTIVE', flow });
    const paused = await createCampaign(stack, alice, 'Paused', { status: 'PAUSED', flow });
    const draft = await createCampaign(stack, alice, 'Draft', { flow });
    const completed = await createCampaign(stack, alice, 'Completed', { status: 'COMPLETED', flow });
    const later = await createCampaign(stack, alice, 'Active, not activated', { status: 'ACTIVE', flow });
    const move = (campaign: Campaign, id: number, activate?: boolean) =>
      addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospect_ids: [id], ...(activate === undefined ? {} : { activate }) });

    const scheduled = await move(active, ids[0] as number, true);
    expect(scheduled.body).toMatchObject({ count: 1 });
    expect(scheduled.body.warning).toBeUndefined();
    const [item] = await campaignItems(stack, active.id);
    // Its first action, due now, in the engine's due-time index: carried by the campaign prospect
    // item until the engine first handles it (no action item yet).
    expect(item).toMatchObject({
      schedule: 'SCHEDULED',
      nodeId: 4242,
      nextActionAt: NOW,
      dueAt: NOW,
      gsi2pk: `DUE#${String(dueShard(ids[0] as number)).padStart(2, '0')}`,
      gsi2sk: `${NOW}#${padId(active.id)}#${padId(ids[0] as number)}`,
    });
    expect(item?.lsi2sk).toBeUndefined();
    expect(await engineAction(stack, active.id, ids[0] as number)).toBeUndefined();

    const queued = await move(paused, ids[1] as number, true);
    expect(queued.body.warning).toBeUndefined();
    expect((await campaignItems(stack, paused.id))[0]).toMatchObject({ schedule: 'QUEUED', nodeId: 4242, nextActionAt: null, lsi2sk: `UNSCHEDULED#${padId(ids[1] as number)}` });

    const waiting = await move(draft, ids[2] as number, true);
    expect(waiting.body).toMatchObject({ count: 1, warning: DRAFT_WARNING });
    expect((await campaignItems(stack, draft.id))[0]).toMatchObject({ schedule: 'WAITING', nodeId: 4242, nextActionAt: null });
    // A COMPLETED campaign runs again: it becomes ACTIVE and the prospect is scheduled.
    const reopened = await move(completed, ids[3] as number, true);
    expect(reopened.body).toMatchObject({ count: 1 });
    expect(reopened.body.warning).toBeUndefined();
    expect((await campaignItems(stack, completed.id))[0]).toMatchObject({ schedule: 'SCHEDULED', nodeId: 4242, nextActionAt: NOW });
    const status = await stack.call<{ campaign: { status: string } }>('GET', `/public/campaigns/${completed.id}/`, { apiKey: alice.key });
    expect(status.body.campaign.status).toBe('ACTIVE');

    const notActivated = await move(later, ids[4] as number);
    expect(notActivated.body.warning).toBeUndefined();
    const [waitingItem] = await campaignItems(stack, later.id);
    expect(waitingItem).toMatchObject({ schedule: 'WAITING', nextActionAt: null, lsi2sk: `UNSCHEDULED#${padId(ids[4] as number)}` });
    expect(await engineAction(stack, later.id, ids[4] as number)).toBeUndefined();
    // Without activation even a DRAFT campaign gives no warning.
    expect((await addToCampaign(stack, alice, list.id, { campaign: draft.id, prospect_ids: [ids[4] as number], allow_duplicates: true })).body.warning).toBeUndefined();
  });

  it('leaves a COMPLETED campaign COMPLETED when a request with activate adds nobody: no one matching, a campaign import of invalid rows or without leads', async () => {
    const { list, ids } = await seedList('Nobody added', [{}]);
    const flow = { root: 4343, nodes: { 4343: { kind: 'STEP' as const, type: 'NETWORK_INVITE', parent: null, child: null } }, redirects: {} };
    const completed = await createCampaign(stack, alice, 'Completed, nobody added', { status: 'COMPLETED', flow });
    const statusOf = async () => (await stack.call<{ campaign: { status: string } }>('GET', `/public/campaigns/${completed.id}/`, { apiKey: alice.key })).body.campaign.status;

    const none = await addToCampaign(stack, alice, list.id, { campaign: completed.id, filters: { first_name: 'Nobody' }, activate: true });
    expect(none.body).toEqual({ success: true, count: 0, prospects: [], has_more: false, skipped: [] });
    expect(await statusOf()).toBe('COMPLETED');
    const importLeads = (body: Record<string, unknown>) => stack.call('POST', `/public/campaigns/${completed.id}/import/`, { apiKey: alice.key, body });
    const missing = await importLeads({ activate: true });
    expect(missing.status).toBe(400);
    expect(await statusOf()).toBe('COMPLETED');
    const invalid = await importLeads({ leads: [{ first_name: 'No', last_name: 'Url' }], activate: true });
    expect(invalid.body).toMatchObject({ success: true, count: 0, created: 0, updated: 0 });
    expect(invalid.body.warning).toBeUndefined();
    expect(await statusOf()).toBe('COMPLETED');
    expect(await prospectCount(stack, completed.id)).toBe(0);

    // Nor does a DRAFT campaign warn that prospects were added when none were.
    const draft = await createCampaign(stack, alice, 'Draft, nobody added', { flow });
    const nobody = await addToCampaign(stack, alice, list.id, { campaign: draft.id, prospect_ids: [99_999_999], activate: true });
    expect(nobody.body).toEqual({ success: true, count: 0, prospects: [], has_more: false, skipped: [{ id: 99_999_999, reason: 'not_in_list' }] });

    // Someone added: it runs again.
    expect((await addToCampaign(stack, alice, list.id, { campaign: completed.id, prospect_ids: [ids[0] as number], activate: true })).body).toMatchObject({ count: 1 });
    expect(await statusOf()).toBe('ACTIVE');
  });

  it('moves each prospect into exactly one campaign when two requests race, and both counts stay true', async () => {
    const { list, ids } = await seedList('Race', Array.from({ length: 30 }, () => ({})));
    for (const allowDuplicates of [false, true]) {
      const x = await createCampaign(stack, alice, `Race X ${allowDuplicates}`, { status: 'ACTIVE' });
      const y = await createCampaign(stack, alice, `Race Y ${allowDuplicates}`);
      const [toX, toY] = await Promise.all([
        addToCampaign(stack, alice, list.id, { campaign: x.id, prospect_ids: ids, prospects_per_company: 5, allow_duplicates: allowDuplicates, activate: true }),
        addToCampaign(stack, alice, list.id, { campaign: y.id, prospect_ids: [...ids].reverse(), prospects_per_company: 5, allow_duplicates: allowDuplicates }),
      ]);
      expect([toX.status, toY.status]).toEqual([200, 200]);
      const inX = (await campaignItems(stack, x.id)).map((item) => item.prospectId as number);
      const inY = (await campaignItems(stack, y.id)).map((item) => item.prospectId as number);
      expect([...inX, ...inY].sort()).toEqual([...ids].sort());
      expect(inX.filter((id) => inY.includes(id))).toEqual([]);
      expect((await prospectCount(stack, x.id)) + (await prospectCount(stack, y.id))).toBe(ids.length);
      await expectConsistent([x, y]);
      if (!allowDuplicates) {
        // Each request moved what it got first; the rest it reports as in the other campaign.
        expect(toX.body.count + toY.body.count).toBe(ids.length);
        expect([...toX.body.skipped, ...toY.body.skipped].every((skip) => skip.reason === 'in_other_campaign')).toBe(true);
      }
      // Ready for the next round: everyone out of X and Y.
      for (const campaign of [x, y]) {
        const removed = await stack.call<{ count: number }>('POST', `/public/campaigns/${campaign.id}/remove-prospects/`, { apiKey: alice.key, body: { prospect_ids: ids } });
        expect(removed.status).toBe(200);
      }
    }
  });

  it('takes the next matches in place of those a racing request moved first, and reports none of them', async () => {
    const { list, ids } = await seedList('Amount race', Array.from({ length: 60 }, () => ({})));
    const campaign = await createCampaign(stack, alice, 'Amount race');
    const body = { campaign: campaign.id, amount: 20, prospects_per_company: 100 };
    const [first, second] = await Promise.all([addToCampaign(stack, alice, list.id, body), addToCampaign(stack, alice, list.id, body)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    // Both took 20 (the same digest offered both the first 20; the later writer took the next
    // ones), none twice, and neither reports the prospects the other moved (they were matches, not named).
    expect([first.body.count, second.body.count]).toEqual([20, 20]);
    expect([first.body.skipped, second.body.skipped]).toEqual([[], []]);
    expect([first.body.has_more, second.body.has_more]).toEqual([false, false]);
    const movedIds = [...first.body.prospects, ...second.body.prospects].map((prospect) => prospect.id);
    expect(new Set(movedIds).size).toBe(40);
    expect(movedIds.every((id) => ids.includes(id))).toBe(true);
    expect(await prospectCount(stack, campaign.id)).toBe(40);
    await expectConsistent([campaign]);
  });

  it('never reaches another workspace’s campaigns or prospects', async () => {
    const { list, ids } = await seedList('Isolation', [{}]);
    const campaign = await createCampaign(stack, alice, 'Isolation');
    const response = await addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospect_ids: [bobsProspect, ids[0]] });
    expect(response.body).toMatchObject({ count: 1, skipped: [{ id: bobsProspect, reason: 'not_in_list' }] });
    expect(await storedProspect(stack, bobsProspect)).toMatchObject({ status: 'NEW' });
    expect((await storedProspect(stack, bobsProspect))?.campaignId).toBeUndefined();
    expect((await addToCampaign(stack, bob, bobsList.id, { campaign: campaign.id, prospect_ids: [bobsProspect] })).body).toEqual({ error: 'Campaign not found' });
    expect(await prospectCount(stack, bobsCampaign.id)).toBe(0);
  });

  it('shows campaign_id null in views stored before prospects had campaigns', async () => {
    const { list, ids } = await seedList('Old views', [{ first_name: 'Olga' }]);
    const key = listMemberKey(list.id, ids[0] as number);
    const stored = (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }))).Item as Record<string, unknown>;
    const { campaign_id: _none, ...oldView } = JSON.parse(stored.view as string) as Record<string, unknown>;
    await stack.db.send(new PutCommand({ TableName: stack.tableName, Item: { ...stored, view: JSON.stringify(oldView) } }));
    for (const query of ['', 'first_name=olga']) {
      const [shown] = (await leadsOf(stack, alice, list.id, query)).prospects ?? [];
      expect(shown).toMatchObject({ id: ids[0], first_name: 'Olga', campaign_id: null });
    }
  });

  it('an archived prospect (delete-leads) leaves its campaign in the same write', async () => {
    const { list, ids } = await seedList('Archive', [{}, {}]);
    const campaign = await createCampaign(stack, alice, 'Archive', { status: 'ACTIVE' });
    await addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospect_ids: ids, activate: true });
    expect(await prospectCount(stack, campaign.id)).toBe(2);
    const deleted = await stack.call<{ archived: number }>('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: alice.key, body: { prospect_ids: [ids[0]] } });
    expect(deleted.body.archived).toBe(1);
    expect(await prospectCount(stack, campaign.id)).toBe(1);
    expect((await campaignItems(stack, campaign.id)).map((item) => item.prospectId)).toEqual([ids[1]]);
    const stored = await storedProspect(stack, ids[0] as number);
    expect(stored?.status).toBe('ARCHIVED');
    expect(stored?.campaignId).toBeUndefined();
    // A campaign that is archived keeps its prospects until they are archived or moved.
    await setStatus(stack, campaign, 'ARCHIVED');
    await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: alice.key, body: { prospect_ids: [ids[1]] } });
    expect(await prospectCount(stack, campaign.id)).toBe(0);
  });
});
