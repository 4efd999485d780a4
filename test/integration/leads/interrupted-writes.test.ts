import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { leadIdentityKey, leadJournalKey, leadListKey, workspaceLeadCountsKey } from '../../../shared/db/keys';
import { parseItem } from '../../../shared/db/item-schema';
import { LeadJournalItem, memberItem, prospectItem } from '../../../shared/db/lead-items';
import { JOURNAL_LEASE_MS } from '../../../shared/db/lead-journal';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import type { Prospect } from '../../../shared/domain/leads/lead';
import { prospectMember } from '../../../shared/domain/leads/list-query';
import { ManualClock } from '../../../shared/time/clock';
import { type TestStack, createKey, signUp } from '../../support/test-stack';
import { type ProspectView, type Workspace, createList, importLeads, leadsOf, leadsStack, person } from './helpers';

/**
 * A batch of lead writes (DynamoLeadRepository.save) interrupted half-way, simulated with the
 * classes the Lambda uses on the stack's table: its journal opened, some of its steps done (guards
 * claimed, leads and member views written), the rest (closing the lists, closing the journal)
 * never run. Within JOURNAL_LEASE_MS of the journal's `at` nobody finishes it (its writer may still
 * be running); after it, whoever reads one of its lists (or the workspace's lead counts) does.
 */
