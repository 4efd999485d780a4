import { brotliCompressSync } from 'node:zlib';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigrationReport, WritesInProgressError, migrateLeadListLayout } from '../../../infra/migrate/lead-list-layout';
import {
  DIGEST_PREFIX,
  leadJournalKey,
  leadListKey,
  listMemberKey,
  workspaceLeadCountsKey,
} from '../../../shared/db/keys';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { DynamoWorkspaceLeadCounts } from '../../../shared/db/workspace-lead-counts';
import { JOURNAL_LEASE_MS } from '../../../shared/db/lead-journal';
import { ManualClock, systemClock } from '../../../shared/time/clock';
import { type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';
import { type LeadListView, type Workspace, expectedCompany, expectedCompanySummary, expectedProspect, importLeads, leadsOf, person } from '../leads/helpers';
import { PEOPLE_LIST, COMPANY_LIST, ACME, BETA, ADA, GRACE, ALAN, type OldCompany, type OldProspect, companies, prospects, oldLayout } from './migrate-fixtures';

/**
 * `npm run migrate` on a table written by the layout before the member digest: list members with
 * folded `f_<key>` filter attributes and no view, lists without digest or `capacityClaimed`, no
 * LEADCOUNTS. The old items are written by hand into a test stack's table; the migration runs on
 * that table; the answers are read through the stack's API.
 */

describe('npm run migrate: a table written before the member digest', () => {
  let stack: TestStack;
  let ws: Workspace;
  let first: MigrationReport;
  const lines: string[] = [];
  const migrate = () => migrateLeadListLayout(stack.db, stack.tableName, { clock: systemClock, log: (line) => lines.push(line) });
  const scanAll = async () => {
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await stack.db.send(new ScanCommand({ TableName: stack.tableName, ConsistentRead: true, ExclusiveStartKey }));
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items.sort((a, b) => `${a.pk}\u0000${a.sk}`.localeCompare(`${b.pk}\u0000${b.sk}`));
  };
  const partition = async (listId: number) =>
    (
      await stack.db.send(
        new QueryCommand({
          TableName: stack.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': listMemberKey(listId, 0).pk },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  const listItem = async (listId: number) =>
    (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: leadListKey(ws.workspaceId, listId), ConsistentRead: true }))).Item;

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000 });
    const user = await signUp(stack);
    ws = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    const items = oldLayout(ws.workspaceId);
    for (let i = 0; i < items.length; i += 25) {
      await stack.db.send(
        new BatchWriteCommand({ RequestItems: { [stack.tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
      );
    }
  });
  afterAll(async () => stack?.stop());

  it('the old layout cannot be read by the current code', async () => {
    const response = await stack.call('GET', `/public/lead-lists/${PEOPLE_LIST}/leads/`, { apiKey: ws.key });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: 'Internal server error' });
  });

  it('rebuilds members, digests and counters from the leads and writes the workspace lead counts', async () => {
    first = await migrate();
    expect(first).toEqual({
      lists: 2,
      listsChanged: 2,
      membersWritten: 5,
      membersDeleted: 1,
      membersUnchanged: 0,
      digestsRebuilt: 2,
      countersSet: 2,
      journalsSettled: 1,
      workspaces: 1,
      leadCountsWritten: 1,
    });
    expect(lines).toEqual([
      `list ${PEOPLE_LIST} (PEOPLE, workspace ${ws.workspaceId}): 3 members; 3 member items written; 1 member item deleted; digest rebuilt: 1 chunk (replacing 0); totalProspects 3 -> 3, capacityClaimed absent -> 3`,
      `list ${COMPANY_LIST} (COMPANY, workspace ${ws.workspaceId}): 2 members; 2 member items written; digest rebuilt: 1 chunk (replacing 0); totalProspects 2 -> 2, capacityClaimed absent -> 2`,
      `workspace ${ws.workspaceId}: LEADCOUNTS prospects 3, companies 2; written`,
    ]);

    // Members carry the new layout only: no f_ attributes, no workspaceId/listId; one digest chunk beside them.
    const people = await partition(PEOPLE_LIST);
    expect(people.map((item) => item.sk)).toEqual([`${DIGEST_PREFIX}000000`, ...[ADA, GRACE, ALAN].map((id) => listMemberKey(PEOPLE_LIST, id).sk)]);
    for (const member of people.slice(1)) {
      expect(Object.keys(member).sort()).toEqual(['entityType', 'leadId', 'lsi1sk', 'lsi2sk', 'lsi3sk', 'lsi4sk', 'lsi5sk', 'pk', 'sk', 'version', 'view']);
    }
    expect(people[0]).toMatchObject({ entityType: 'MemberDigest', rev: 1, members: 3 });
    expect(await listItem(PEOPLE_LIST)).toMatchObject({ totalProspects: 3, capacityClaimed: 3 });
    const companyList = await listItem(COMPANY_LIST);
    expect(companyList).toMatchObject({ totalProspects: 2, capacityClaimed: 2 });
    expect(companyList).not.toHaveProperty('openJournals');
  });

  it('a second run changes nothing', async () => {
    const before = await scanAll();
    lines.length = 0;
    expect(await migrate()).toEqual({
      lists: 2,
      listsChanged: 0,
      membersWritten: 0,
      membersDeleted: 0,
      membersUnchanged: 5,
      digestsRebuilt: 0,
      countersSet: 0,
      journalsSettled: 0,
      workspaces: 1,
      leadCountsWritten: 0,
    });
    expect(lines).toEqual([
      `list ${PEOPLE_LIST} (PEOPLE, workspace ${ws.workspaceId}): 3 members; unchanged`,
      `list ${COMPANY_LIST} (COMPANY, workspace ${ws.workspaceId}): 2 members; unchanged`,
      `workspace ${ws.workspaceId}: LEADCOUNTS prospects 3, companies 2; unchanged`,
    ]);
    expect(await scanAll()).toEqual(before);
  });

  it('the API answers pages, sorts, filters and counts from the migrated table', async () => {
    const companySummary = (c: OldCompany) =>
      expectedCompanySummary({ id: c.id, name: c.name, website_url: c.websiteUrl, industry: c.industry, location: c.location, amount_of_employees: c.amountOfEmployees });
    const prospectView = (p: OldProspect) =>
      expectedProspect({
        id: p.id,
        first_name: p.firstName,
        last_name: p.lastName,
        email: p.email,
        job_title: p.jobTitle,
        location: p.location,
        company: p.companyId === undefined ? null : companySummary(companies.find((c) => c.id === p.companyId) as OldCompany),
        created_at: p.createdAt,
        updated_at: p.createdAt,
      });
    const [ada, grace, alan] = prospects as [OldProspect, OldProspect, OldProspect];
    const [acme, beta] = companies as [OldCompany, OldCompany];

    const lists = await stack.call<{ searches: LeadListView[] }>('GET', '/public/lead-lists/', { apiKey: ws.key });
    expect(lists.body.searches.map((l) => [l.id, l.total_prospects, l.status])).toEqual([
      [COMPANY_LIST, 2, 'ACTIVE'],
      [PEOPLE_LIST, 3, 'ACTIVE'],
    ]);

    const page = await leadsOf(stack, ws, PEOPLE_LIST);
    expect(page).toEqual({ success: true, search_type: 'PEOPLE', total_count: 3, page: 1, page_size: 25, prospects: [ada, grace, alan].map(prospectView) });
    const byName = await leadsOf(stack, ws, PEOPLE_LIST, 'sort_field=first_name&sort_direction=desc');
    expect(byName.prospects?.map((p) => p.id)).toEqual([GRACE, ALAN, ADA]);
    const paged = await leadsOf(stack, ws, PEOPLE_LIST, 'sort_field=last_name&page_size=2&page=2');
    expect(paged).toMatchObject({ total_count: 3, page: 2, page_size: 2 });
    expect(paged.prospects?.map((p) => p.id)).toEqual([ALAN]);
    // Filters are answered by the rebuilt digest, with an exact total.
    const acmePeople = await leadsOf(stack, ws, PEOPLE_LIST, 'company_name=ACME');
    expect(acmePeople).toMatchObject({ total_count: 1, prospects: [prospectView(ada)] });
    const withA = await leadsOf(stack, ws, PEOPLE_LIST, 'first_name=a&page_size=1&page=2');
    expect(withA.total_count).toBe(3);
    expect(withA.prospects?.map((p) => p.id)).toEqual([GRACE]);
    const nowhere = await leadsOf(stack, ws, PEOPLE_LIST, 'location=leeds');
    expect(nowhere).toMatchObject({ total_count: 0, prospects: [] });

    const companyView = (c: OldCompany) =>
      expectedCompany({ id: c.id, name: c.name, website_url: c.websiteUrl, industry: c.industry, location: c.location, amount_of_employees: c.amountOfEmployees, revenue: c.revenue });
    const accounts = await leadsOf(stack, ws, COMPANY_LIST);
    expect(accounts).toEqual({ success: true, search_type: 'COMPANY', total_count: 2, page: 1, page_size: 25, companies: [acme, beta].map(companyView) });
    const bySize = await leadsOf(stack, ws, COMPANY_LIST, 'sort_field=amount_of_employees');
    expect(bySize.companies?.map((c) => c.id)).toEqual([BETA, ACME]);
    const logistics = await leadsOf(stack, ws, COMPANY_LIST, 'industry=logist');
    expect(logistics).toMatchObject({ total_count: 1, companies: [companyView(beta)] });

    // Workspace search's unfiltered total comes from LEADCOUNTS: the archived prospect is not counted.
    const search = (searchType: string) =>
      stack.call<{ total_count: number | null }>('POST', '/public/prospects/search/', { apiKey: ws.key, body: { search_type: searchType, source: 'WORKSPACE', page_size: 1 } });
    expect((await search('PEOPLE')).body.total_count).toBe(3);
    expect((await search('COMPANY')).body.total_count).toBe(2);
    const repository = new DynamoLeadRepository(stack.db, stack.tableName, systemClock);
    const counts = new DynamoWorkspaceLeadCounts(stack.db, stack.tableName, repository.journal);
    expect(await counts.get(ws.workspaceId)).toEqual({ prospects: 3, companies: 2 });
    const stored = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: workspaceLeadCountsKey(ws.workspaceId), ConsistentRead: true }));
    expect(stored.Item).toEqual({ ...workspaceLeadCountsKey(ws.workspaceId), entityType: 'WorkspaceLeadCounts', workspaceId: ws.workspaceId, prospects: 3, companies: 2 });
  });

  it('the current write path works on the migrated lists', async () => {
    const imported = await importLeads(stack, ws, PEOPLE_LIST, { leads: [person(1, { first_name: 'Barbara', last_name: 'Liskov', job_title: 'Professor' })] });
    expect(imported).toMatchObject({ created: 1, total_prospects: 4 });
    const page = await leadsOf(stack, ws, PEOPLE_LIST, 'job_title=prof');
    expect(page.total_count).toBe(1);
    expect(page.prospects?.map((p) => p.first_name)).toEqual(['Barbara']);
    expect((await leadsOf(stack, ws, PEOPLE_LIST)).total_count).toBe(4);
    expect(await listItem(PEOPLE_LIST)).toMatchObject({ totalProspects: 4, capacityClaimed: 4 });
    const search = await stack.call<{ total_count: number }>('POST', '/public/prospects/search/', {
      apiKey: ws.key,
      body: { source: 'WORKSPACE', page_size: 1 },
    });
    expect(search.body.total_count).toBe(4);

    // What the current code wrote is already the current layout: a run afterwards leaves it as is.
    expect(await migrate()).toMatchObject({ lists: 2, listsChanged: 0, membersWritten: 0, membersDeleted: 0, membersUnchanged: 6, digestsRebuilt: 0, leadCountsWritten: 0 });
  });

  it("a status write (a pipeline stage) moves the prospect's version but not its digest entry, by design: a run afterwards still changes nothing", async () => {
    const barbara = (await leadsOf(stack, ws, PEOPLE_LIST, 'first_name=barbara')).prospects?.[0];
    const staged = await stack.call('PATCH', `/public/prospects/${barbara?.id}/`, { apiKey: ws.key, body: { status: 'INTERESTED' } });
    expect(staged.status, staged.text).toBe(200);
    const before = await scanAll();
    expect(await migrate()).toMatchObject({ lists: 2, listsChanged: 0, membersWritten: 0, membersDeleted: 0, membersUnchanged: 6, digestsRebuilt: 0, leadCountsWritten: 0 });
    expect(await scanAll()).toEqual(before);
  });

  it("a prospect's change that leaves its view in a list as it was (it joined another list) moves its version, not that view's: a run afterwards still changes nothing", async () => {
    const other = await stack.call<{ lead_list: { id: number } }>('POST', '/public/lead-lists/', { apiKey: ws.key, body: { name: 'Second list', search_type: 'PEOPLE' } });
    expect(other.status, other.text).toBe(201);
    const barbara = person(1, { first_name: 'Barbara', last_name: 'Liskov', job_title: 'Professor' });
    expect(await importLeads(stack, ws, other.body.lead_list.id, { leads: [barbara] })).toMatchObject({ updated: 1 });
    const before = await scanAll();
    expect(await migrate()).toMatchObject({ lists: 3, listsChanged: 0, membersWritten: 0, membersDeleted: 0, membersUnchanged: 7, digestsRebuilt: 0, leadCountsWritten: 0 });
    expect(await scanAll()).toEqual(before);
  });

  it('refuses to run while a batch of lead writes is within its lease, and finishes one past it', async () => {
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    await stack.db.send(
      new PutCommand({
        TableName: stack.tableName,
        Item: {
          ...leadJournalKey('live-batch'),
          entityType: 'LeadJournal',
          token: 'live-batch',
          workspaceId: ws.workspaceId,
          searchType: 'COMPANY',
          at: clock.now().toISOString(),
          lists: [COMPANY_LIST],
          reserved: {},
          leads: brotliCompressSync(JSON.stringify({ leadIds: [], created: [] })),
        },
      }),
    );
    await stack.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: leadListKey(ws.workspaceId, COMPANY_LIST),
        UpdateExpression: 'ADD openJournals :token',
        ExpressionAttributeValues: { ':token': new Set(['live-batch']) },
      }),
    );
    const before = await scanAll();
    const run = () => migrateLeadListLayout(stack.db, stack.tableName, { clock });
    const refused = await run().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WritesInProgressError);
    expect((refused as Error).message).toContain(`list ${COMPANY_LIST} (journal live-batch, lease until 2030-01-01T00:02:00.000Z)`);
    expect(await scanAll()).toEqual(before);

    clock.advance(JOURNAL_LEASE_MS + 1);
    expect(await run()).toMatchObject({ journalsSettled: 1, listsChanged: 0, leadCountsWritten: 0 });
    expect(await listItem(COMPANY_LIST)).not.toHaveProperty('openJournals');
    expect((await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: leadJournalKey('live-batch') }))).Item).toBeUndefined();
  });
});
