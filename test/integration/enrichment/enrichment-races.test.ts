import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoCreditRepository } from '../../../shared/db/credit-repository';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { DynamoLeadListRepository } from '../../../shared/db/lead-list-repository';
import { runningItem } from '../../../shared/db/enrichment-items';
import { enrichmentCompletedKey, enrichmentJobKey, enrichmentJobRunning, enrichmentRunningKey } from '../../../shared/db/keys';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import type { EnrichmentJob } from '../../../shared/domain/enrichment/ports';
import { chunksOf, createEnrichmentService, newJob } from '../../../shared/domain/enrichment/enrichment-service';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { type TestStack, createKey, signUp } from '../../support/test-stack';
import { type Workspace, importLeads, leadsOf } from '../leads/helpers';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { enrichmentHelpers, finding, slowFinding , useEnrichmentStack } from './world';

/**
 * Enrichment's exactness when things go at once or go wrong: starts racing for credits or
 * prospects, redelivered messages, the sweeper, debits sent twice, starts stopped part-way.
 */
describe('enrichment with credits: races, redeliveries and the sweeper', () => {
  const clock = new ManualClock('2026-11-24T09:00:00.000Z');
  let stack: TestStack;
  let alice: Workspace;
  const { grant, credits, enrich, job, peopleList, processorWith, workspaceWith, memberIds, jobBehindTheService } = enrichmentHelpers(() => stack, clock);

  useEnrichmentStack(clock, (world) => {
    ({ stack, alice } = world);
  });

  it('two enrichments racing for the last credits: one wins, the balance is exact', async () => {
    const user = await signUp(stack);
    const racer: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await grant(racer.workspaceId, 10);
    clock.advance(1000);
    const one = await peopleList(racer, 'raceone', { withDomain: 2 });
    const two = await peopleList(racer, 'racetwo', { withDomain: 2 });
    const answers = await Promise.all([enrich(racer, one.id, {}), enrich(racer, two.id, {})]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(answers.find((a) => a.status === 400)?.body).toEqual({ error: 'Insufficient credits', details: '6 credits needed (2 × 3), 4 available' });
    const after = await credits(racer);
    expect(after.balance).toBe(4);
    expect(after.ledger.map((entry) => entry.amount)).toEqual([-6, 10]);
  });

  it('two enrichments of the same list at once never charge for the same prospect twice', async () => {
    const user = await signUp(stack);
    const racer: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await grant(racer.workspaceId, 100);
    clock.advance(1000);
    const list = await peopleList(racer, 'samelist', { withDomain: 3 });
    const answers = await Promise.all([enrich(racer, list.id, {}), enrich(racer, list.id, {})]);
    // The second start waits for the first one's lease, then finds nothing left to enrich.
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => a.body.enriched_count).sort()).toEqual([0, 3]);
    const after = await credits(racer);
    expect(after.ledger.map((entry) => entry.amount)).toEqual([-9, 100]);
    expect(after.balance).toBe(91);
    // The lease is let go: a later start of the list is answered (with nothing left to enrich).
    const again = await enrich(racer, list.id, {});
    expect([again.status, again.body.enriched_count, again.body.credits_deducted]).toEqual([200, 0, 0]);
  });

  it('the same sync enrichment sent three times at once charges once, though each start finds the one before it completed', async () => {
    const user = await signUp(stack);
    const racer: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await grant(racer.workspaceId, 100);
    clock.advance(1000);
    // Not found, and charged (FIND_EMAIL keeps the charge of a search that finds nothing).
    const list = await peopleList(racer, 'syncrepeat', { withDomain: 0, bare: 3 });
    const answers = await Promise.all([1, 2, 3].map(() => enrich(racer, list.id, { mode: 'sync' })));
    // A sync start completes its job before the next one takes the start lease; what that job
    // searched while the others waited is still left out of theirs.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.body.total_count).sort()).toEqual([0, 0, 3]);
    expect(answers.map((a) => a.body.credits_deducted).sort()).toEqual([0, 0, 9]);
    const after = await credits(racer);
    expect(after.ledger.map((entry) => entry.amount)).toEqual([-9, 100]);
    // Asked again once answered, they are searched again (and charged): nothing holds them now.
    clock.advance(1000);
    const again = await enrich(racer, list.id, { mode: 'sync' });
    expect([again.status, again.body.total_count, again.body.credits_deducted]).toEqual([200, 3, 9]);
  });

  it('a redelivered message charges and writes once; the sweeper resumes a job whose messages were lost', async () => {
    const list = await peopleList(alice, 'sweep', { withDomain: 2, bare: 1 });
    const before = (await credits(alice)).balance;
    const started = await enrich(alice, list.id, { enrichment_type: 'FIND_EMAIL_WATERFALL' });
    expect(started.body.credits_deducted).toBe(18);
    // The local runtime restarts: the queue's messages are lost.
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));
    expect(await stack.drain('enrichment')).toBe(0);
    expect((await job(alice, started.body.job_id)).status).toBe('RUNNING');
    // Not yet stale: the sweeper leaves it.
    await stack.runSchedules();
    expect(await stack.drain('enrichment')).toBe(0);
    clock.advance(16 * 60_000);
    await stack.runSchedules();
    // The chunk is sent twice (the sweeper, and a duplicate of it): worked once.
    const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
    await stack.sqs.send(new SendMessageCommand({ QueueUrl: stack.queue('enrichment').queueUrl, MessageBody: JSON.stringify({ j: started.body.job_id, l: list.id, c: 0 }) }));
    expect(await stack.drain('enrichment')).toBe(1); // one batch holds both copies
    const done = await job(alice, started.body.job_id);
    expect(done).toMatchObject({ status: 'COMPLETED', found_count: 2, not_found_count: 1, credits_charged: 18, credits_refunded: 6 });
    expect((await credits(alice)).balance).toBe(before - 12);
    expect((await leadsOf(stack, alice, list.id)).prospects?.map((p) => p.status)).toEqual(['NEW', 'NEW', 'NEW']);
  });

  it('the sweeper completes a job whose chunks were all worked but whose completion did not land (its role may put the completed item)', async () => {
    const list = await peopleList(alice, 'unfinished', { withDomain: 1 });
    await grant(alice.workspaceId, 3);
    const started = await enrich(alice, list.id, {});
    expect(started.status, started.text).toBe(200);
    await stack.drain('enrichment');
    const jobs = new DynamoEnrichmentRepository(stack.db, stack.tableName);
    const finished = (await jobs.getJob(started.body.job_id as number)) as EnrichmentJob;
    expect([finished.status, finished.doneChunks]).toEqual(['COMPLETED', [0]]);
    // The completion transaction undone, as if it had failed after the last chunk was recorded.
    await stack.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: enrichmentJobKey(finished.id),
        UpdateExpression: 'SET #status = :running, gsi2pk = :pk, gsi2sk = :sk REMOVE completedAt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': 'RUNNING', ':pk': enrichmentJobRunning(finished.createdAt, finished.id).gsi2pk, ':sk': enrichmentJobRunning(finished.createdAt, finished.id).gsi2sk },
      }),
    );
    await stack.db.send(new PutCommand({ TableName: stack.tableName, Item: runningItem(finished) }));
    await stack.db.send(new DeleteCommand({ TableName: stack.tableName, Key: enrichmentCompletedKey(finished.workspaceId, finished.completedAt as string, finished.id) }));
    expect((await job(alice, finished.id)).status).toBe('RUNNING');
    clock.advance(16 * 60_000);
    await stack.runSchedules();
    expect((await job(alice, finished.id)).status).toBe('COMPLETED');
  });

  it('a debit whose transaction the SDK sent twice (its answer lost) is one debit, and the start counts as made, not as short of credits', async () => {
    const ws = await workspaceWith(3);
    const list = await peopleList(ws, 'twice', { withDomain: 1 });
    const [prospectId] = await memberIds(ws, list.id);
    // The second send fails: the balance is now below the cost, and the job is there.
    const sentTwice = {
      send: async (command: unknown) => {
        if (!(command instanceof TransactWriteCommand)) return stack.db.send(command as never);
        await stack.db.send(command);
        return stack.db.send(command);
      },
    } as unknown as DynamoDBDocumentClient;
    const jobs = new DynamoEnrichmentRepository(sentTwice, stack.tableName);
    const ids = new DynamoIdAllocator(stack.db, stack.tableName);
    const stamp = clock.now().toISOString();
    const made = newJob({ id: await ids.next(), workspaceId: ws.workspaceId, userId: 0, listId: list.id, type: 'FIND_EMAIL', mode: 'async', selection: [prospectId as number], webhookUrl: null, at: stamp });
    const debit = { id: await ids.next(), workspaceId: ws.workspaceId, kind: 'DEBIT' as const, amount: -3, reason: 'test', jobId: made.id, createdAt: stamp };
    expect(await jobs.createJob(made, debit)).toBe(true);
    const after = await credits(ws);
    expect([after.balance, after.ledger.filter((entry) => entry.type === 'debit').length]).toEqual([0, 1]);
    // Short of credits for real: no job, no debit.
    const short = newJob({ id: await ids.next(), workspaceId: ws.workspaceId, userId: 0, listId: list.id, type: 'FIND_EMAIL', mode: 'async', selection: [prospectId as number], webhookUrl: null, at: stamp });
    expect(await new DynamoEnrichmentRepository(stack.db, stack.tableName).createJob(short, { ...debit, id: await ids.next(), jobId: short.id })).toBe(false);
  });

  it('counts the prospects a job no longer had to search (archived, or given an email meanwhile) as skipped, not failed, and refunds them', async () => {
    const ws = await workspaceWith(30);
    const list = await peopleList(ws, 'skipping', { withDomain: 4 });
    const started = await enrich(ws, list.id, { enrichment_type: 'FIND_EMAIL' });
    expect([started.status, started.body.credits_deducted]).toEqual([200, 12]);
    const ids = ((await leadsOf(stack, ws, list.id)).prospects ?? []).map((p) => p.id as number);
    // Before the worker runs: one prospect archived, one given an email by an import.
    const archived = await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: ws.key, body: { prospect_ids: [ids[0]] } });
    expect(archived.status, archived.text).toBe(200);
    await importLeads(stack, ws, list.id, { leads: [{ first_name: 'Ada1', last_name: 'skipping', network_profile_url: 'https://www.linkedin.com/in/skipping-d1', email: 'given@skipping.example' }] });
    await stack.drain('enrichment');
    expect(await job(ws, started.body.job_id)).toMatchObject({
      status: 'COMPLETED',
      total_count: 4,
      queued_count: 0,
      found_count: 2,
      failed_count: 0,
      skipped_count: 2,
      credits_charged: 12,
      credits_refunded: 6,
    });
    expect((await credits(ws)).balance).toBe(24);
  });

  it('a job whose chunk items were written part-way holds its whole selection: a start meanwhile charges none of it', async () => {
    const ws = await workspaceWith(300);
    const list = await peopleList(ws, 'partway', { withDomain: 51 });
    const ids = ((await leadsOf(stack, ws, list.id, 'page_size=100')).prospects ?? []).map((p) => p.id as number);
    expect(ids.length).toBe(51);
    // Charged for all 51; only its first chunk (50) written before the start stopped.
    const jobId = await jobBehindTheService(ws, list.id, 'FIND_EMAIL', ids, false);
    const jobs = new DynamoEnrichmentRepository(stack.db, stack.tableName);
    const made = (await jobs.getJob(jobId)) as EnrichmentJob;
    await jobs.writeChunks(made, chunksOf(made).slice(0, 1));
    const again = await enrich(ws, list.id, {});
    expect([again.status, again.body.enriched_count, again.body.credits_deducted]).toEqual([200, 0, 0]);
    // A start that wrote all its chunks says so on its running item too: later starts need not read its job.
    const other = await peopleList(ws, 'partway-other', { withDomain: 1 });
    const started = await enrich(ws, other.id, {});
    const running = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: enrichmentRunningKey(ws.workspaceId, started.body.job_id as number), ConsistentRead: true }));
    expect(running.Item?.chunksWritten).toBe(true);
  });

  it("the worker leaves a chunk whose prospects its time could not ask for its message's next delivery, which asks only those", async () => {
    const ws = await workspaceWith(30);
    const list = await peopleList(ws, 'deferred', { withDomain: 5 });
    const started = await enrich(ws, list.id, {});
    expect([started.status, started.body.credits_deducted]).toEqual([200, 15]);
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));
    // 8 s a call, 30 s left, 14 s needed to start one: three are asked, two are not.
    const time = { left: 30_000 };
    const calls: string[] = [];
    const slow = slowFinding('deferred', calls, time);
    const ref = { jobId: started.body.job_id as number, listId: list.id, chunk: 0 };
    const deferred: unknown[] = [];
    const first = await processorWith(slow).processChunks([ref], () => time.left, (later) => deferred.push(later));
    expect([calls, deferred, first.size]).toEqual([['Ada0', 'Ada1', 'Ada2'], [ref], 0]);
    // Nothing resolved or refunded; the three found are written.
    expect(await job(ws, started.body.job_id)).toMatchObject({ status: 'RUNNING', found_count: 0, failed_count: 0, credits_refunded: 0 });
    expect(((await leadsOf(stack, ws, list.id)).prospects ?? []).map((p) => p.email)).toEqual(['ada0@deferred.example', 'ada1@deferred.example', 'ada2@deferred.example', '', '']);
    // The next delivery, with its time: the two left are asked, the three written are taken from their marks.
    const second = await processorWith(slow).processChunks([ref], () => 120_000, (later) => deferred.push(later));
    expect([calls, deferred.length, second.get(`${ref.jobId}:0`)?.map((r) => r.outcome)]).toEqual([
      ['Ada0', 'Ada1', 'Ada2', 'Ada3', 'Ada4'],
      1,
      ['found', 'found', 'found', 'found', 'found'],
    ]);
    expect(await job(ws, started.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 5, failed_count: 0, credits_charged: 15, credits_refunded: 0 });
  });

  it('a job whose chunks are finished but which has not completed yet still holds them: a start meanwhile charges none of them', async () => {
    const ws = await workspaceWith(30);
    const list = await peopleList(ws, 'finishing', { withDomain: 0, bare: 2 });
    const started = await enrich(ws, list.id, {});
    expect([started.status, started.body.enriched_count, started.body.credits_deducted]).toEqual([200, 2, 6]);
    await stack.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.queue('enrichment').queueUrl }));
    // The worker resolves and finishes the job's one chunk (its item deleted), and stops before
    // the job's completion (a crash, or a start reading in between).
    class StopsBeforeCompletion extends DynamoEnrichmentRepository {
      override async complete(): Promise<boolean> {
        throw new Error('the function timed out');
      }
    }
    const ref = { jobId: started.body.job_id as number, listId: list.id, chunk: 0 };
    await expect(processorWith(finding('finishing', []), new StopsBeforeCompletion(stack.db, stack.tableName)).processChunks([ref])).rejects.toThrow('the function timed out');
    expect(await job(ws, started.body.job_id)).toMatchObject({ status: 'RUNNING', not_found_count: 2 });
    // The list shows them as done (their chunk is): only a selection holds them.
    expect(((await leadsOf(stack, ws, list.id)).prospects ?? []).map((p) => p.status)).toEqual(['NEW', 'NEW']);
    const again = await enrich(ws, list.id, {});
    expect([again.status, again.body.enriched_count, again.body.credits_deducted]).toEqual([200, 0, 0]);
    // A running item written before it said how many chunks (no `chunks`): its job is read.
    await stack.db.send(new UpdateCommand({ TableName: stack.tableName, Key: enrichmentRunningKey(ws.workspaceId, started.body.job_id as number), UpdateExpression: 'REMOVE chunks' }));
    const older = await enrich(ws, list.id, {});
    expect([older.status, older.body.enriched_count, older.body.credits_deducted]).toEqual([200, 0, 0]);
    // One whose update failed (it does not say chunksWritten, the job does): its job is read too.
    await stack.db.send(new UpdateCommand({ TableName: stack.tableName, Key: enrichmentRunningKey(ws.workspaceId, started.body.job_id as number), UpdateExpression: 'REMOVE chunksWritten' }));
    const unsaid = await enrich(ws, list.id, {});
    expect([unsaid.status, unsaid.body.enriched_count, unsaid.body.credits_deducted]).toEqual([200, 0, 0]);
    expect((await credits(ws)).balance).toBe(24);
  });

  it('a start that was charged answers with its job whatever fails after the charge; the sweeper carries the job on', async () => {
    const ws = await workspaceWith(6);
    const list = await peopleList(ws, 'charged', { withDomain: 2 });
    const leads = new DynamoLeadRepository(stack.db, stack.tableName, clock);
    // Its chunks cannot be written (DynamoDB failing just after the debit's transaction).
    class ChunksFail extends DynamoEnrichmentRepository {
      override async writeChunks(): Promise<void> {
        throw new Error('ProvisionedThroughputExceededException');
      }
    }
    const failures: [number, string][] = [];
    const queued: unknown[] = [];
    const service = createEnrichmentService({
      lists: new DynamoLeadListRepository(stack.db, stack.tableName, leads.members, leads.journal),
      members: { entries: async (listId) => [...(await leads.members.readDigest(listId)).values()].flatMap((stored) => [...stored.chunk.entries.values()]) },
      credits: new DynamoCreditRepository(stack.db, stack.tableName),
      jobs: new ChunksFail(stack.db, stack.tableName),
      queue: { send: async (refs) => void queued.push(...refs) },
      processor: processorWith(finding('x', [])),
      checkWebhookUrl: (url) => ({ ok: true, url }),
      ids: new DynamoIdAllocator(stack.db, stack.tableName),
      clock,
      onAfterCharge: (jobId, error) => failures.push([jobId, String(error)]),
    });
    const started = await service.start({ workspaceId: ws.workspaceId, userId: 1 }, list.id, { enrichmentType: 'FIND_EMAIL' });
    expect([started.job?.status, started.selected, started.creditsDeducted, started.remaining, queued]).toEqual(['RUNNING', 2, 6, 0, []]);
    expect(failures).toEqual([[started.job?.id, 'Error: ProvisionedThroughputExceededException']]);
    // The sweeper writes its chunks once it has been still for 15 minutes, and the workers finish it.
    clock.advance(16 * 60_000);
    await stack.runSchedules();
    await stack.drain('enrichment');
    expect(await job(ws, started.job?.id)).toMatchObject({ status: 'COMPLETED', credits_charged: 6 });
    expect((await credits(ws)).ledger.filter((entry) => entry.type === 'debit').map((entry) => entry.amount)).toEqual([-6]);
  });

  it('a start whose balance cannot be read after the charge answers remaining from the balance before it and its refunds', async () => {
    const ws = await workspaceWith(20);
    // The waterfall charges 6 a prospect and refunds one not found: one the finder finds, one
    // without a company website (refunded).
    const list = await peopleList(ws, 'unread', { withDomain: 1, bare: 1 });
    const leads = new DynamoLeadRepository(stack.db, stack.tableName, clock);
    // The balance reads once (before the charge), then fails for good.
    class BalanceFailsAfterCharge extends DynamoCreditRepository {
      reads = 0;
      override async balance(workspaceId: number): Promise<number> {
        this.reads += 1;
        if (this.reads > 1) throw new Error('ProvisionedThroughputExceededException');
        return super.balance(workspaceId);
      }
    }
    const creditsRepository = new BalanceFailsAfterCharge(stack.db, stack.tableName);
    const service = createEnrichmentService({
      lists: new DynamoLeadListRepository(stack.db, stack.tableName, leads.members, leads.journal),
      members: { entries: async (listId) => [...(await leads.members.readDigest(listId)).values()].flatMap((stored) => [...stored.chunk.entries.values()]) },
      credits: creditsRepository,
      jobs: new DynamoEnrichmentRepository(stack.db, stack.tableName),
      queue: { send: async () => {} },
      processor: processorWith(finding('unread', [])),
      checkWebhookUrl: (url) => ({ ok: true, url }),
      ids: new DynamoIdAllocator(stack.db, stack.tableName),
      clock,
    });
    const started = await service.start({ workspaceId: ws.workspaceId, userId: 1 }, list.id, { enrichmentType: 'FIND_EMAIL_WATERFALL', mode: 'sync' });
    expect([started.selected, started.creditsDeducted, started.remaining, creditsRepository.reads]).toEqual([2, 6, 14, 3]);
    expect((await credits(ws)).balance).toBe(14);
  });

});
