import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prospectKey } from '../../../shared/db/keys';
import type { TestStack } from '../../support/test-stack';
import { type LeadListView, type Workspace, createList, getList, importLeads, leadsOf, leadsStack, person } from './helpers';

interface MembershipResponse {
  success: boolean;
  search_type: string;
  added?: number;
  added_ids?: number[];
  archived?: number;
  archived_ids?: number[];
  removed?: number;
  removed_ids?: number[];
  skipped: { id: number; reason: string }[];
  total_prospects: number;
}

describe('add-leads and delete-leads', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;
  /** Alice's prospects (in a source list) and companies (in a source COMPANY list). */
  let prospects: number[];
  let companies: number[];
  let bobsProspect: number;
  let bobsList: LeadListView;

  const add = (ws: Workspace, listId: number, body: unknown) =>
    stack.call<MembershipResponse>('POST', `/public/lead-lists/${listId}/add-leads/`, { apiKey: ws.key, body });
  const remove = (ws: Workspace, listId: number, body: unknown) =>
    stack.call<MembershipResponse>('DELETE', `/public/lead-lists/${listId}/delete-leads/`, { apiKey: ws.key, body });
  const prospectItem = async (id: number) =>
    (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: prospectKey(id), ConsistentRead: true }))).Item;

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack());
    const source = await createList(stack, alice, 'Source');
    prospects = (await importLeads(stack, alice, source.id, { leads: Array.from({ length: 8 }, (_, i) => person(i)) })).leads.map((l) => l.id);
    const companySource = await createList(stack, alice, 'Company source', 'COMPANY');
    companies = (
      await importLeads(stack, alice, companySource.id, {
        leads: [{ name: 'Acme', website_url: 'acme.example' }, { name: 'Beta', website_url: 'beta.example' }, { name: 'Gamma' }],
      })
    ).leads.map((l) => l.id);
    bobsList = await createList(stack, bob, 'Bob source');
    bobsProspect = ((await importLeads(stack, bob, bobsList.id, { leads: [person(100)] })).leads[0] as { id: number }).id;
  });
  afterAll(async () => stack?.stop());

  it('adds prospects to a PEOPLE list and says what was added, what was skipped and why', async () => {
    const list = await createList(stack, alice, 'Target');
    const response = await add(alice, list.id, { prospect_ids: [prospects[0], prospects[1], 987654321, bobsProspect] });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      search_type: 'PEOPLE',
      added: 2,
      added_ids: [prospects[0], prospects[1]],
      skipped: [
        { id: 987654321, reason: 'not_found' },
        { id: bobsProspect, reason: 'not_found' },
      ],
      total_prospects: 2,
    });
    const page = await leadsOf(stack, alice, list.id);
    expect(page.prospects?.map((p) => p.id)).toEqual([prospects[0], prospects[1]]);
    expect(page.total_count).toBe(2);
    // Bob's prospect is untouched: still only in Bob's list.
    expect((await prospectItem(bobsProspect))?.listIds).toEqual(new Set([bobsList.id]));
    expect((await leadsOf(stack, bob, bobsList.id)).total_count).toBe(1);
  });

  it('never duplicates: adding again skips with already_in_list, repeated ids count once', async () => {
    const list = await createList(stack, alice, 'Twice');
    const first = await add(alice, list.id, { prospect_ids: [prospects[2], prospects[2], prospects[3]] });
    expect(first.body).toEqual({ success: true, search_type: 'PEOPLE', added: 2, added_ids: [prospects[2], prospects[3]], skipped: [], total_prospects: 2 });
    const again = await add(alice, list.id, { prospect_ids: [prospects[3], prospects[4]] });
    expect(again.body).toEqual({
      success: true,
      search_type: 'PEOPLE',
      added: 1,
      added_ids: [prospects[4]],
      skipped: [{ id: prospects[3], reason: 'already_in_list' }],
      total_prospects: 3,
    });
    expect((await leadsOf(stack, alice, list.id)).total_count).toBe(3);
  });

  it('keeps the count true under concurrent overlapping adds', async () => {
    const list = await createList(stack, alice, 'Concurrent');
    const batches = [prospects.slice(0, 5), prospects.slice(2, 8), prospects.slice(1, 6), prospects.slice(0, 8)];
    const responses = await Promise.all(batches.map((ids) => add(alice, list.id, { prospect_ids: ids })));
    for (const response of responses) expect(response.status).toBe(200);
    const addedIds = responses.flatMap((r) => r.body.added_ids ?? []);
    expect([...addedIds].sort()).toEqual([...prospects].sort());
    expect((await getList(stack, alice, list.id))?.total_prospects).toBe(8);
    expect((await leadsOf(stack, alice, list.id)).prospects?.map((p) => p.id)).toEqual([...prospects].sort((a, b) => a - b));
  });

  it('answers each of concurrent adds of the same leads with the count that holds them all', async () => {
    // A race: three lists, so that an answer read before the winner closed its list shows up.
    for (const name of ['Same leads at once 1', 'Same leads at once 2', 'Same leads at once 3']) {
      const list = await createList(stack, alice, name);
      const responses = await Promise.all(Array.from({ length: 5 }, () => add(alice, list.id, { prospect_ids: prospects })));
      // Each answer says all 8 are in the list (added by it, or already there): its count holds them.
      for (const response of responses) {
        expect(response.status).toBe(200);
        expect((response.body.added ?? 0) + response.body.skipped.filter((skip) => skip.reason === 'already_in_list').length).toBe(8);
        expect(response.body.total_prospects).toBe(8);
      }
      expect(responses.flatMap((r) => r.body.added_ids ?? []).sort()).toEqual([...prospects].sort());
    }
  });

  it('accepts ids as numeric strings or a comma-separated string', async () => {
    const list = await createList(stack, alice, 'Loose ids');
    const strings = await add(alice, list.id, { prospect_ids: [String(prospects[0])] });
    expect(strings.body).toEqual({ success: true, search_type: 'PEOPLE', added: 1, added_ids: [prospects[0]], skipped: [], total_prospects: 1 });
    const csv = await add(alice, list.id, { prospect_ids: `${prospects[1]}, ${prospects[2]}` });
    expect(csv.body).toEqual({ success: true, search_type: 'PEOPLE', added: 2, added_ids: [prospects[1], prospects[2]], skipped: [], total_prospects: 3 });
  });

  it.each([
    [{ company_ids: [1] }, 'This is a PEOPLE list: send prospect_ids, not company_ids'],
    [{ prospect_ids: [1], company_ids: [2] }, 'This is a PEOPLE list: send prospect_ids, not company_ids'],
    [{}, 'prospect_ids is required for a PEOPLE list'],
    [{ prospect_ids: [] }, 'prospect_ids must contain at least one id'],
    [{ prospect_ids: 'abc' }, 'prospect_ids must be an array of integer ids'],
    [{ prospect_ids: [1.5] }, 'prospect_ids must be an array of integer ids'],
    [{ prospect_ids: [-3] }, 'prospect_ids must be an array of integer ids'],
    [{ prospect_ids: { id: 1 } }, 'prospect_ids must be an array of integer ids'],
    [{ prospect_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }, 'prospect_ids may hold at most 1000 ids'],
  ])('PEOPLE list: add-leads and delete-leads refuse %j with 400 "%s"', async (body, error) => {
    const list = await createList(stack, alice, 'Errors');
    for (const call of [add, remove]) {
      const response = await call(alice, list.id, body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error });
    }
    expect((await getList(stack, alice, list.id))?.total_prospects).toBe(0);
  });

  it('refuses a field it does not know with a 400 naming it, and changes nothing (a delete-leads with dry_run archived)', async () => {
    const list = await createList(stack, alice, 'Unknown fields');
    const added = await add(alice, list.id, { prospect_ids: [prospects[0]] });
    expect(added.status, added.text).toBe(200);
    const dryRun = await remove(alice, list.id, { prospect_ids: [prospects[0]], dry_run: true });
    expect([dryRun.status, dryRun.body]).toEqual([400, { error: 'dry_run is not a field of a delete-leads request (fields: prospect_ids, company_ids)' }]);
    const misspelt = await add(alice, list.id, { prospect_ids: [prospects[1]], prospectIds: [prospects[2]] });
    expect([misspelt.status, misspelt.body]).toEqual([400, { error: 'prospectIds is not a field of an add-leads request (fields: prospect_ids, company_ids)' }]);
    expect((await prospectItem(prospects[0] as number))?.status).toBe('NEW');
    expect((await leadsOf(stack, alice, list.id)).prospects?.map((p) => p.id)).toEqual([prospects[0]]);
  });

  it('COMPANY lists take company_ids and refuse prospect_ids', async () => {
    const list = await createList(stack, alice, 'Accounts', 'COMPANY');
    const wrong = await add(alice, list.id, { prospect_ids: [prospects[0]] });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'This is a COMPANY list: send company_ids, not prospect_ids' });
    const missing = await add(alice, list.id, {});
    expect(missing.body).toEqual({ error: 'company_ids is required for a COMPANY list' });
    // A prospect id is not a company id: reported, never added.
    const response = await add(alice, list.id, { company_ids: [companies[0], companies[1], prospects[0]] });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      search_type: 'COMPANY',
      added: 2,
      added_ids: [companies[0], companies[1]],
      skipped: [{ id: prospects[0], reason: 'not_found' }],
      total_prospects: 2,
    });
    expect((await leadsOf(stack, alice, list.id)).companies?.map((c) => c.name)).toEqual(['Acme', 'Beta']);
  });

  it('answers 404 "Lead list not found" for an unknown list and another workspace’s list, changing nothing', async () => {
    for (const call of [add, remove]) {
      const unknown = await call(alice, 987654321, { prospect_ids: [prospects[0]] });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'Lead list not found' });
      const foreign = await call(alice, bobsList.id, { prospect_ids: [prospects[0], bobsProspect] });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ error: 'Lead list not found' });
    }
    const bobs = await leadsOf(stack, bob, bobsList.id);
    expect(bobs.prospects?.map((p) => p.id)).toEqual([bobsProspect]);
    expect((await prospectItem(bobsProspect))?.status).toBe('NEW');
  });

  it('delete-leads archives prospects: kept with status ARCHIVED, gone from every list, counts stay true', async () => {
    const one = await createList(stack, alice, 'Archive one');
    const two = await createList(stack, alice, 'Archive two');
    await add(alice, one.id, { prospect_ids: prospects.slice(0, 3) });
    await add(alice, two.id, { prospect_ids: prospects.slice(0, 2) });
    const response = await remove(alice, one.id, { prospect_ids: [prospects[0], prospects[5], 987654321] });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      search_type: 'PEOPLE',
      archived: 1,
      archived_ids: [prospects[0]],
      skipped: [
        { id: prospects[5], reason: 'not_in_list' },
        { id: 987654321, reason: 'not_found' },
      ],
      total_prospects: 2,
    });
    const item = await prospectItem(prospects[0] as number);
    expect(item).toMatchObject({ status: 'ARCHIVED', firstName: 'First0' });
    expect(item?.listIds).toBeUndefined();
    expect((await leadsOf(stack, alice, one.id)).prospects?.map((p) => p.id)).toEqual([prospects[1], prospects[2]]);
    // Archived prospects appear in no list, and the other list's count follows.
    const other = await leadsOf(stack, alice, two.id);
    expect(other.prospects?.map((p) => p.id)).toEqual([prospects[1]]);
    expect(other.total_count).toBe(1);
    expect((await getList(stack, alice, two.id))?.total_prospects).toBe(1);
    // The untouched lead is untouched.
    expect((await prospectItem(prospects[5] as number))?.status).toBe('NEW');
  });

  it('deleting again reports not_in_list; adding an archived prospect back makes it NEW again', async () => {
    const list = await createList(stack, alice, 'Come back');
    await add(alice, list.id, { prospect_ids: [prospects[6]] });
    await remove(alice, list.id, { prospect_ids: [prospects[6]] });
    const again = await remove(alice, list.id, { prospect_ids: [prospects[6]] });
    expect(again.body).toEqual({
      success: true,
      search_type: 'PEOPLE',
      archived: 0,
      archived_ids: [],
      skipped: [{ id: prospects[6], reason: 'not_in_list' }],
      total_prospects: 0,
    });
    const back = await add(alice, list.id, { prospect_ids: [prospects[6]] });
    expect(back.body).toEqual({ success: true, search_type: 'PEOPLE', added: 1, added_ids: [prospects[6]], skipped: [], total_prospects: 1 });
    const page = await leadsOf(stack, alice, list.id);
    expect(page.prospects?.map((p) => [p.id, p.status])).toEqual([[prospects[6], 'NEW']]);
  });

  it('delete-leads on a COMPANY list removes the company from that list only', async () => {
    const one = await createList(stack, alice, 'Companies one', 'COMPANY');
    const two = await createList(stack, alice, 'Companies two', 'COMPANY');
    await add(alice, one.id, { company_ids: companies });
    await add(alice, two.id, { company_ids: [companies[0]] });
    const wrong = await remove(alice, one.id, { prospect_ids: [prospects[0]] });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'This is a COMPANY list: send company_ids, not prospect_ids' });
    const response = await remove(alice, one.id, { company_ids: [companies[0], companies[1]] });
    expect(response.body).toEqual({
      success: true,
      search_type: 'COMPANY',
      removed: 2,
      removed_ids: [companies[0], companies[1]],
      skipped: [],
      total_prospects: 1,
    });
    expect((await leadsOf(stack, alice, one.id)).companies?.map((c) => c.id)).toEqual([companies[2]]);
    expect((await leadsOf(stack, alice, two.id)).companies?.map((c) => c.id)).toEqual([companies[0]]);
    const readd = await add(alice, one.id, { company_ids: [companies[0]] });
    expect(readd.body).toEqual({ success: true, search_type: 'COMPANY', added: 1, added_ids: [companies[0]], skipped: [], total_prospects: 2 });
  });

  it('a workspace cannot archive another workspace’s prospect through its own list', async () => {
    const list = await createList(stack, alice, 'Not yours');
    const response = await remove(alice, list.id, { prospect_ids: [bobsProspect] });
    expect(response.body).toEqual({
      success: true,
      search_type: 'PEOPLE',
      archived: 0,
      archived_ids: [],
      skipped: [{ id: bobsProspect, reason: 'not_found' }],
      total_prospects: 0,
    });
    expect((await prospectItem(bobsProspect))?.status).toBe('NEW');
  });
});
