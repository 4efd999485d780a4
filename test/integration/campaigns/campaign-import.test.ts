import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import { ManualClock } from '../../../shared/time/clock';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, createList, expectedCompanySummary, expectedProspect, importLeads, leadsOf, leadsStack, person } from '../leads/helpers';
import { addToCampaign, campaignItems, createCampaign, prospectCount, storedProspect } from './helpers';

const NOW = '2026-12-02T08:00:00.000Z';

interface CampaignImportResponse {
  success: boolean;
  count: number;
  created: number;
  updated: number;
  skipped: { index: number; reason: string }[];
  warning?: string;
}

describe('campaign import', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;
  let bobsCampaign: Campaign;

  const importInto = (ws: Workspace, campaignId: number, body: unknown) =>
    stack.call<CampaignImportResponse>('POST', `/public/campaigns/${campaignId}/import/`, { apiKey: ws.key, body });
  const search = async (ws: Workspace) =>
    (
      await stack.call<{ results: { id: number; network_profile_url: string; status: string; campaign_id: number | null }[] }>('POST', '/public/prospects/search/', {
        apiKey: ws.key,
        body: { source: 'WORKSPACE', page_size: 100 },
      })
    ).body.results;

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack({ clock: new ManualClock(NOW) }));
    bobsCampaign = await createCampaign(stack, bob, 'Bob campaign');
  });
  afterAll(async () => stack?.stop());

  it('creates prospects into the campaign (no list), normalised like a list import, with custom fields and either company form', async () => {
    const campaign = await createCampaign(stack, alice, 'Import', { status: 'ACTIVE' });
    const response = await importInto(alice, campaign.id, {
      activate: true,
      leads: [
        {
          first_name: ' Alex ',
          last_name: 'Doe',
          network_profile_url: 'http://uk.linkedin.com/in/Alex-Doe/?trk=x',
          email: ' Alex@Acme.Example ',
          job_title: 'Head of Sales',
          custom_fields: { plan: 'pro', seats: 12, trial: false },
          company: { name: 'Acme', website_url: 'https://acme-import.example', industry: 'Software', location: 'Berlin' },
        },
        { first_name: 'Sam', last_name: 'Roe', network_profile_url: 'linkedin.com/in/sam-roe', company_name: 'Beta', company_website_url: 'beta-import.example' },
      ],
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ success: true, count: 2, created: 2, updated: 0, skipped: [] });
    expect(await prospectCount(stack, campaign.id)).toBe(2);
    const items = await campaignItems(stack, campaign.id);
    expect(items.map((item) => [item.schedule, item.nextActionAt])).toEqual([
      ['SCHEDULED', NOW],
      ['SCHEDULED', NOW],
    ]);
    const found = (await search(alice)).filter((p) => p.campaign_id === campaign.id);
    expect(found).toHaveLength(2);
    const alex = found.find((p) => p.network_profile_url === 'https://www.linkedin.com/in/alex-doe');
    expect(alex).toEqual(
      expectedProspect({
        first_name: 'Alex',
        last_name: 'Doe',
        email: 'alex@acme.example',
        network_profile_url: 'https://www.linkedin.com/in/alex-doe',
        job_title: 'Head of Sales',
        custom_fields: { plan: 'pro', seats: 12, trial: false },
        status: 'IN_REVIEW',
        campaign_id: campaign.id,
        company: expectedCompanySummary({ name: 'Acme', website_url: 'https://acme-import.example', industry: 'Software', location: 'Berlin' }),
        created_at: NOW,
        updated_at: NOW,
      }),
    );
    // In no list: workspace prospects in the campaign only.
    expect((await storedProspect(stack, alex?.id as number))?.listIds).toBeUndefined();
  });

  it('matches existing prospects (by profile URL or email) and moves them, out of their previous campaign, never duplicating', async () => {
    const list = await createList(stack, alice, 'Existing');
    const imported = await importLeads(stack, alice, list.id, {
      leads: [person(1, { email: 'one@example.com' }), person(2), person(3)],
    });
    const [one, two, three] = imported.leads.map((lead) => lead.id) as [number, number, number];
    const previous = await createCampaign(stack, alice, 'Previous');
    await addToCampaign(stack, alice, list.id, { campaign: previous.id, prospect_ids: [one, two] });
    expect(await prospectCount(stack, previous.id)).toBe(2);

    const campaign = await createCampaign(stack, alice, 'Matching');
    const before = (await search(alice)).length;
    const response = await importInto(alice, campaign.id, {
      leads: [
        // Matched by email: the row's profile URL is new, and replaces the stored one.
        { first_name: 'One', last_name: 'Renamed', network_profile_url: 'https://www.linkedin.com/in/one-moved', email: 'ONE@example.com', job_title: 'CEO' },
        { first_name: 'Two', last_name: 'Again', network_profile_url: 'https://linkedin.com/in/PERSON-2' },
        { first_name: 'New', last_name: 'Person', network_profile_url: 'https://www.linkedin.com/in/brand-new' },
        { first_name: 'Dup', last_name: 'Row', network_profile_url: 'https://www.linkedin.com/in/person-2' },
      ],
    });
    expect(response.body).toEqual({
      success: true,
      count: 3,
      created: 1,
      updated: 2,
      skipped: [{ index: 4, reason: 'duplicate of row 2 (same network_profile_url or email)' }],
    });
    expect((await search(alice)).length).toBe(before + 1);
    expect(await prospectCount(stack, previous.id)).toBe(0);
    expect(await campaignItems(stack, previous.id)).toEqual([]);
    expect(await prospectCount(stack, campaign.id)).toBe(3);
    // The list shows the move and the update; prospect three stays where it was.
    const page = await leadsOf(stack, alice, list.id);
    expect(page.prospects?.map((p) => [p.id, p.last_name, p.job_title, p.network_profile_url, p.status, p.campaign_id])).toEqual([
      [one, 'Renamed', 'CEO', 'https://www.linkedin.com/in/one-moved', 'IN_REVIEW', campaign.id],
      [two, 'Again', '', 'https://www.linkedin.com/in/person-2', 'IN_REVIEW', campaign.id],
      [three, 'Last3', '', 'https://www.linkedin.com/in/person-3', 'NEW', null],
    ]);

    // Importing the same rows again changes nothing and counts them as updated.
    const again = await importInto(alice, campaign.id, { leads: [{ first_name: 'One', last_name: 'Renamed', network_profile_url: 'https://www.linkedin.com/in/one-moved' }] });
    expect(again.body).toEqual({ success: true, count: 1, created: 0, updated: 1, skipped: [] });
    expect(await prospectCount(stack, campaign.id)).toBe(3);
  });

  it('skips invalid rows with their reason (the profile URL is required) and imports the rest', async () => {
    const campaign = await createCampaign(stack, alice, 'Skips');
    const response = await importInto(alice, campaign.id, {
      leads: [
        { last_name: 'No first' },
        { first_name: 'Only', last_name: 'Email', email: 'only@example.com' },
        { first_name: 'Neither', last_name: 'Here' },
        'not an object',
        { first_name: 'Bad', last_name: 'Url', network_profile_url: 'not a url' },
        { first_name: 'Bad', last_name: 'Fields', network_profile_url: 'https://www.linkedin.com/in/bad-fields', custom_fields: { constructor: 'x' } },
        // Custom fields as the list import keeps them: objects, arrays and null too.
        { first_name: 'Nested', last_name: 'Fields', network_profile_url: 'https://www.linkedin.com/in/nested-fields', custom_fields: { plan: 'pro', a: { b: 1 } } },
        { first_name: 'Null', last_name: 'Field', network_profile_url: 'https://www.linkedin.com/in/null-field', custom_fields: { a: null } },
        { first_name: 'Good', last_name: 'Row', network_profile_url: 'https://www.linkedin.com/in/good-row' },
      ],
    });
    expect(response.body).toEqual({
      success: true,
      count: 3,
      created: 3,
      updated: 0,
      skipped: [
        { index: 1, reason: 'first_name is required' },
        { index: 2, reason: 'network_profile_url is required' },
        { index: 3, reason: 'network_profile_url is required' },
        { index: 4, reason: 'lead must be an object' },
        { index: 5, reason: 'network_profile_url is not a valid URL' },
        { index: 6, reason: "custom_fields key 'constructor' is reserved" },
      ],
    });
  });

  it('places imported prospects by the campaign’s status like add-to-campaign, with the same warning for DRAFT', async () => {
    const row = (n: number) => ({ first_name: 'Placed', last_name: `${n}`, network_profile_url: `https://www.linkedin.com/in/placed-${n}` });
    const paused = await createCampaign(stack, alice, 'Paused import', { status: 'PAUSED' });
    const draft = await createCampaign(stack, alice, 'Draft import');
    const active = await createCampaign(stack, alice, 'Active import', { status: 'ACTIVE' });
    expect((await importInto(alice, paused.id, { leads: [row(1)], activate: true })).body.warning).toBeUndefined();
    expect((await campaignItems(stack, paused.id))[0]?.schedule).toBe('QUEUED');
    expect((await importInto(alice, draft.id, { leads: [row(2)], activate: true })).body).toEqual({
      success: true,
      count: 1,
      created: 1,
      updated: 0,
      skipped: [],
      warning: 'Campaign is in DRAFT: prospects were added but not scheduled; activate the campaign to start outreach',
    });
    expect((await campaignItems(stack, draft.id))[0]?.schedule).toBe('WAITING');
    await importInto(alice, active.id, { leads: [row(3)] });
    expect((await campaignItems(stack, active.id))[0]).toMatchObject({ schedule: 'WAITING', nextActionAt: null });
  });

  it('answers 404 for unknown and other workspaces’ campaigns, 409 for archived ones, 400/413 for bad bodies', async () => {
    const archived = await createCampaign(stack, alice, 'Archived import', { status: 'ARCHIVED' });
    const campaign = await createCampaign(stack, alice, 'Bodies');
    const lead = { first_name: 'A', last_name: 'B', network_profile_url: 'https://www.linkedin.com/in/a-b' };
    const cases: [number, unknown, number, string][] = [
      [987654321, { leads: [lead] }, 404, 'Campaign not found'],
      [bobsCampaign.id, { leads: [lead] }, 404, 'Campaign not found'],
      [archived.id, { leads: [lead] }, 409, 'Campaign is archived'],
      [campaign.id, {}, 400, 'leads is required'],
      [campaign.id, { leads: null }, 400, 'leads is required'],
      [campaign.id, { leads: 'x' }, 400, 'leads must be an array of lead objects'],
      [campaign.id, { leads: [lead], activate: 'yes' }, 400, 'activate must be true or false'],
      [campaign.id, { leads: [lead], activated: true }, 400, 'activated is not a field of a campaign import (fields: leads, activate)'],
      [campaign.id, { leads: Array.from({ length: 1001 }, () => lead) }, 413, 'Too many leads: 1001 rows; at most 1000 rows per import request'],
    ];
    for (const [campaignId, body, status, error] of cases) {
      const response = await importInto(alice, campaignId, body);
      expect({ status: response.status, body: response.body }).toEqual({ status, body: { error } });
    }
    expect(await prospectCount(stack, bobsCampaign.id)).toBe(0);
    expect(await prospectCount(stack, campaign.id)).toBe(0);
    // Bob's import of the same person makes Bob's own prospect: workspaces never share prospects.
    const bobs = await importInto(bob, bobsCampaign.id, { leads: [lead] });
    expect(bobs.body).toMatchObject({ created: 1 });
  });
});
