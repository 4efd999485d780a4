import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCreditRepository } from '../../../shared/db/credit-repository';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { DynamoLeadListRepository } from '../../../shared/db/lead-list-repository';
import { runningItem } from '../../../shared/db/enrichment-items';
import { enrichmentCompletedKey, enrichmentJobKey, enrichmentJobRunning, enrichmentRunningKey } from '../../../shared/db/keys';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import type { Finder } from '../../../shared/domain/enrichment/enrichment';
import type { EnrichmentJob } from '../../../shared/domain/enrichment/ports';
import { createEnrichmentProcessor } from '../../../shared/domain/enrichment/processor';
import { chunksOf, createEnrichmentService, newJob } from '../../../shared/domain/enrichment/enrichment-service';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { createCreditService } from '../../../shared/domain/credits/credits';
import { ManualClock } from '../../../shared/time/clock';
import { type Receiver, startReceiver } from '../../support/receiver';
import { type TestStack, createKey, signUp } from '../../support/test-stack';
import { type Workspace, createList, importLeads, leadsOf, leadsStack } from '../leads/helpers';

/**
 * Enrichment over real HTTP: DynamoDB Local, the SQS emulator, the sandbox enrichment providers
 * (Hunter, Prospeo and Lusha protocols) and the user-webhook worker for the completion event.
 */
