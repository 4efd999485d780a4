import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { leadListKey, workspaceLeadCountsKey } from '../../../shared/db/keys';
import { memberItem } from '../../../shared/db/lead-items';
import { guardItem } from '../../../shared/db/lead-fingerprints';
import { createStatusWriter } from '../../../shared/domain/engine/prospect-progress';
import { JOURNAL_LEASE_MS } from '../../../shared/db/lead-journal';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { type Prospect, prospectIdentities } from '../../../shared/domain/leads/lead';
import { createLeadWriter } from '../../../shared/domain/leads/lead-writer';
import { prospectMember } from '../../../shared/domain/leads/list-query';
import type { LeadChange } from '../../../shared/domain/leads/ports';
import { ManualClock } from '../../../shared/time/clock';
import { type TestStack, createKey, signUp } from '../../support/test-stack';
import { type Workspace, createList, importLeads, leadsOf, leadsStack, person } from './helpers';

/**
 * Many writers changing members of one list at once (as concurrent Lambdas do): each closes its
 * batch on the list's digest, conditional on the chunk's revision, so they queue on the same
 * chunk and some give up (ListMembers.close). A batch whose writer gave up must not stay open:
 * the next writer of the workspace after the lease finishes it (its token leaves the list and the
 * lead counts, its members' views and digest entries match the leads). Status writes open no
 * batch at all (data-model.md, "Status changes: no batch"): they do not contend on the list.
 */
