import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aTimestamp, anId } from '../../support/formats';
import { type TestStack, setCreatedAt } from '../../support/test-stack';
import { leadListKey } from '../../../shared/db/keys';
import { type LeadListView, type Workspace, createList, getList, importLeads, leadsStack, person } from './helpers';

const LIST_FIELDS = ['created_at', 'description', 'id', 'name', 'search_type', 'status', 'total_prospects', 'updated_at'];

describe('lead lists: create and list', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  it('creates a PEOPLE list by default: DRAFT, empty description, no prospects, exactly the spec fields', async () => {
    const response = await stack.call<{ success: boolean; lead_list: LeadListView }>('POST', '/public/lead-lists/', {
      apiKey: alice.key,
      body: { name: '  Founders NL  ' },
    });
    expect(response.status).toBe(201);
    expect(response.body.success).toBe(true);
    const list = response.body.lead_list;
    expect(Object.keys(list).sort()).toEqual(LIST_FIELDS);
    expect(list).toEqual({
      id: anId(),
      name: 'Founders NL',
      description: '',
      total_prospects: 0,
      status: 'DRAFT',
      search_type: 'PEOPLE',
      created_at: aTimestamp(),
      updated_at: list.created_at,
    });
    expect(Number.isSafeInteger(list.id)).toBe(true);
    expect(list.created_at).toBe(list.updated_at);
  });

  it('takes a null search_type as the default, PEOPLE, as it takes one left out', async () => {
    const response = await stack.call<{ lead_list: { search_type: string } }>('POST', '/public/lead-lists/', { apiKey: alice.key, body: { name: 'Null type', search_type: null } });
    expect([response.status, response.body.lead_list?.search_type]).toEqual([201, 'PEOPLE']);
  });

  it('takes an empty or null description, as clients that send every field of the resource give it', async () => {
    for (const description of ['', '  ', null]) {
      const response = await stack.call<{ lead_list: { name: string; description: string } }>('POST', '/public/lead-lists/', { apiKey: alice.key, body: { name: 'Described', description } });
      expect([response.status, response.body.lead_list?.description]).toEqual([201, '']);
    }
  });

  it('keeps no control characters in a name (tabs and line breaks become spaces)', async () => {
    const response = await stack.call<{ lead_list: { name: string } }>('POST', '/public/lead-lists/', { apiKey: alice.key, body: { name: ' a\u0000b\u0007\tc\r\nd ' } });
    expect([response.status, response.body.lead_list?.name]).toEqual([201, 'ab c d']);
  });

  it('creates a COMPANY list when asked', async () => {
    const list = await createList(stack, alice, 'Target accounts', 'COMPANY');
    expect(list).toEqual({
      id: anId(),
      name: 'Target accounts',
      description: '',
      total_prospects: 0,
      status: 'DRAFT',
      search_type: 'COMPANY',
      created_at: aTimestamp(),
      updated_at: list.created_at,
    });
  });

  it.each([
    [{}, 'name is required'],
    [{ name: '' }, 'name is required'],
    [{ name: '   ' }, 'name is required'],
    [{ name: null }, 'name is required'],
    [{ name: '\u0000\u0007 ' }, 'name is required'],
    [{ name: 'x', search_type: 'people' }, "search_type must be either 'PEOPLE' or 'COMPANY'"],
    [{ name: 'x', search_type: 'ACCOUNTS' }, "search_type must be either 'PEOPLE' or 'COMPANY'"],
    [{ name: 'x', search_type: 7 }, "search_type must be either 'PEOPLE' or 'COMPANY'"],
    [{ name: 42 }, 'name must be a string'],
    [{ name: 'n'.repeat(201) }, 'name must be at most 200 characters'],
    // A misspelt field made a PEOPLE list.
    [{ name: 'typo', searchType: 'COMPANY' }, 'searchType is not a field of a lead list (fields: name, search_type, description)'],
    [{ nmae: 'typo' }, 'nmae is not a field of a lead list (fields: name, search_type, description)'],
    // A description would be lost: every listing shows an empty one.
    [{ name: 'x', description: 'Q4 targets' }, 'description must be empty: a lead list has no description (it is an empty string in every listing)'],
    [{ name: 'x', description: 5 }, 'description must be a string'],
  ])('refuses %j with 400 "%s" and creates nothing', async (body, error) => {
    const before = (await stack.call<{ searches: unknown[] }>('GET', '/public/lead-lists/', { apiKey: bob.key })).body.searches.length;
    const response = await stack.call('POST', '/public/lead-lists/', { apiKey: bob.key, body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error });
    const after = (await stack.call<{ searches: unknown[] }>('GET', '/public/lead-lists/', { apiKey: bob.key })).body.searches.length;
    expect(after).toBe(before);
  });

  it('refuses a body that is not JSON', async () => {
    const response = await stack.call('POST', '/public/lead-lists/', { apiKey: alice.key, rawBody: '{name:', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Request body must be valid JSON' });
  });

  it('needs an API key', async () => {
    const response = await stack.call('GET', '/public/lead-lists/');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'Missing API key', message: 'Provide X-API-Key header' });
  });

  it('lists the workspace’s lists newest first with the spec fields', async () => {
    const first = await createList(stack, alice, 'Order A');
    const second = await createList(stack, alice, 'Order B');
    const response = await stack.call<{ success: boolean; searches: LeadListView[] }>('GET', '/public/lead-lists/', { apiKey: alice.key });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    const ids = response.body.searches.map((list) => list.id);
    // The two newest lists, as they were created.
    expect(response.body.searches.slice(0, 2)).toEqual([second, first]);
    expect(ids.indexOf(second.id)).toBe(ids.indexOf(first.id) - 1);
    for (const list of response.body.searches) expect(Object.keys(list).sort()).toEqual(LIST_FIELDS);
  });

  it('orders lists by when they were created, not by id (a list made later may have a lower id)', async () => {
    const madeLater = await createList(stack, alice, 'Order: made later, lower id');
    const madeFirst = await createList(stack, alice, 'Order: made first, higher id');
    await setCreatedAt(stack, leadListKey(alice.workspaceId, madeLater.id), new Date(Date.parse(madeFirst.created_at) + 1).toISOString());
    const response = await stack.call<{ searches: LeadListView[] }>('GET', '/public/lead-lists/', { apiKey: alice.key });
    expect(response.body.searches.slice(0, 2).map((list) => list.name)).toEqual(['Order: made later, lower id', 'Order: made first, higher id']);
  });

  it('filters by name with q or search, case-insensitively, and an unmatched query gives an empty list', async () => {
    await createList(stack, alice, 'SaaS CTOs Europe');
    await createList(stack, alice, 'Agencies Benelux');
    const byQ = await stack.call<{ searches: LeadListView[] }>('GET', '/public/lead-lists/?q=saas%20cto', { apiKey: alice.key });
    expect(byQ.body.searches.map((l) => l.name)).toEqual(['SaaS CTOs Europe']);
    const bySearch = await stack.call<{ searches: LeadListView[] }>('GET', '/public/lead-lists/?search=BENELUX', { apiKey: alice.key });
    expect(bySearch.body.searches.map((l) => l.name)).toEqual(['Agencies Benelux']);
    // An empty q beside it (a form that sends both) does not hide it.
    const withEmptyQ = await stack.call<{ searches: LeadListView[] }>('GET', '/public/lead-lists/?q=&search=BENELUX', { apiKey: alice.key });
    expect(withEmptyQ.body.searches.map((l) => l.name)).toEqual(['Agencies Benelux']);
    const none = await stack.call<{ searches: LeadListView[] }>('GET', '/public/lead-lists/?q=nothing-like-this', { apiKey: alice.key });
    expect(none.status).toBe(200);
    expect(none.body.searches).toEqual([]);
  });

  it('never shows another workspace’s lists', async () => {
    const secret = await createList(stack, bob, 'Bob only');
    const listed = await stack.call<{ searches: LeadListView[] }>('GET', '/public/lead-lists/', { apiKey: alice.key });
    expect(listed.body.searches.map((l) => l.id)).not.toContain(secret.id);
    const searched = await stack.call<{ searches: LeadListView[] }>('GET', '/public/lead-lists/?q=bob', { apiKey: alice.key });
    expect(searched.body.searches).toEqual([]);
  });

  it('becomes ACTIVE with its first lead and counts its leads truly', async () => {
    const list = await createList(stack, alice, 'Activation');
    await importLeads(stack, alice, list.id, { leads: [person(1), person(2), person(3)] });
    const listed = await getList(stack, alice, list.id);
    // updated_at moves with the count.
    expect(listed).toEqual({ ...list, status: 'ACTIVE', total_prospects: 3, updated_at: aTimestamp() });
  });
});
