import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { anId } from '../../support/formats';
import { type SignedUpUser, type TestStack, createKey, setCreatedAt, signUp, startTestStack } from '../../support/test-stack';
import { campaignKey } from '../../../shared/db/keys';

interface CampaignView {
  id: number;
  name: string;
  status: string;
  [key: string]: unknown;
}

describe('campaigns: create, list, read, settings', () => {
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');
  const NOW = '2026-11-23T10:00:00.000Z';
  let stack: TestStack;
  let alice: SignedUpUser;
  let aliceKey: string;
  let bobKey: string;

  const create = (apiKey: string, body: unknown) => stack.call<{ success: boolean; campaign: CampaignView }>('POST', '/public/campaigns/', { apiKey, body });
  const patch = (apiKey: string, id: number, body: unknown) =>
    stack.call<{ success: boolean; campaign: CampaignView; error?: string }>('PATCH', `/public/campaigns/${id}/`, { apiKey, body });

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, clock });
    alice = await signUp(stack);
    aliceKey = (await createKey(stack, alice)).key;
    bobKey = (await createKey(stack, await signUp(stack))).key;
  });
  afterAll(async () => stack?.stop());

  it('creates a DRAFT campaign with the documented defaults', async () => {
    const created = await create(aliceKey, { name: '  Q4 founders  ' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      campaign: {
        id: anId(),
        name: 'Q4 founders',
        status: 'DRAFT',
        workspace_id: alice.workspaceId,
        timezone: 'Europe/Amsterdam',
        language: 'en',
        email_max_messages: 40,
        network_max_messages: 100,
        network_max_connections: 50,
        sending_window: {},
        account_ids: [],
        stop_on_company_reply: false,
        prospect_count: 0,
        created_at: NOW,
        updated_at: NOW,
      },
    });
  });

  it('keeps no control characters in a name, created or renamed', async () => {
    const created = await create(aliceKey, { name: 'Ctl\u0000\u0007Name' });
    expect([created.status, created.body.campaign?.name]).toEqual([201, 'CtlName']);
    const renamed = await stack.call<{ campaign: CampaignView }>('PATCH', `/public/campaigns/${created.body.campaign?.id}/`, { apiKey: aliceKey, body: { name: 'Line\nbreak\u0000' } });
    expect([renamed.status, renamed.body.campaign?.name]).toEqual([200, 'Line break']);
  });

  it('numbers a name already used in the workspace, and not one used in another workspace', async () => {
    const names = [];
    for (let i = 0; i < 3; i += 1) names.push((await create(aliceKey, { name: 'Dup' })).body.campaign.name);
    expect(names).toEqual(['Dup', 'Dup (2)', 'Dup (3)']);
    expect((await create(bobKey, { name: 'Dup' })).body.campaign.name).toBe('Dup');
  });

  it('shortens a name of the maximum length to number it, into a name PATCH accepts back', async () => {
    const longest = 'L'.repeat(200);
    expect((await create(aliceKey, { name: longest })).body.campaign.name).toBe(longest);
    const second = (await create(aliceKey, { name: longest })).body.campaign;
    expect(second.name).toBe(`${'L'.repeat(196)} (2)`);
    const sentBack = await patch(aliceKey, second.id, { name: second.name });
    expect(sentBack.status).toBe(200);
    expect(sentBack.body.campaign.name).toBe(`${'L'.repeat(196)} (2)`);
  });

  it('gives concurrent creates of one name distinct names', async () => {
    // Twelve at once: each round of claims one of them wins the name it read as free.
    const results = await Promise.all(Array.from({ length: 12 }, () => create(aliceKey, { name: 'Race' })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(results.map((r) => r.body.campaign.name).sort()).toEqual(['Race', ...Array.from({ length: 11 }, (_, i) => `Race (${i + 2})`)].sort());
  });

  it('refuses a missing, empty or non-string name', async () => {
    for (const [body, error] of [
      [{}, 'name is required'],
      [{ name: '   ' }, 'name is required'],
      [{ name: null }, 'name is required'],
      [{ name: '\u0000\u001b' }, 'name is required'],
      [{ name: 5 }, 'name must be a string'],
      [{ name: 'x'.repeat(201) }, 'name must be at most 200 characters'],
    ] as const) {
      const response = await create(aliceKey, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toEqual({ error });
    }
  });

  it("lists the workspace's campaigns newest first, and only its own", async () => {
    const first = (await create(bobKey, { name: 'Bob one' })).body.campaign;
    const second = (await create(bobKey, { name: 'Bob two' })).body.campaign;
    const listed = await stack.call<{ success: boolean; campaigns: CampaignView[] }>('GET', '/public/campaigns/', { apiKey: bobKey });
    expect(listed.status).toBe(200);
    expect(listed.body.success).toBe(true);
    expect(listed.body.campaigns.map((c) => c.name)).toEqual(['Bob two', 'Bob one', 'Dup']);
    expect(listed.body.campaigns[0]).toEqual(second);
    expect(listed.body.campaigns[1]).toEqual(first);
  });

  it('orders campaigns by when they were created, not by id (a campaign made later may have a lower id)', async () => {
    const madeLater = (await create(aliceKey, { name: 'Made later, lower id' })).body.campaign;
    const madeFirst = (await create(aliceKey, { name: 'Made first, higher id' })).body.campaign;
    await setCreatedAt(stack, campaignKey(madeLater.id), new Date(Date.parse(String(madeFirst.created_at)) + 1).toISOString());
    const listed = await stack.call<{ campaigns: CampaignView[] }>('GET', '/public/campaigns/', { apiKey: aliceKey });
    expect(listed.body.campaigns.slice(0, 2).map((c) => c.id)).toEqual([madeLater.id, madeFirst.id]);
  });

  it('reads a campaign detail with an empty flow, and 404s unknown or foreign ids', async () => {
    const campaign = (await create(aliceKey, { name: 'Detail' })).body.campaign;
    const detail = await stack.call('GET', `/public/campaigns/${campaign.id}/`, { apiKey: aliceKey });
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({
      success: true,
      campaign: { ...campaign, accounts: [], steps: [], conditions: [], first_step: null, first_condition: null },
    });
    for (const path of [`/public/campaigns/${campaign.id}/`, '/public/campaigns/999999999/', '/public/campaigns/abc/']) {
      const response = await stack.call('GET', path, { apiKey: path.includes(String(campaign.id)) ? bobKey : aliceKey });
      expect(response.status, path).toBe(404);
      expect(response.body).toEqual({ error: 'Campaign not found' });
    }
  });

  it('changes settings, keeping the rest', async () => {
    const campaign = (await create(aliceKey, { name: 'Settings' })).body.campaign;
    clock.advance(60_000);
    const window = {
      monday: { enabled: true, start: '08:00', end: '18:00' },
      saturday: { enabled: false, start: '09:00', end: '17:00' },
    };
    const changed = await patch(aliceKey, campaign.id, {
      name: 'Settings renamed',
      timezone: 'america/new_york',
      // Stored as BCP 47 writes it.
      language: 'pt-br',
      email_max_messages: 0,
      network_max_messages: 150,
      network_max_connections: 100,
      sending_window: window,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({
      success: true,
      campaign: {
        ...campaign,
        name: 'Settings renamed',
        timezone: 'America/New_York',
        language: 'pt-BR',
        email_max_messages: 0,
        network_max_messages: 150,
        network_max_connections: 100,
        sending_window: window,
        updated_at: '2026-11-23T10:01:00.000Z',
      },
    });
    const detail = await stack.call<{ campaign: Record<string, unknown> }>('GET', `/public/campaigns/${campaign.id}/`, { apiKey: aliceKey });
    expect(detail.body.campaign).toMatchObject(changed.body.campaign);
    // The old name is free again; the new one is taken.
    expect((await create(aliceKey, { name: 'Settings' })).body.campaign.name).toBe('Settings');
    expect((await create(aliceKey, { name: 'Settings renamed' })).body.campaign.name).toBe('Settings renamed (2)');
    // Renaming to a used name numbers it like a create.
    expect((await patch(aliceKey, campaign.id, { name: 'Dup' })).body.campaign.name).toBe('Dup (4)');
    // An empty PATCH changes nothing.
    const unchanged = await patch(aliceKey, campaign.id, {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.campaign.name).toBe('Dup (4)');
  });

  it('refuses unknown fields and bad values with a 400 naming the field, changing nothing', async () => {
    const campaign = (await create(aliceKey, { name: 'Validation' })).body.campaign;
    const settings = '(settings: name, timezone, language, email_max_messages, network_max_messages, network_max_connections, sending_window, stop_on_company_reply, account_ids)';
    const cases: [unknown, string][] = [
      [{ colour: 'red' }, `colour is not a campaign setting ${settings}`],
      // Names an object's prototype carries are fields like any other (a JSON body can hold them).
      [{ constructor: 1 }, `constructor is not a campaign setting ${settings}`],
      [JSON.parse('{"__proto__":{"name":"x"}}'), `__proto__ is not a campaign setting ${settings}`],
      [{ status: 'ACTIVE' }, 'status cannot be set by PATCH: use the activate, pause, resume and archive endpoints'],
      [{ name: '' }, 'name is required'],
      [{ timezone: 'Mars/Olympus' }, 'timezone must be an IANA time zone name such as Europe/Amsterdam, got "Mars/Olympus"'],
      [{ timezone: 7 }, 'timezone must be an IANA time zone name such as Europe/Amsterdam'],
      [{ language: 'english' }, 'language must be a language code such as en, nl or pt-BR, got "english"'],
      [{ language: 'en_US' }, 'language must be a language code such as en, nl or pt-BR, got "en_US"'],
      [{ timezone: '  ' }, 'timezone must be an IANA time zone name such as Europe/Amsterdam, got ""'],
      [{ language: 'zz' }, 'language must be a language code such as en, nl or pt-BR, got "zz"'],
      [{ language: 'en-ZZ' }, 'language must be a language code such as en, nl or pt-BR, got "en-ZZ"'],
      [{ email_max_messages: -1 }, 'email_max_messages must be an integer from 0 to 2000'],
      [{ email_max_messages: 2001 }, 'email_max_messages must be an integer from 0 to 2000'],
      [{ network_max_messages: 1.5 }, 'network_max_messages must be an integer from 0 to 150'],
      [{ network_max_connections: '50' }, 'network_max_connections must be an integer from 0 to 100'],
      [{ sending_window: [] }, 'sending_window must be an object keyed by weekday names, monday to sunday'],
      [{ sending_window: { funday: { enabled: true, start: '09:00', end: '17:00' } } }, 'sending_window must be an object keyed by weekday names, monday to sunday'],
      [{ sending_window: { monday: { enabled: true, start: '9:00', end: '17:00' } } }, 'sending_window.monday.start must be a time HH:MM (00:00 to 23:59)'],
      [{ sending_window: { monday: { enabled: true, start: '09:00', end: '24:00' } } }, 'sending_window.monday.end must be a time HH:MM (00:00 to 23:59)'],
      [{ sending_window: { tuesday: { enabled: true, start: '17:00', end: '09:00' } } }, 'sending_window.tuesday: start must be before end'],
      [{ sending_window: { tuesday: { enabled: 'yes', start: '09:00', end: '17:00' } } }, 'sending_window.tuesday.enabled must be a boolean'],
      [{ sending_window: { friday: { enabled: true, start: '09:00', end: '17:00', lunch: true } } }, 'sending_window.friday must be an object with exactly enabled, start and end'],
      [{ account_ids: 'all' }, 'account_ids must be an array of sender account ids'],
      [{ account_ids: [0] }, 'account_ids must be an array of sender account ids'],
      [{ account_ids: [123456789] }, 'account_ids: account 123456789 not found in this workspace'],
    ];
    for (const [body, error] of cases) {
      const response = await patch(aliceKey, campaign.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body, JSON.stringify(body)).toEqual({ error });
    }
    const detail = await stack.call<{ campaign: Record<string, unknown> }>('GET', `/public/campaigns/${campaign.id}/`, { apiKey: aliceKey });
    expect(detail.body.campaign).toMatchObject(campaign);
    const foreign = await patch(bobKey, campaign.id, { name: 'Mine now' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: 'Campaign not found' });
  });
});

describe('the app host campaign list (workspace_id)', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000 });
  });
  afterAll(async () => stack?.stop());

  it('lists the current, one linked, or every linked workspace, and refuses one not linked', async () => {
    const alice = await signUp(stack);
    const carol = await signUp(stack);
    const dave = await signUp(stack);
    const aliceKey = (await createKey(stack, alice)).key;
    const carolKey = (await createKey(stack, carol)).key;
    const daveKey = (await createKey(stack, dave)).key;
    const make = async (apiKey: string, name: string) =>
      (await stack.call<{ campaign: CampaignView & { workspace_id: number; created_at: string; updated_at: string } }>('POST', '/public/campaigns/', { apiKey, body: { name } })).body.campaign;
    const a1 = await make(aliceKey, 'Alice one');
    const a2 = await make(aliceKey, 'Alice two');
    const c1 = await make(carolKey, 'Carol one');
    await make(daveKey, 'Dave one');
    const linked = await stack.call('POST', `/workspaces/${carol.workspaceId}/members/`, { apiKey: carolKey, body: { email: alice.email } });
    expect(linked.status, linked.text).toBe(201);

    const item = (c: typeof a1) => ({
      id: c.id,
      name: c.name,
      status: 'DRAFT',
      workspace_id: c.workspace_id,
      timezone: 'Europe/Amsterdam',
      language: 'en',
      created_at: c.created_at,
      updated_at: c.updated_at,
      prospect_count: 0,
    });
    const list = (query: string, auth: { apiKey?: string; token?: string }) => stack.call(`GET`, `/campaigns/${query}`, auth);

    expect((await list('', { apiKey: aliceKey })).body).toEqual({ campaigns: [item(a2), item(a1)] });
    expect((await list('', { token: alice.token })).body).toEqual({ campaigns: [item(a2), item(a1)] });
    expect((await list(`?workspace_id=${carol.workspaceId}`, { apiKey: aliceKey })).body).toEqual({ campaigns: [item(c1)] });
    const all = await list('?workspace_id=ALL', { token: alice.token });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ campaigns: [item(a2), item(a1), item(c1)] });
    for (const query of [`?workspace_id=${dave.workspaceId}`, '?workspace_id=999999999']) {
      const refused = await list(query, { apiKey: aliceKey });
      expect(refused.status, query).toBe(403);
      expect(refused.body).toEqual({ error: 'Access denied' });
    }
    // Text, and a number past 2^53 - 1 (which Number() would round to another: no id).
    for (const query of ['?workspace_id=mine', '?workspace_id=9007199254740993', '?workspace_id=99999999999999999999']) {
      const bad = await list(query, { apiKey: aliceKey });
      expect([bad.status, bad.body], query).toEqual([400, { error: 'workspace_id must be a workspace id or ALL' }]);
    }
    // Carol's ALL is only her own workspace.
    expect((await list('?workspace_id=all', { apiKey: carolKey })).body).toEqual({ campaigns: [item(c1)] });
  });
});
