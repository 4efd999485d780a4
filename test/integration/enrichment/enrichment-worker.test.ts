import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { enrichmentRunningKey } from '../../../shared/db/keys';
import type { Finder } from '../../../shared/domain/enrichment/enrichment';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, createList, importLeads, leadsOf } from '../leads/helpers';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { enrichmentHelpers, finding, slowFinding , useEnrichmentStack } from './world';

/**
 * The enrichment worker: prospects and companies changing while the providers are asked, groups of
 * chunks, the function's time, prospects held by another job, deliveries failing after their writes.
 */
describe('enrichment with credits: the worker', () => {
  const clock = new ManualClock('2026-11-24T09:00:00.000Z');
  let stack: TestStack;
  let alice: Workspace;
  const { grant, credits, enrich, count, job, peopleList, processorWith, workspaceWith, runningJobItems, memberIds, jobBehindTheService } = enrichmentHelpers(() => stack, clock);

  useEnrichmentStack(clock, (world) => {
    ({ stack, alice } = world);
  });

  it('a prospect that changes while the providers are asked gets its email on its new version', async () => {
    const list = await peopleList(alice, 'moving', { withDomain: 2 });
    await grant(alice.workspaceId, 6);
    const started = await enrich(alice, list.id, {});
    expect(started.body.enriched_count).toBe(2);
    // The chunk is worked here, with a finder that changes Ada0 (a re-import with a new title)
    // after the worker claimed it and before its email is written.
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));
    let changed = false;
    const calls: string[] = [];
    // Called during the first search, Ada0's (the finder asks one prospect at a time, in id order).
    const change = async () => {
      changed = true;
      const reimport = await importLeads(stack, alice, list.id, {
        leads: [{ first_name: 'Ada0', last_name: 'moving', network_profile_url: 'https://www.linkedin.com/in/moving-d0', job_title: 'Chief Mover', company_name: 'Acme moving', company_website_url: 'https://www.moving.example' }],
      });
      expect(reimport.updated).toBe(1);
    };
    await processorWith(finding('moving', calls, change)).processChunks([{ jobId: started.body.job_id as number, listId: list.id, chunk: 0 }]);
    expect(changed).toBe(true);
    const page = await leadsOf(stack, alice, list.id);
    expect(page.prospects?.map((p) => [p.first_name, p.email, p.job_title, p.status])).toEqual([
      ['Ada0', 'ada0@moving.example', 'Chief Mover', 'NEW'],
      ['Ada1', 'ada1@moving.example', '', 'NEW'],
    ]);
    expect(await job(alice, started.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 2, credits_charged: 6, credits_refunded: 0 });
  });

  it('a company renamed while the providers are asked: the list shows the found emails with the new name', async () => {
    const list = await peopleList(alice, 'renamed', { withDomain: 2 });
    await grant(alice.workspaceId, 6);
    const started = await enrich(alice, list.id, {});
    expect(started.body.enriched_count).toBe(2);
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));
    // The company is renamed (an import into a COMPANY list) after the worker read it for the
    // search: its member sync moves both prospects, so the first write is refused and the second
    // derives the views from the company read again.
    const companies = await createList(stack, alice, 'renamed companies', 'COMPANY');
    const calls: string[] = [];
    const rename = async () => {
      const reimport = await importLeads(stack, alice, companies.id, { leads: [{ name: 'Acme Renamed', website_url: 'https://www.renamed.example' }] });
      expect(reimport.updated).toBe(1);
    };
    await processorWith(finding('renamed', calls, rename)).processChunks([{ jobId: started.body.job_id as number, listId: list.id, chunk: 0 }]);
    expect(calls).toEqual(['Ada0', 'Ada1']);
    const page = await leadsOf(stack, alice, list.id);
    expect(page.prospects?.map((p) => [p.first_name, p.email, (p.company as { name: string } | null)?.name, p.status])).toEqual([
      ['Ada0', 'ada0@renamed.example', 'Acme Renamed', 'NEW'],
      ['Ada1', 'ada1@renamed.example', 'Acme Renamed', 'NEW'],
    ]);
    expect(await job(alice, started.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 2, credits_charged: 6, credits_refunded: 0 });
  });

  it('a delivery of six chunks is searched and written in two groups; an email the first group found is a duplicate in the second', async () => {
    const ws = await workspaceWith(900);
    const list = await peopleList(ws, 'groups', { withDomain: 300 });
    const started = await enrich(ws, list.id, { prospect_limit: 300 });
    expect(started.body).toMatchObject({ enriched_count: 300, credits_deducted: 900 });
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));
    // The first prospect asked about and the last (in the second group) are given the same email.
    const calls: string[] = [];
    const finder: Finder = {
      name: 'groups-finder',
      async find(input) {
        calls.push(input.firstName);
        const value = calls.length === 1 || calls.length === 300 ? 'shared@groups.example' : `${input.firstName.toLowerCase()}@groups.example`;
        return { kind: 'found', value, verification: 'verified' };
      },
    };
    const refs = Array.from({ length: 6 }, (_, chunk) => ({ jobId: started.body.job_id as number, listId: list.id, chunk }));
    const results = await processorWith(finder).processChunks(refs);
    expect(calls.length).toBe(300);
    const all = refs.flatMap((ref) => results.get(`${ref.jobId}:${ref.chunk}`) ?? []);
    const first = all.find((r) => r.firstName === calls[0]);
    const last = all.find((r) => r.firstName === calls[299]);
    expect([first?.outcome, first?.value]).toEqual(['found', 'shared@groups.example']);
    expect([last?.outcome, last?.duplicateOf]).toEqual(['duplicate', first?.prospectId]);
    expect(all.filter((r) => r.outcome === 'found').length).toBe(299);
    expect(await job(ws, started.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 299, duplicate_count: 1, credits_charged: 900, credits_refunded: 0 });
    const prospect = async (id: unknown) => (await stack.call<{ prospect: Record<string, unknown> }>('GET', `/public/prospects/${id}/`, { apiKey: ws.key })).body.prospect;
    expect((await prospect(first?.prospectId)).email).toBe('shared@groups.example');
    expect((await prospect(last?.prospectId)).email).toBe('');
  });

  it("starts no provider call the function's time cannot hold: a prospect not asked in time is failed and refunded, the job completes", async () => {
    const ws = await workspaceWith(30);
    const list = await peopleList(ws, 'in-time', { withDomain: 5 });
    const started = await enrich(ws, list.id, { enrichment_type: 'FIND_EMAIL_WATERFALL' });
    expect([started.status, started.body.credits_deducted]).toEqual([200, 30]);
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));
    // Each call takes 8 s of the function's time; 30 s are left and a call needs 14 s (processorWith):
    // calls start at 30, 22 and 14 s left, none after.
    const time = { left: 30_000 };
    const calls: string[] = [];
    const slow = slowFinding('in-time', calls, time);
    const ref = { jobId: started.body.job_id as number, listId: list.id, chunk: 0 };
    const results = await processorWith(slow).processChunks([ref], () => time.left);
    expect(calls).toEqual(['Ada0', 'Ada1', 'Ada2']);
    expect(results.get(`${ref.jobId}:0`)?.map((r) => [r.firstName, r.outcome])).toEqual([
      ['Ada0', 'found'],
      ['Ada1', 'found'],
      ['Ada2', 'found'],
      ['Ada3', 'failed'],
      ['Ada4', 'failed'],
    ]);
    expect(await job(ws, started.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 3, failed_count: 2, credits_charged: 30, credits_refunded: 12 });
    expect((await credits(ws)).balance).toBe(12);
  });

  it('a prospect being enriched from one list is neither counted, selected nor shown otherwise from another list', async () => {
    const ws = await workspaceWith(12);
    const first = await peopleList(ws, 'held-a', { withDomain: 1, bare: 1 }, 'held');
    const second = await createList(stack, ws, 'held-b');
    await importLeads(stack, ws, second.id, {
      leads: [
        { first_name: 'Ada0', last_name: 'held', network_profile_url: 'https://www.linkedin.com/in/held-d0' },
        { first_name: 'Bo0', last_name: 'held', network_profile_url: 'https://www.linkedin.com/in/held-b0' },
      ],
    });
    const started = await enrich(ws, first.id, {});
    expect([started.body.enriched_count, started.body.credits_deducted]).toEqual([2, 6]);

    // While it runs, the other list neither counts nor selects them, and shows them 'Loading…'; so does the prospect itself.
    expect((await count(ws, second.id)).body).toMatchObject({ unenriched_count: 0, total_cost: 0 });
    // Held for their email only: a phone search may count (and take) them meanwhile.
    expect((await count(ws, second.id, 'enrichment_type=FIND_PHONE')).body).toMatchObject({ unenriched_count: 2 });
    const other = await enrich(ws, second.id, {});
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ enriched_count: 0, credits_deducted: 0, remaining_credits: 6, job_id: null });
    const page = await leadsOf(stack, ws, second.id);
    expect(page.prospects?.map((p) => [p.first_name, p.status])).toEqual([
      ['Ada0', 'Loading…'],
      ['Bo0', 'Loading…'],
    ]);
    const ada = page.prospects?.find((p) => p.first_name === 'Ada0')?.id;
    const single = await stack.call<{ prospect: Record<string, unknown> }>('GET', `/public/prospects/${ada}/`, { apiKey: ws.key });
    expect(single.body.prospect.status).toBe('Loading…');
    // A pipeline stage set meanwhile is answered as GET shows it, 'Loading…', and shows once the job lets go.
    const bo = page.prospects?.find((p) => p.first_name === 'Bo0')?.id;
    const staged = await stack.call<{ prospect: Record<string, unknown> }>('PATCH', `/public/prospects/${bo}/`, { apiKey: ws.key, body: { status: 'INTERESTED' } });
    expect([staged.status, staged.body.prospect.status]).toEqual([200, 'Loading…']);

    await stack.drain('enrichment');
    expect(await job(ws, started.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 1, not_found_count: 1 });
    // Done: its own status again everywhere, and counted again where it still lacks an email.
    expect((await leadsOf(stack, ws, second.id)).prospects?.map((p) => [p.first_name, p.status])).toEqual([
      ['Ada0', 'NEW'],
      ['Bo0', 'INTERESTED'],
    ]);
    expect((await stack.call<{ prospect: Record<string, unknown> }>('GET', `/public/prospects/${ada}/`, { apiKey: ws.key })).body.prospect.status).toBe('NEW');
    expect((await count(ws, second.id)).body).toMatchObject({ unenriched_count: 1 });
    expect((await credits(ws)).balance).toBe(6);
    // The job's running-job item went with its completion.
    expect(await runningJobItems(ws)).toEqual([]);
  });

  it('a start that stopped between its debit and its chunk items still holds its selection in every list', async () => {
    const ws = await workspaceWith(6);
    const list = await peopleList(ws, 'nochunks', { withDomain: 2 });
    await jobBehindTheService(ws, list.id, 'FIND_EMAIL', await memberIds(ws, list.id), false);
    expect((await count(ws, list.id)).body).toMatchObject({ unenriched_count: 0 });
    expect((await leadsOf(stack, ws, list.id)).prospects?.map((p) => p.status)).toEqual(['Loading…', 'Loading…']);
  });

  it('a job started before the running-job items existed still holds its prospects in its own list', async () => {
    const ws = await workspaceWith(6);
    const list = await peopleList(ws, 'legacyhold', { withDomain: 2 });
    const started = await enrich(ws, list.id, {});
    expect(started.body.enriched_count).toBe(2);
    // As a job of the layout before: chunk items in its list, no running-job item.
    expect(await runningJobItems(ws)).toEqual([{ pk: `WORKSPACE#${String(ws.workspaceId).padStart(16, '0')}#ENRICHING`, sk: `JOB#${String(started.body.job_id).padStart(16, '0')}` }]);
    await stack.db.send(new DeleteCommand({ TableName: stack.tableName, Key: enrichmentRunningKey(ws.workspaceId, started.body.job_id as number) }));
    expect((await leadsOf(stack, ws, list.id)).prospects?.map((p) => p.status)).toEqual(['Loading…', 'Loading…']);
    expect((await count(ws, list.id)).body).toMatchObject({ unenriched_count: 0 });
    await stack.drain('enrichment');
    expect(await job(ws, started.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 2 });
  });

  it('two jobs holding one prospect at once (a start cannot make that any more; the worker still copes): the first write charges, the other skips and refunds', async () => {
    const ws = await workspaceWith(12);
    const first = await peopleList(ws, 'twolists-a', { withDomain: 1, bare: 1 }, 'twolists');
    const second = await createList(stack, ws, 'twolists-b');
    const again = await importLeads(stack, ws, second.id, {
      leads: [
        { first_name: 'Ada0', last_name: 'twolists', network_profile_url: 'https://www.linkedin.com/in/twolists-d0' },
        { first_name: 'Bo0', last_name: 'twolists', network_profile_url: 'https://www.linkedin.com/in/twolists-b0' },
      ],
    });
    expect(again.updated).toBe(2);
    const jobA = await enrich(ws, first.id, {});
    expect([jobA.body.credits_deducted, jobA.body.remaining_credits]).toEqual([6, 6]);
    // Job B is started while job A runs, without the service's check of the prospects A holds, as
    // a job started before that check existed could be.
    const jobB = { body: { job_id: await jobBehindTheService(ws, second.id, 'FIND_EMAIL', await memberIds(ws, second.id)) } };
    expect((await credits(ws)).balance).toBe(0);
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));

    // Job B reads both prospects and asks its finder; while it asks, job A works its chunk whole.
    const callsA: string[] = [];
    const callsB: string[] = [];
    const processorA = processorWith(finding('a', callsA));
    const processorB = processorWith(
      finding('b', callsB, async () => {
        await processorA.processChunks([{ jobId: jobA.body.job_id as number, listId: first.id, chunk: 0 }]);
      }),
    );
    await processorB.processChunks([{ jobId: jobB.body.job_id as number, listId: second.id, chunk: 0 }]);
    expect([callsA, callsB]).toEqual([
      ['Ada0', 'Bo0'],
      ['Ada0', 'Bo0'],
    ]);
    // A wrote first: Ada0 has A's email, Bo0 A's charge for a search; B's writes met A's marks.
    expect((await leadsOf(stack, ws, second.id)).prospects?.map((p) => [p.first_name, p.email, p.status])).toEqual([
      ['Ada0', 'ada0@a.example', 'NEW'],
      ['Bo0', '', 'NEW'],
    ]);
    expect(await job(ws, jobA.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 1, not_found_count: 1, credits_charged: 6, credits_refunded: 0 });
    expect(await job(ws, jobB.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 0, not_found_count: 0, credits_charged: 6, credits_refunded: 6 });
    const after = await credits(ws);
    // Same instant (the clock stands still): the ledger's order among them is its ids'.
    expect(after.ledger.map((entry) => entry.amount).sort((a, b) => Number(a) - Number(b))).toEqual([-6, -6, 6, 12]);
    expect(after.balance).toBe(6);
  });

  it('an email job’s mark does not make a phone job running at the same time skip the prospect', async () => {
    const ws = await workspaceWith(33);
    const emails = await peopleList(ws, 'fields-a', { withDomain: 1 }, 'fields');
    const phones = await createList(stack, ws, 'fields-b');
    const added = await importLeads(stack, ws, phones.id, { leads: [{ first_name: 'Ada0', last_name: 'fields', network_profile_url: 'https://www.linkedin.com/in/fields-d0' }] });
    expect(added.updated).toBe(1);
    const emailJob = await enrich(ws, emails.id, {});
    const phoneJob = await enrich(ws, phones.id, { enrichment_type: 'FIND_PHONE' });
    expect([emailJob.body.credits_deducted, phoneJob.body.credits_deducted]).toEqual([3, 30]);
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));

    // The phone job asks while the email job works its chunk whole.
    const emailCalls: string[] = [];
    const phoneCalls: string[] = [];
    const emailProcessor = processorWith(finding('mail', emailCalls));
    const phoneFinder: Finder = {
      name: 'phone-finder',
      async find(input) {
        phoneCalls.push(input.firstName);
        await emailProcessor.processChunks([{ jobId: emailJob.body.job_id as number, listId: emails.id, chunk: 0 }]);
        return { kind: 'found', value: '+44 20 7946 0001', verification: 'verified' };
      },
    };
    await processorWith(phoneFinder).processChunks([{ jobId: phoneJob.body.job_id as number, listId: phones.id, chunk: 0 }]);
    expect([emailCalls, phoneCalls]).toEqual([['Ada0'], ['Ada0']]);
    expect((await leadsOf(stack, ws, phones.id)).prospects?.map((p) => [p.email, p.phone_number])).toEqual([['ada0@mail.example', '+44 20 7946 0001']]);
    expect(await job(ws, emailJob.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 1, credits_refunded: 0 });
    expect(await job(ws, phoneJob.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 1, credits_refunded: 0 });
    expect((await credits(ws)).balance).toBe(0);
  });

  it('a delivery that wrote its outcomes and failed before recording them is done again from its marks, without asking the providers twice', async () => {
    const ws = await workspaceWith(9);
    const list = await peopleList(ws, 'crashed', { withDomain: 1, bare: 1 });
    // A twin whose email, once found, is the one another prospect of the workspace has: a duplicate.
    await importLeads(stack, ws, list.id, {
      leads: [
        { first_name: 'Cy0', last_name: 'owner', network_profile_url: 'https://www.linkedin.com/in/crashed-owner', email: 'cy0@crash.example' },
        { first_name: 'Cy0', last_name: 'twin', network_profile_url: 'https://www.linkedin.com/in/crashed-twin', company_name: 'Acme crashed', company_website_url: 'https://www.crashed.example' },
      ],
    });
    const started = await enrich(ws, list.id, {});
    expect(started.body.credits_deducted).toBe(9);
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));

    class CrashingOnce extends DynamoEnrichmentRepository {
      crashed = false;
      override async resolve(...args: Parameters<DynamoEnrichmentRepository['resolve']>): Promise<boolean> {
        if (!this.crashed) {
          this.crashed = true;
          throw new Error('the function timed out');
        }
        return super.resolve(...args);
      }
    }
    const calls: string[] = [];
    const processor = processorWith(finding('crash', calls), new CrashingOnce(stack.db, stack.tableName));
    const ref = { jobId: started.body.job_id as number, listId: list.id, chunk: 0 };
    await expect(processor.processChunks([ref])).rejects.toThrow('the function timed out');
    // Written, not recorded: the email is there, the job still runs.
    const written = (await leadsOf(stack, ws, list.id)).prospects ?? [];
    expect(written.map((p) => p.email)).toEqual(['ada0@crash.example', '', 'cy0@crash.example', '']);
    const owner = written[2]?.id;
    expect((await job(ws, started.body.job_id)).status).toBe('RUNNING');

    // The message comes back a minute later: the outcomes are read from the marks the first delivery left.
    clock.advance(60_000);
    const results = await processor.processChunks([ref]);
    expect(calls).toEqual(['Ada0', 'Bo0', 'Cy0']);
    expect(results.get(`${ref.jobId}:0`)?.map((r) => [r.firstName, r.outcome, r.value ?? null, r.duplicateOf ?? null])).toEqual([
      ['Ada0', 'found', 'ada0@crash.example', null],
      ['Bo0', 'not_found', null, null],
      ['Cy0', 'duplicate', 'cy0@crash.example', owner],
    ]);
    expect(await job(ws, started.body.job_id)).toMatchObject({
      status: 'COMPLETED',
      found_count: 1,
      not_found_count: 1,
      duplicate_count: 1,
      credits_charged: 9,
      credits_refunded: 0,
    });
    expect((await credits(ws)).balance).toBe(0);
    // The redelivery wrote nothing again: the views are as the first delivery left them, company included.
    const after = (await leadsOf(stack, ws, list.id)).prospects ?? [];
    expect(after.map((p) => [p.first_name, p.email, (p.company as { name: string } | null)?.name ?? null, p.updated_at])).toEqual(
      written.map((p) => [p.first_name, p.email, (p.company as { name: string } | null)?.name ?? null, p.updated_at]),
    );
    expect(after.map((p) => (p.company as { name: string } | null)?.name ?? null)).toEqual(['Acme crashed', null, null, 'Acme crashed']);
  });

});
