import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leadListKey, workspaceLeadCountsKey } from '../../../shared/db/keys';
import { JOURNAL_LEASE_MS } from '../../../shared/db/lead-journal';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import type { Prospect } from '../../../shared/domain/leads/lead';
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
 * lead counts, its members' views and digest entries match the leads).
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
});