describe('concurrent writes on one list', () => {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  let stack: TestStack;

  const item = async (key: { pk: string; sk: string }) =>
    (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }))).Item;

  beforeAll(async () => {
    ({ stack } = await leadsStack({ clock }));
  });
  afterAll(async () => stack?.stop());

  /** A job title change of a prospect, as the lead writer plans it. */
  const retitle = (prospect: Prospect, jobTitle: string): LeadChange => {
    const after: Prospect = { ...prospect, jobTitle, version: prospect.version + 1, updatedAt: clock.now().toISOString() };
    return { before: prospect, after, member: prospectMember(after, undefined), claim: [], release: [], refreshMembers: true };
  };

  it('40 writers at once: every batch is closed by the next writer after the lease, and the list shows every change', async () => {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    const list = await createList(stack, ws, 'Contended');
    const imported = await importLeads(stack, ws, list.id, { leads: Array.from({ length: 41 }, (_, n) => person(n)) });
    const ids = imported.leads.map((lead) => lead.id as number);
    const reader = new DynamoLeadRepository(stack.db, stack.tableName, clock);
    const prospects = await reader.getProspects(ids);
    const [last, ...rest] = prospects.sort((a, b) => a.id - b.id) as [Prospect, ...Prospect[]];

    // One repository per writer: separate Lambdas share nothing but the table.
    const settled = await Promise.allSettled(
      rest.map((prospect) => new DynamoLeadRepository(stack.db, stack.tableName, clock).save([retitle(prospect, 'Chief Technology Officer')], { maxLeadsPerList: 100_000 })),
    );
    // A writer that gave up answered an error (its caller repeats the request); its lead was written.
    for (const outcome of settled) if (outcome.status === 'fulfilled') expect(outcome.value).toEqual(['applied']);

    // The next writer of the workspace, once the lease of the batches left open has run out.
    clock.advance(JOURNAL_LEASE_MS + 1_000);
    expect(await reader.save([retitle(last, 'Chief Technology Officer')], { maxLeadsPerList: 100_000 })).toEqual(['applied']);

    const listItem = await item(leadListKey(ws.workspaceId, list.id));
    const counts = await item(workspaceLeadCountsKey(ws.workspaceId));
    expect({ list: listItem?.openJournals, counts: counts?.openJournals, total: listItem?.totalProspects, claimed: listItem?.capacityClaimed }).toEqual({
      list: undefined,
      counts: undefined,
      total: 41,
      claimed: 41,
    });
    // Filtered through the digest, and paged through the views: every member carries the change.
    const filtered = await leadsOf(stack, ws, list.id, 'job_title=chief&page_size=100');
    expect(filtered.total_count).toBe(41);
    expect(filtered.prospects?.map((p) => [p.id, p.job_title])).toEqual(ids.sort((a, b) => a - b).map((id) => [id, 'Chief Technology Officer']));
    const page = await leadsOf(stack, ws, list.id, 'page_size=100');
    expect(page.prospects?.map((p) => p.job_title)).toEqual(ids.map(() => 'Chief Technology Officer'));
  }, 180_000);

  it('40 status writes at once on one list (separate writers): none contends, the list shows each at once and keeps its counters and digest', async () => {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    const list = await createList(stack, ws, 'Statuses');
    const ids = (await importLeads(stack, ws, list.id, { leads: Array.from({ length: 40 }, (_, n) => person(100 + n)) })).leads.map((lead) => lead.id as number);
    const listBefore = await item(leadListKey(ws.workspaceId, list.id));
    const digestBefore = await leadsOf(stack, ws, list.id, 'first_name=first&page_size=100');
    const writer = () =>
      createStatusWriter({ leads: new DynamoLeadRepository(stack.db, stack.tableName, clock), ids: new DynamoIdAllocator(stack.db, stack.tableName), clock, maxLeadsPerList: 100_000 });

    const written = await Promise.all(
      ids.map((prospectId) => writer()({ workspaceId: ws.workspaceId, prospectId, status: 'FINISHED', replaces: () => true })),
    );
    expect(written.map((w) => w.result)).toEqual(ids.map(() => 'applied'));
    // No batch: the list item (counters, open batches, updatedAt) is as it was.
    expect(await item(leadListKey(ws.workspaceId, list.id))).toEqual(listBefore);
    const page = await leadsOf(stack, ws, list.id, 'page_size=100');
    expect(page.prospects?.map((p) => [p.id, p.status])).toEqual([...ids].sort((a, b) => a - b).map((id) => [id, 'FINISHED']));
    const filtered = await leadsOf(stack, ws, list.id, 'first_name=first&page_size=100');
    expect({ total: filtered.total_count, ids: filtered.prospects?.map((p) => p.id) }).toEqual({
      total: digestBefore.total_count,
      ids: digestBefore.prospects?.map((p) => p.id),
    });
    expect(filtered.prospects?.map((p) => p.status)).toEqual(ids.map(() => 'FINISHED'));
  }, 180_000);

  it('a status write interrupted before its view: the repeated write puts the view, and never over a newer one', async () => {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    const list = await createList(stack, ws, 'Interrupted status');
    const [id] = (await importLeads(stack, ws, list.id, { leads: [person(200)] })).leads.map((lead) => lead.id as number);
    const repo = new DynamoLeadRepository(stack.db, stack.tableName, clock);
    const writeStatus = createStatusWriter({ leads: repo, ids: new DynamoIdAllocator(stack.db, stack.tableName), clock, maxLeadsPerList: 100_000 });
    const [before] = await repo.getProspects([id as number]);
    expect(await writeStatus({ workspaceId: ws.workspaceId, prospectId: id as number, status: 'FINISHED', replaces: () => true })).toMatchObject({ result: 'applied' });
    // The view as the interrupted write left it: the previous version, the previous status.
    const stale = memberItem('PEOPLE', list.id, id as number, (before as Prospect).version, prospectMember(before as Prospect, undefined));
    await stack.db.send(new PutCommand({ TableName: stack.tableName, Item: stale }));
    expect((await leadsOf(stack, ws, list.id)).prospects?.map((p) => p.status)).toEqual(['NEW']);

    expect(await writeStatus({ workspaceId: ws.workspaceId, prospectId: id as number, status: 'FINISHED', replaces: () => true })).toMatchObject({ result: 'applied' });
    expect((await leadsOf(stack, ws, list.id)).prospects?.map((p) => p.status)).toEqual(['FINISHED']);
    // Repaired again with an older version: the newer view stays.
    await repo.repairViews(before as Prospect, prospectMember(before as Prospect, undefined));
    expect((await leadsOf(stack, ws, list.id)).prospects?.map((p) => p.status)).toEqual(['FINISHED']);
  }, 60_000);
  /** Requests at once importing the same people (a company for each 5 of them), one into each list given. */
  const importTogether = async (ws: Workspace, listIds: number[], people = 50) => {
    const rows = Array.from({ length: people }, (_, n) => person(5000 + n, { email: `together-${n}@example.com`, company_name: `Together ${Math.floor(n / 5)}` }));
    return Promise.all(listIds.map((listId) => importLeads(stack, ws, listId, { leads: rows })));
  };

  it('10 imports of the same new rows into one list at once: none skipped; one request creates each prospect, the others find it', async () => {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    const list = await createList(stack, ws, 'Imported together');
    const answers = await importTogether(ws, Array.from({ length: 10 }, () => list.id));
    expect(answers.map((answer) => answer.skipped_rows)).toEqual(Array.from({ length: 10 }, () => []));
    expect(answers.reduce((sum, answer) => sum + answer.created, 0)).toBe(50);
    expect(answers.reduce((sum, answer) => sum + answer.created + answer.updated, 0)).toBe(500);
    // Every request answers the same 50 ids, row by row.
    const ids = answers[0]?.leads.map((lead) => lead.id);
    expect(new Set(ids).size).toBe(50);
    for (const answer of answers) expect(answer.leads.map((lead) => lead.id)).toEqual(ids);
    expect((await leadsOf(stack, ws, list.id, 'page_size=100')).total_count).toBe(50);
  }, 120_000);

  it('10 imports of the same rows into 10 lists at once: none skipped, each list holds all 20', async () => {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    const lists = await Promise.all(Array.from({ length: 10 }, (_, k) => createList(stack, ws, `Together ${k}`)));
    const answers = await importTogether(ws, lists.map((list) => list.id), 20);
    expect(answers.map((answer) => answer.skipped_rows)).toEqual(Array.from({ length: 10 }, () => []));
    expect(answers.reduce((sum, answer) => sum + answer.created, 0)).toBe(20);
    expect(answers.map((answer) => answer.total_prospects)).toEqual(Array.from({ length: 10 }, () => 20));
    for (const list of lists) expect((await leadsOf(stack, ws, list.id, 'page_size=100')).total_count).toBe(20);
  }, 120_000);
  /**
   * A row whose identity another request has claimed (its guard written) but whose prospect it
   * writes only after this request has read the guard and found the prospect missing.
   */
  const claimedBeforeWritten = async (timeLeft?: () => number) => {
    const user = await signUp(stack);
    const repository = new DynamoLeadRepository(stack.db, stack.tableName, clock);
    const stamp = clock.now().toISOString();
    const email = `claimed-first-${user.workspaceId}@example.com`;
    const other: Prospect = {
      id: await new DynamoIdAllocator(stack.db, stack.tableName).next(),
      workspaceId: user.workspaceId,
      firstName: 'Claimed',
      lastName: 'First',
      email,
      status: 'NEW',
      listIds: [],
      version: 1,
      createdAt: stamp,
      updatedAt: stamp,
    };
    const identity = prospectIdentities(other)[0] as string;
    // The other request's state between its two steps: the identity guard written, the prospect not.
    await stack.db.send(new PutCommand({ TableName: stack.tableName, Item: guardItem(user.workspaceId, 'PROSPECT', identity, other.id, undefined) }));
    // This request reads the guard, then the prospect (missing); the other request writes the prospect right after that read.
    let reads = 0;
    const leads = Object.create(repository) as DynamoLeadRepository;
    leads.getProspects = async (ids, options) => {
      const found = await repository.getProspects(ids, options);
      reads += 1;
      if (reads === 1) {
        const created: LeadChange = { after: other, member: prospectMember(other, undefined), claim: [identity], release: [], refreshMembers: false };
        expect(await repository.save([created], { maxLeadsPerList: 100_000 })).toEqual(['applied']);
      }
      return found;
    };
    const writer = createLeadWriter({ leads, ids: new DynamoIdAllocator(stack.db, stack.tableName), clock, maxLeadsPerList: 100_000 });
    const outcomes = await writer.upsertProspects(
      user.workspaceId,
      [{ fields: { firstName: 'Claimed', lastName: 'First', email, jobTitle: 'CTO' } }],
      { overwrite: true, ...(timeLeft ? { timeLeft } : {}) },
    );
    const stored = (await repository.getProspects([other.id], { consistent: true }))[0];
    return { other, reads, outcomes, stored };
  };

  it('a row whose identity another request has claimed but whose prospect it has not written yet: the next round finds the prospect (it is not skipped)', async () => {
    const { other, reads, outcomes, stored } = await claimedBeforeWritten();
    expect(reads).toBe(2);
    expect(outcomes).toEqual([{ status: 'updated', lead: { ...other, jobTitle: 'CTO', version: 2 } }]);
    expect(stored).toEqual({ ...other, jobTitle: 'CTO', version: 2 });
  }, 60_000);

  it('no round starts with less than 16 s left to the request: the row is skipped as changed during the request, and nothing of it written', async () => {
    const { other, reads, outcomes, stored } = await claimedBeforeWritten(() => 15_999);
    expect(reads).toBe(1);
    expect(outcomes).toEqual([{ status: 'skipped', reason: 'the lead changed during the request; send it again' }]);
    expect(stored).toEqual(other);
    // With 16 s left, the next round runs.
    expect((await claimedBeforeWritten(() => 16_000)).reads).toBe(2);
  }, 60_000);
});