describe('enrichment with credits', () => {
  const clock = new ManualClock('2026-11-24T09:00:00.000Z');
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;
  let receiver: Receiver;

  const grant = async (workspaceId: number, amount: number) => {
    const service = createCreditService({ credits: new DynamoCreditRepository(stack.db, stack.tableName), ids: new DynamoIdAllocator(stack.db, stack.tableName), clock });
    await service.grant(workspaceId, amount, 'test grant');
  };
  const credits = async (ws: Workspace) => (await stack.call<{ balance: number; ledger: Record<string, unknown>[] }>('GET', '/public/credits/', { apiKey: ws.key })).body;
  const enrich = (ws: Workspace, listId: number, body: Record<string, unknown>) =>
    stack.call<Record<string, unknown>>('POST', `/public/lead-lists/${listId}/enrichment/`, { apiKey: ws.key, body });
  const count = (ws: Workspace, listId: number, query = '') =>
    stack.call<Record<string, unknown>>('GET', `/public/lead-lists/${listId}/enrichment/count/${query ? `?${query}` : ''}`, { apiKey: ws.key });
  const job = async (ws: Workspace, id: unknown) => (await stack.call<{ job: Record<string, unknown> }>('GET', `/public/enrichment-jobs/${id}/`, { apiKey: ws.key })).body.job;
  const rule = (body: Record<string, unknown>) =>
    fetch(`${stack.enrichment.url}/_sandbox/enrichment/rules`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  /** A list of people: `withDomain` have a company website, `bare` have none, `emailed` already have an email. */
  async function peopleList(ws: Workspace, name: string, counts: { withDomain: number; bare?: number; emailed?: number }, tag = name) {
    const list = await createList(stack, ws, name);
    const rows: Record<string, unknown>[] = [];
    for (let i = 0; i < counts.withDomain; i += 1) {
      rows.push({ first_name: `Ada${i}`, last_name: `${tag}`, network_profile_url: `https://www.linkedin.com/in/${tag}-d${i}`, company_name: `Acme ${tag}`, company_website_url: `https://www.${tag}.example` });
    }
    for (let i = 0; i < (counts.bare ?? 0); i += 1) rows.push({ first_name: `Bo${i}`, last_name: `${tag}`, network_profile_url: `https://www.linkedin.com/in/${tag}-b${i}` });
    for (let i = 0; i < (counts.emailed ?? 0); i += 1) {
      rows.push({ first_name: `Cy${i}`, last_name: `${tag}`, network_profile_url: `https://www.linkedin.com/in/${tag}-e${i}`, email: `cy${i}@${tag}.example` });
    }
    await importLeads(stack, ws, list.id, { leads: rows });
    return list;
  }

  /** A processor of this stack's table with its own finder (and jobs, to break them). */
  const processorWith = (finder: Finder, jobs: DynamoEnrichmentRepository = new DynamoEnrichmentRepository(stack.db, stack.tableName)) =>
    createEnrichmentProcessor({
      jobs,
      leads: new DynamoLeadRepository(stack.db, stack.tableName, clock),
      finders: { email: [finder], phone: finder },
      ids: new DynamoIdAllocator(stack.db, stack.tableName),
      clock,
      notifier: { jobCompleted: async () => {} },
      maxLeadsPerList: 10_000,
      concurrency: 1,
      callReserveMs: 14_000,
    });
  /** Finds `<first>@<suffix>` for a prospect of a company with a website, nothing for one without. */
  const finding = (suffix: string, calls: string[], during?: () => Promise<void>): Finder => ({
    name: `finder-${suffix}`,
    async find(input) {
      calls.push(input.firstName);
      if (during && calls.length === 1) await during();
      return input.domain ? { kind: 'found', value: `${input.firstName.toLowerCase()}@${suffix}.example`, verification: 'verified' } : { kind: 'not_found' };
    },
  });
  /** A finder whose every call takes 8 s of a function's time (`time.left`), finding `<first>@<suffix>.example`. */
  const slowFinding = (suffix: string, calls: string[], time: { left: number }): Finder => ({
    name: 'slow-finder',
    async find(input) {
      calls.push(input.firstName);
      time.left -= 8_000;
      return { kind: 'found', value: `${input.firstName.toLowerCase()}@${suffix}.example`, verification: 'verified' };
    },
  });
  /** A workspace of its own with this many credits, a second after the last one (ledger order). */
  async function workspaceWith(creditsGranted: number): Promise<Workspace> {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await grant(ws.workspaceId, creditsGranted);
    clock.advance(1000);
    return ws;
  }

  /** The keys of the workspace's running-job items. */
  const runningJobItems = async (ws: Workspace) =>
    (
      await stack.db.send(
        new QueryCommand({
          TableName: stack.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': enrichmentRunningKey(ws.workspaceId, 0).pk },
          ProjectionExpression: 'pk, sk',
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  const memberIds = async (ws: Workspace, listId: number) => ((await leadsOf(stack, ws, listId)).prospects ?? []).map((p) => p.id as number);
  /** A job made straight in the table (debit, job, chunk items), as the service would, minus its choice. */
  async function jobBehindTheService(ws: Workspace, listId: number, type: 'FIND_EMAIL', prospectIds: number[], chunks = true): Promise<number> {
    const jobs = new DynamoEnrichmentRepository(stack.db, stack.tableName);
    const ids = new DynamoIdAllocator(stack.db, stack.tableName);
    const stamp = clock.now().toISOString();
    const job = { ...newJob({ id: await ids.next(), workspaceId: ws.workspaceId, userId: 0, listId, type, mode: 'async', selection: prospectIds, webhookUrl: null, at: stamp }), chunksWritten: chunks };
    const cost = job.charged;
    const debit = { id: await ids.next(), workspaceId: ws.workspaceId, kind: 'DEBIT' as const, amount: -cost, reason: 'test', jobId: job.id, createdAt: stamp };
    expect(await jobs.createJob(job, debit)).toBe(true);
    if (chunks) await jobs.writeChunks(job, chunksOf(job));
    return job.id;
  }

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack({ clock, settings: { webhookRetrySchedule: [0, 0], webhookTimeoutMs: 2000 } }));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (process.env.SHOW_LOGS) for (const line of stack.logs.filter((l) => l.includes('"level":"ERROR"') || l.includes('"level":"WARN"'))) console.log(line.slice(0, 1500));
    await receiver?.stop();
    await stack?.stop();
  });

  it('starts a workspace with 0 credits; a grant shows in the balance and the ledger', async () => {
    expect(await credits(bob)).toEqual({ success: true, balance: 0, ledger: [], next_cursor: null });
    await grant(bob.workspaceId, 40);
    const after = await credits(bob);
    expect(after.balance).toBe(40);
    expect(after.ledger).toEqual([{ id: expect.any(Number), type: 'grant', amount: 40, reason: 'test grant', job_id: null, created_at: '2026-11-24T09:00:00.000Z' }]);
  });

  it('counts prospects without an email, with filters, and answers the spec errors', async () => {
    await grant(alice.workspaceId, 100);
    const list = await peopleList(alice, 'countlist', { withDomain: 3, bare: 2, emailed: 2 });
    expect((await count(alice, list.id)).body).toEqual({
      success: true,
      enrichment_type: 'FIND_EMAIL',
      unenriched_count: 5,
      cost_per_lead: 3,
      total_cost: 15,
      available_credits: 100,
      has_enough_credits: true,
    });
    expect((await count(alice, list.id, 'enrichment_type=FIND_PHONE&company_name=acme')).body).toMatchObject({ unenriched_count: 3, cost_per_lead: 30, total_cost: 90, has_enough_credits: true });
    expect((await count(alice, list.id, 'enrichment_type=FIND_PHONE')).body).toMatchObject({ unenriched_count: 7, total_cost: 210, has_enough_credits: false });
    // The three values exactly as the contract spells them (as search_type is).
    for (const type of ['FIND_FAX', 'find_email', ' FIND_EMAIL']) {
      const bad = await count(alice, list.id, `enrichment_type=${encodeURIComponent(type)}`);
      expect([bad.status, bad.body], type).toEqual([400, { error: 'enrichment_type must be FIND_EMAIL, FIND_EMAIL_WATERFALL, or FIND_PHONE' }]);
    }
    const companies = await createList(stack, alice, 'companies', 'COMPANY');
    const notPeople = await count(alice, companies.id);
    expect([notPeople.status, notPeople.body]).toEqual([400, { error: 'Email/phone enrichment is only available for people lists' }]);
    const missing = await count(alice, 999_999_999);
    expect([missing.status, missing.body]).toEqual([404, { error: 'Lead list not found' }]);
    // Another workspace's list is unknown to bob.
    expect((await count(bob, list.id)).status).toBe(404);
    const refusedPost = await enrich(alice, companies.id, {});
    expect([refusedPost.status, refusedPost.body]).toEqual([400, { error: 'Email/phone enrichment is only available for people lists' }]);
  });

  it('refuses bad requests with 400 and charges nothing', async () => {
    const list = await peopleList(alice, 'badreq', { withDomain: 4 });
    const before = await credits(alice);
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ enrichment_type: 'FIND_FAX' }, { error: 'enrichment_type must be FIND_EMAIL, FIND_EMAIL_WATERFALL, or FIND_PHONE' }],
      [{ enrichment_type: 'find_phone' }, { error: 'enrichment_type must be FIND_EMAIL, FIND_EMAIL_WATERFALL, or FIND_PHONE' }],
      [{ mode: 'later' }, { error: "mode must be 'async' or 'sync'" }],
      [{ mode: 'sync', prospect_limit: 26 }, { error: 'prospect_limit must be at most 25 in sync mode' }],
      [{ prospect_limit: 10_001 }, { error: 'prospect_limit must be at most 10000' }],
      [{ prospect_limit: 0 }, { error: 'prospect_limit must be a positive integer' }],
      [{ mode: 'sync', webhook_url: 'https://example.com/hook' }, { error: 'webhook_url is only available in async mode' }],
      [{ webhook_url: 'https://169.254.169.254/latest' }, { error: 'webhook_url must not point to a private, loopback, link-local or reserved address' }],
      [{ enrichment_type: 'FIND_PHONE' }, { error: 'Insufficient credits', details: `120 credits needed (4 × 30), ${before.balance} available` }],
    ];
    for (const [body, expected] of cases) {
      const response = await enrich(alice, list.id, body);
      expect([response.status, response.body], JSON.stringify(body)).toEqual([400, expected]);
    }
    expect(await credits(alice)).toEqual(before);
    expect((await leadsOf(stack, alice, list.id)).prospects?.map((p) => p.status)).toEqual(['NEW', 'NEW', 'NEW', 'NEW']);
  });

  it('async FIND_EMAIL: charges up front, shows Loading…, writes found emails, keeps the charge of a searched lead', async () => {
    const list = await peopleList(alice, 'asynclist', { withDomain: 2, bare: 1 });
    const before = (await credits(alice)).balance;
    const started = await enrich(alice, list.id, {});
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      success: true,
      mode: 'async',
      enrichment_type: 'FIND_EMAIL',
      enriched_count: 3,
      credits_deducted: 9,
      remaining_credits: before - 9,
      webhook_url: null,
      message: `Enrichment started in background. Follow it at /api/v1/public/enrichment-jobs/${started.body.job_id}/`,
      job_id: expect.any(Number),
    });
    expect((await leadsOf(stack, alice, list.id)).prospects?.map((p) => p.status)).toEqual(['Loading…', 'Loading…', 'Loading…']);
    // Being enriched: neither counted nor selected again.
    expect((await count(alice, list.id)).body.unenriched_count).toBe(0);
    expect((await job(alice, started.body.job_id)).status).toBe('RUNNING');

    await stack.drain('enrichment');
    const page = await leadsOf(stack, alice, list.id);
    expect(page.prospects?.map((p) => [p.first_name, p.email, p.status])).toEqual([
      ['Ada0', 'ada0.asynclist@asynclist.example', 'NEW'],
      ['Ada1', 'ada1.asynclist@asynclist.example', 'NEW'],
      ['Bo0', '', 'NEW'],
    ]);
    expect(await job(alice, started.body.job_id)).toEqual({
      id: started.body.job_id,
      list_id: list.id,
      enrichment_type: 'FIND_EMAIL',
      mode: 'async',
      status: 'COMPLETED',
      total_count: 3,
      queued_count: 0,
      found_count: 2,
      not_found_count: 1,
      duplicate_count: 0,
      failed_count: 0,
      skipped_count: 0,
      credits_charged: 9,
      credits_refunded: 0,
      webhook_url: null,
      created_at: '2026-11-24T09:00:00.000Z',
      completed_at: '2026-11-24T09:00:00.000Z',
    });
    expect((await credits(alice)).balance).toBe(before - 9);
    // The bare prospect can be enriched again (it has no email); the found ones not.
    expect((await count(alice, list.id)).body.unenriched_count).toBe(1);
  });

  it('sync FIND_EMAIL_WATERFALL: tries finders in order, stops at the first verified email, refunds not found and provider failures', async () => {
    const list = await peopleList(alice, 'waterfall', { withDomain: 3, bare: 1 });
    await rule({ match: 'Ada0 waterfall', provider: 'hunter', outcome: 'not_found' });
    await rule({ match: 'Ada1 waterfall', provider: 'hunter', outcome: 'error' });
    await rule({ match: 'Ada1 waterfall', provider: 'prospeo', outcome: 'error' });
    const callsBefore = ((await (await fetch(`${stack.enrichment.url}/_sandbox/enrichment/calls`)).json()) as { calls: { provider: string; name: string }[] }).calls.length;
    const before = (await credits(alice)).balance;
    // The ledger is newest first by time, then by entry id: a later millisecond than the grants before it.
    clock.advance(1);
    const response = await enrich(alice, list.id, { mode: 'sync', enrichment_type: 'FIND_EMAIL_WATERFALL' });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      success: true,
      mode: 'sync',
      enrichment_type: 'FIND_EMAIL_WATERFALL',
      total_count: 4,
      success_count: 2,
      credits_deducted: 12,
      remaining_credits: before - 12,
      results: [
        { id: expect.any(Number), first_name: 'Ada0', last_name: 'waterfall', success: true, status: 'found', email: 'ada0.waterfall@waterfall.example', verification_status: 'verified', provider: 'prospeo' },
        { id: expect.any(Number), first_name: 'Ada1', last_name: 'waterfall', success: false, status: 'failed', email: null, verification_status: null, provider: null },
        { id: expect.any(Number), first_name: 'Ada2', last_name: 'waterfall', success: true, status: 'found', email: 'ada2.waterfall@waterfall.example', verification_status: 'verified', provider: 'hunter' },
        { id: expect.any(Number), first_name: 'Bo0', last_name: 'waterfall', success: false, status: 'not_found', email: null, verification_status: null, provider: null },
      ],
    });
    const calls = ((await (await fetch(`${stack.enrichment.url}/_sandbox/enrichment/calls`)).json()) as { calls: { provider: string; name: string }[] }).calls.slice(callsBefore);
    const of = (name: string) => calls.filter((call) => call.name === name).map((call) => call.provider);
    expect(of('Ada0 waterfall')).toEqual(['hunter', 'prospeo']);
    expect(of('Ada1 waterfall')).toEqual(['hunter', 'hunter', 'hunter', 'prospeo', 'prospeo', 'prospeo']);
    expect(of('Ada2 waterfall')).toEqual(['hunter']);
    const ledger = (await credits(alice)).ledger;
    // The sync answer names no job (the real product's fields); its ledger entries do.
    const jobId = ledger[0]?.job_id;
    expect(jobId).toEqual(expect.any(Number));
    expect(ledger.slice(0, 2).map((entry) => [entry.type, entry.amount, entry.job_id])).toEqual([
      ['refund', 12, jobId],
      ['debit', -24, jobId],
    ]);
  });

  it('sandbox rules by profile URL decide FIND_EMAIL too: Hunter is given the profile handle, also without a company', async () => {
    const ws = await workspaceWith(30);
    const list = await createList(stack, ws, 'byurl');
    await importLeads(stack, ws, list.id, {
      leads: [
        { first_name: 'Url', last_name: 'Rule', network_profile_url: 'https://www.linkedin.com/in/urlrule-x1', company_name: 'Ur', company_website_url: 'https://ur.example' },
        { first_name: 'No', last_name: 'Company', network_profile_url: 'https://www.linkedin.com/in/nocompany-x1' },
        { first_name: 'Plain', last_name: 'Nobody', network_profile_url: 'https://www.linkedin.com/in/plain-x1' },
      ],
    });
    expect((await rule({ match: 'https://www.linkedin.com/in/urlrule-x1', outcome: 'not_found' })).status).toBe(200);
    expect((await rule({ match: 'https://linkedin.com/in/NoCompany-x1/', outcome: 'found', email: 'no.company@found.example' })).status).toBe(200);
    const response = await enrich(ws, list.id, { mode: 'sync' });
    expect(response.body.results).toEqual([
      expect.objectContaining({ first_name: 'Url', success: false, status: 'not_found', email: null }),
      expect.objectContaining({ first_name: 'No', success: true, status: 'found', email: 'no.company@found.example', provider: 'hunter' }),
      // No company and no rule: Hunter is asked by the handle and finds nothing.
      expect.objectContaining({ first_name: 'Plain', success: false, status: 'not_found', email: null }),
    ]);
  });

  it('FIND_PHONE refunds not found; a found email another prospect has is a duplicate, charged like not found', async () => {
    await grant(alice.workspaceId, 200);
    const list = await peopleList(alice, 'phones', { withDomain: 2 });
    await rule({ match: 'Ada0 phones', provider: 'lusha', outcome: 'found', phone: '+31 6 1234 5678' });
    const before = (await credits(alice)).balance;
    const phones = await enrich(alice, list.id, { mode: 'sync', enrichment_type: 'FIND_PHONE' });
    expect(phones.body).toMatchObject({ total_count: 2, success_count: 1, credits_deducted: 30, remaining_credits: before - 30 });
    expect((phones.body.results as Record<string, unknown>[]).map((r) => [r.first_name, r.status, r.phone_number])).toEqual([
      ['Ada0', 'found', '+31 6 1234 5678'],
      ['Ada1', 'not_found', null],
    ]);

    const dupes = await peopleList(alice, 'dupes', { withDomain: 1 });
    await importLeads(stack, alice, dupes.id, { leads: [{ first_name: 'Zed', last_name: 'Owner', email: 'ada0.dupes@dupes.example' }] });
    const owner = (await leadsOf(stack, alice, dupes.id)).prospects?.find((p) => p.first_name === 'Zed');
    const dup = await enrich(alice, dupes.id, { mode: 'sync' });
    expect((dup.body.results as Record<string, unknown>[]).map((r) => [r.status, r.duplicate_of, r.email])).toEqual([['duplicate', owner?.id, null]]);
    expect(dup.body.credits_deducted).toBe(3);
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
    expect(await stack.drain('enrichment')).toBeGreaterThan(0);
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

    await stack.drain('enrichment');
    expect(await job(ws, started.body.job_id)).toMatchObject({ status: 'COMPLETED', found_count: 1, not_found_count: 1 });
    // Done: its own status again everywhere, and counted again where it still lacks an email.
    expect((await leadsOf(stack, ws, second.id)).prospects?.map((p) => [p.first_name, p.status])).toEqual([
      ['Ada0', 'NEW'],
      ['Bo0', 'NEW'],
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

  it('sends the signed completion event to webhook_url, retried after a failure', async () => {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await grant(ws.workspaceId, 30);
    const list = await peopleList(ws, 'hooked', { withDomain: 1 });
    const hook = `${receiver.url}/enrichment-done`;
    const set = await stack.call<{ signing_secret: string }>('PUT', '/user/webhook/', { token: user.token, body: { webhook_url: `${receiver.url}/inbox` } });
    expect(set.status).toBe(200);
    const started = await enrich(ws, list.id, { webhook_url: hook });
    expect(started.body).toMatchObject({ webhook_url: hook, message: `Enrichment started in background. Results will be sent to ${hook}` });
    await stack.drain('enrichment');
    receiver.plan({ status: 503 });
    await stack.drain('webhooks');
    const deliveries = receiver.requests.filter((r) => r.path === '/enrichment-done');
    expect(deliveries).toHaveLength(2);
    const last = deliveries[1] as (typeof deliveries)[number];
    // Signed as Standard Webhooks with the user's secret (at the stack's clock, so compared, not verified against now).
    const at = new Date(Number(last.headers['webhook-timestamp']) * 1000);
    expect(last.headers['webhook-signature']).toBe(new Webhook(set.body.signing_secret).sign(String(last.headers['webhook-id']), at, last.body));
    const payload = JSON.parse(last.body) as Record<string, unknown>;
    expect(payload).toMatchObject({ event: 'enrichment_completed', job: { id: started.body.job_id, status: 'COMPLETED', found_count: 1, total_count: 1 } });
    // Isolation: another workspace cannot read the job.
    const other = await stack.call('GET', `/public/enrichment-jobs/${started.body.job_id}/`, { apiKey: bob.key });
    expect([other.status, other.body]).toEqual([404, { error: 'Enrichment job not found' }]);
  });

  it('accepts webhook_url from a user without webhook settings: the first event creates their signing secret, which their next webhook PUT shows', async () => {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await grant(ws.workspaceId, 30);
    const list = await peopleList(ws, 'nosettings', { withDomain: 1 });
    const hook = `${receiver.url}/no-settings-done`;
    const started = await enrich(ws, list.id, { webhook_url: hook });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ webhook_url: hook, enriched_count: 1 });
    await stack.drain('enrichment');
    await stack.drain('webhooks');
    const [delivery] = receiver.requests.filter((r) => r.path === '/no-settings-done');
    expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ event: 'enrichment_completed', job: { id: started.body.job_id, status: 'COMPLETED' } });
    // The secret exists (no URL), not shown yet: the next PUT of the webhook shows it, once, and it
    // is the one the event was signed with.
    const settings = await stack.call<Record<string, unknown>>('GET', '/user/webhook/', { token: user.token });
    expect(settings.body).toMatchObject({ webhook_url: null, has_signing_secret: true });
    const set = await stack.call<{ signing_secret?: string }>('PUT', '/user/webhook/', { token: user.token, body: { webhook_url: `${receiver.url}/inbox` } });
    expect(set.status).toBe(200);
    const secret = set.body.signing_secret as string;
    expect(secret).toMatch(/^whsec_/);
    const at = new Date(Number(delivery?.headers['webhook-timestamp']) * 1000);
    expect(delivery?.headers['webhook-signature']).toBe(new Webhook(secret).sign(String(delivery?.headers['webhook-id']), at, delivery?.body as string));
    const again = await stack.call<{ signing_secret?: string }>('PUT', '/user/webhook/', { token: user.token, body: { webhook_url: `${receiver.url}/inbox` } });
    expect(again.body.signing_secret).toBeUndefined();
  });
});