describe('a batch of lead writes interrupted half-way', () => {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  let stack: TestStack;
  let repo: DynamoLeadRepository;
  let ids: DynamoIdAllocator;

  /** A fresh workspace per test: the workspace's lead counts finish every stale batch of the workspace. */
  const workspace = async (): Promise<Workspace> => {
    const user = await signUp(stack);
    return { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
  };
  const item = async (key: { pk: string; sk: string }) =>
    (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }))).Item;
  const put = (Item: Record<string, unknown>) => stack.db.send(new PutCommand({ TableName: stack.tableName, Item }));
  const url = (n: number) => `https://www.linkedin.com/in/person-${n}`;
  /** Ids in list order (ids from the service's allocator and from this test's interleave). */
  const byId = (...values: (number | undefined)[]) => [...values].sort((a, b) => (a as number) - (b as number));
  const guardOf = (ws: Workspace, n: number) => item(leadIdentityKey(ws.workspaceId, 'PROSPECT', `url:${url(n)}`));
  /** What the list item says of its count, reservations and open batches. */
  const listState = async (ws: Workspace, listId: number) => {
    const list = await item(leadListKey(ws.workspaceId, listId));
    return { totalProspects: list?.totalProspects, capacityClaimed: list?.capacityClaimed, openJournals: list?.openJournals, status: list?.status };
  };
  const search = async (ws: Workspace) => {
    const response = await stack.call<{ total_count: number | null; results: ProspectView[] }>('POST', '/public/prospects/search/', {
      apiKey: ws.key,
      body: { source: 'WORKSPACE', page_size: 100 },
    });
    expect(response.status, response.text).toBe(200);
    return { total_count: response.body.total_count, ids: response.body.results.map((p) => p.id) };
  };
  const page = async (ws: Workspace, listId: number, query = '') => {
    const answer = await leadsOf(stack, ws, listId, query);
    return { total_count: answer.total_count, ids: answer.prospects?.map((p) => p.id) };
  };

  /** A new prospect as the writer plans it: version 1, NEW, in `listIds`. */
  const newProspect = async (ws: Workspace, n: number, listIds: number[]): Promise<Prospect> => {
    const now = clock.now().toISOString();
    return {
      id: await ids.next(),
      workspaceId: ws.workspaceId,
      firstName: `First${n}`,
      lastName: `Last${n}`,
      networkProfileUrl: url(n),
      status: 'NEW',
      listIds,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
  };
  /** The batch's steps for one lead: its identity claimed; then (if `written`) the lead and its member views. */
  const claim = (prospect: Prospect) =>
    put({
      ...leadIdentityKey(prospect.workspaceId, 'PROSPECT', `url:${prospect.networkProfileUrl}`),
      entityType: 'LeadIdentity',
      identity: `url:${prospect.networkProfileUrl}`,
      leadId: prospect.id,
    });
  const write = async (prospect: Prospect) => {
    await put(prospectItem(prospect));
    for (const listId of prospect.listIds) await put(memberItem('PEOPLE', listId, prospect.id, prospect.version, prospectMember(prospect, undefined)));
  };
  /** Opens a batch's journal (registering it on its lists and the workspace counts, reserving its joins). */
  const open = async (ws: Workspace, batch: { leads: Prospect[]; lists: number[]; joins: Map<number, number>; created: Prospect[] }) => {
    const token = randomUUID();
    const opened = await repo.journal.open(
      {
        token,
        workspaceId: ws.workspaceId,
        searchType: 'PEOPLE',
        leadIds: batch.leads.map((p) => p.id),
        lists: batch.lists,
        reserved: batch.joins,
        created: batch.created.map((p) => ({ id: p.id, identities: [`url:${p.networkProfileUrl}`] })),
      },
      100_000,
    );
    expect(opened).toEqual({ opened: true });
    return token;
  };

  beforeAll(async () => {
    ({ stack } = await leadsStack({ clock }));
    repo = new DynamoLeadRepository(stack.db, stack.tableName, clock);
    ids = new DynamoIdAllocator(stack.db, stack.tableName);
  });
  afterAll(async () => stack?.stop());

  it('a written lead whose list was never closed, and a new lead claimed but never written: untouched within the lease, finished by the list’s next read after it', async () => {
    const ws = await workspace();
    const list = await createList(stack, ws, 'Interrupted');
    const existing = (await importLeads(stack, ws, list.id, { leads: [person(1), person(2)] })).leads.map((lead) => lead.id);
    const written = await newProspect(ws, 101, [list.id]);
    const lost = await newProspect(ws, 102, [list.id]);
    const token = await open(ws, { leads: [written, lost], lists: [list.id], joins: new Map([[list.id, 2]]), created: [written, lost] });
    await claim(written);
    await claim(lost);
    await write(written);
    // ...and the batch stops here: no list closed, no journal closed.

    clock.advance(JOURNAL_LEASE_MS - 1);
    // The member Query lists the view that was written; the count and the digest do not have it yet.
    expect(await page(ws, list.id)).toEqual({ total_count: 2, ids: byId(...existing, written.id) });
    expect(await page(ws, list.id, 'first_name=first')).toEqual({ total_count: 2, ids: existing });
    expect(await listState(ws, list.id)).toEqual({ totalProspects: 2, capacityClaimed: 4, openJournals: new Set([token]), status: 'ACTIVE' });
    const journal = parseItem(LeadJournalItem, (await item(leadJournalKey(token))) as Record<string, unknown>);
    expect(journal).toMatchObject({ token, lists: [list.id] });
    expect(journal.leads.leadIds).toEqual([written.id, lost.id]);
    expect(await search(ws)).toEqual({ total_count: 2, ids: byId(...existing, written.id) });
    expect((await item(workspaceLeadCountsKey(ws.workspaceId)))?.openJournals).toEqual(new Set([token]));
    // The identity claimed for the lead never written still holds: a row with it cannot be imported yet.
    expect(await importLeads(stack, ws, list.id, { leads: [person(102)] })).toMatchObject({
      created: 0,
      updated: 0,
      skipped_rows: [{ row: 1, reason: 'the lead changed during the request; send it again' }],
      total_prospects: 2,
    });
    expect((await guardOf(ws, 102))?.leadId).toBe(lost.id);

    clock.advance(1);
    expect(await page(ws, list.id)).toEqual({ total_count: 3, ids: byId(...existing, written.id) });
    expect(await page(ws, list.id, 'first_name=first')).toEqual({ total_count: 3, ids: byId(...existing, written.id) });
    expect(await page(ws, list.id, 'sort_field=first_name&sort_direction=desc&first_name=101')).toEqual({ total_count: 1, ids: [written.id] });
    expect(await listState(ws, list.id)).toEqual({ totalProspects: 3, capacityClaimed: 3, openJournals: undefined, status: 'ACTIVE' });
    expect(await item(leadJournalKey(token))).toBeUndefined();
    expect((await item(workspaceLeadCountsKey(ws.workspaceId)))?.openJournals).toBeUndefined();
    expect(await guardOf(ws, 102)).toBeUndefined();
    expect((await guardOf(ws, 101))?.leadId).toBe(written.id);
    expect(await search(ws)).toEqual({ total_count: 3, ids: byId(...existing, written.id) });

    // The released identity makes a new prospect.
    const again = await importLeads(stack, ws, list.id, { leads: [person(102)] });
    expect(again).toMatchObject({ created: 1, updated: 0, skipped_rows: [], total_prospects: 4 });
    const newcomer = again.leads[0]?.id as number;
    expect(newcomer).not.toBe(lost.id);
    expect(await page(ws, list.id)).toEqual({ total_count: 4, ids: byId(...existing, written.id, newcomer) });
    expect(await listState(ws, list.id)).toEqual({ totalProspects: 4, capacityClaimed: 4, openJournals: undefined, status: 'ACTIVE' });
    expect(await search(ws)).toEqual({ total_count: 4, ids: byId(...existing, written.id, newcomer) });
  });

  it('a new lead, a new lead without its member view and an update written, the list never closed: the workspace search after the lease finishes the batch, lists included', async () => {
    const ws = await workspace();
    const list = await createList(stack, ws, 'Interrupted update');
    const [existing] = (await importLeads(stack, ws, list.id, { leads: [person(1, { job_title: 'Analyst' })] })).leads.map((lead) => lead.id);
    const [before] = await repo.getProspects([existing as number]);
    const updated: Prospect = { ...(before as Prospect), jobTitle: 'Head of Ops', version: (before as Prospect).version + 1 };
    const created = await newProspect(ws, 103, [list.id]);
    // New leads and their views go out in batch writes: a lead can land without its view.
    const viewless = await newProspect(ws, 108, [list.id]);
    const token = await open(ws, { leads: [created, viewless, updated], lists: [list.id], joins: new Map([[list.id, 2]]), created: [created, viewless] });
    await claim(created);
    await claim(viewless);
    await write(created);
    await put(prospectItem(viewless));
    // The update's transaction: the lead and its view (its counts do not move).
    await write(updated);

    clock.advance(JOURNAL_LEASE_MS - 1);
    expect(await page(ws, list.id)).toEqual({ total_count: 1, ids: byId(existing, created.id) });
    // The digest still holds the lead as it was before the batch.
    expect(await page(ws, list.id, 'job_title=ops')).toEqual({ total_count: 0, ids: [] });
    expect(await page(ws, list.id, 'job_title=analyst')).toEqual({ total_count: 1, ids: [existing] });
    expect(await search(ws)).toEqual({ total_count: 1, ids: byId(existing, created.id, viewless.id) });
    expect(await listState(ws, list.id)).toEqual({ totalProspects: 1, capacityClaimed: 3, openJournals: new Set([token]), status: 'ACTIVE' });

    clock.advance(1);
    // The workspace search is the first to read after the lease: it finishes the batch, its list too.
    expect(await search(ws)).toEqual({ total_count: 3, ids: byId(existing, created.id, viewless.id) });
    expect(await item(leadJournalKey(token))).toBeUndefined();
    expect(await listState(ws, list.id)).toEqual({ totalProspects: 3, capacityClaimed: 3, openJournals: undefined, status: 'ACTIVE' });
    expect(await page(ws, list.id, 'job_title=ops')).toEqual({ total_count: 1, ids: [existing] });
    expect(await page(ws, list.id, 'job_title=analyst')).toEqual({ total_count: 0, ids: [] });
    expect(await page(ws, list.id, 'first_name=first')).toEqual({ total_count: 3, ids: byId(existing, created.id, viewless.id) });
    expect(await page(ws, list.id, 'sort_field=first_name&sort_direction=desc')).toEqual({ total_count: 3, ids: [viewless.id, created.id, existing] });
    expect((await leadsOf(stack, ws, list.id, 'sort_field=first_name')).prospects?.map((p) => [p.id, p.first_name, p.job_title])).toEqual([
      [existing, 'First1', 'Head of Ops'],
      [created.id, 'First103', ''],
      [viewless.id, 'First108', ''],
    ]);
  });

  it('a list closed but the journal not: the list is right at once, the workspace count after the lease', async () => {
    const ws = await workspace();
    const list = await createList(stack, ws, 'Closed list');
    const created = await newProspect(ws, 104, [list.id]);
    const token = await open(ws, { leads: [created], lists: [list.id], joins: new Map([[list.id, 1]]), created: [created] });
    await claim(created);
    await write(created);
    const member = prospectMember(created, undefined);
    await repo.members.close(
      { workspaceId: ws.workspaceId, id: list.id },
      [{ id: created.id, version: 1, entry: { id: created.id, version: 1, ...member.projection } }],
      { reserved: 1, token },
    );

    clock.advance(JOURNAL_LEASE_MS - 1);
    expect(await page(ws, list.id, 'first_name=first')).toEqual({ total_count: 1, ids: [created.id] });
    expect(await listState(ws, list.id)).toEqual({ totalProspects: 1, capacityClaimed: 1, openJournals: undefined, status: 'ACTIVE' });
    // New leads are counted in the workspace when the journal closes.
    expect(await search(ws)).toEqual({ total_count: 0, ids: [created.id] });

    clock.advance(1);
    expect(await search(ws)).toEqual({ total_count: 1, ids: [created.id] });
    expect(await item(leadJournalKey(token))).toBeUndefined();
    expect(await listState(ws, list.id)).toEqual({ totalProspects: 1, capacityClaimed: 1, openJournals: undefined, status: 'ACTIVE' });
    expect(await page(ws, list.id)).toEqual({ total_count: 1, ids: [created.id] });
  });

  /**
   * Two reads of the list after the lease, at once: both find the batch stale and finish it. The
   * digest and totalProspects are safe (newest version wins, a member is counted once), but
   * ListMembers.close gives back the batch's reserved joins every time it runs for the token:
   * nothing makes the list update conditional on the token still being open.
   */
  it('two reads finishing the same batch at once move the list’s counters once', async () => {
    const ws = await workspace();
    const list = await createList(stack, ws, 'Finished twice');
    const existing = (await importLeads(stack, ws, list.id, { leads: [person(1), person(2)] })).leads.map((lead) => lead.id);
    const first = await newProspect(ws, 106, [list.id]);
    const second = await newProspect(ws, 107, [list.id]);
    await open(ws, { leads: [first, second], lists: [list.id], joins: new Map([[list.id, 2]]), created: [first, second] });
    for (const prospect of [first, second]) {
      await claim(prospect);
      await write(prospect);
    }
    clock.advance(JOURNAL_LEASE_MS);

    const pages = await Promise.all([page(ws, list.id), page(ws, list.id), page(ws, list.id)]);
    for (const read of pages) expect(read).toEqual({ total_count: 4, ids: byId(...existing, first.id, second.id) });
    // The new leads are counted once in the workspace (the journal's delete is conditional).
    expect(await search(ws)).toEqual({ total_count: 4, ids: byId(...existing, first.id, second.id) });
    expect(await listState(ws, list.id)).toEqual({ totalProspects: 4, capacityClaimed: 4, openJournals: undefined, status: 'ACTIVE' });
  });

  /**
   * A batch is finished only by a read of one of its lists (DynamoLeadListRepository.get) or of the
   * workspace's lead counts (an unfiltered WORKSPACE search). An import into another list reads
   * neither: the guard still names the lead that was never written, and planning answers every
   * round with concurrent_change (lead-writer.ts, planProspects: `ownerIds[0] !== undefined &&
   * !target`), however often the caller sends the row again.
   */
  it('a new lead claimed but never written: after the lease, its identity can be imported into another list (nobody read the batch’s list)', async () => {
    const ws = await workspace();
    const list = await createList(stack, ws, 'Abandoned');
    const other = await createList(stack, ws, 'Elsewhere');
    const lost = await newProspect(ws, 105, [list.id]);
    const token = await open(ws, { leads: [lost], lists: [list.id], joins: new Map([[list.id, 1]]), created: [lost] });
    await claim(lost);

    clock.advance(JOURNAL_LEASE_MS);
    // The batch is past its lease: the row's identity should be free (or freed by this import).
    const imported = await importLeads(stack, ws, other.id, { leads: [person(105)] });
    expect({ created: imported.created, skipped_rows: imported.skipped_rows, total_prospects: imported.total_prospects }).toEqual({
      created: 1,
      skipped_rows: [],
      total_prospects: 1,
    });
    expect(await item(leadJournalKey(token))).toBeUndefined();
  });
});
