import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { DynamoCreditRepository } from '../../../shared/db/credit-repository';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { enrichmentRunningKey } from '../../../shared/db/keys';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { createCreditService } from '../../../shared/domain/credits/credits';
import type { Finder } from '../../../shared/domain/enrichment/enrichment';
import { chunksOf, newJob } from '../../../shared/domain/enrichment/enrichment-service';
import { createEnrichmentProcessor } from '../../../shared/domain/enrichment/processor';
import type { ManualClock } from '../../../shared/time/clock';
import { type TestStack, createKey, signUp } from '../../support/test-stack';
import { type Workspace, createList, importLeads, leadsOf, leadsStack } from '../leads/helpers';

/**
 * What the enrichment test files share: calls of the enrichment API, the sandbox providers' rules,
 * lists of people, and processors and jobs made straight in the table. `stackOf` is read at each
 * call, so the helpers may be made before the files' `beforeAll` starts the stack.
 */
export function enrichmentHelpers(stackOf: () => TestStack, clock: ManualClock) {
  const grant = async (workspaceId: number, amount: number) => {
    const stack = stackOf();
    const service = createCreditService({ credits: new DynamoCreditRepository(stack.db, stack.tableName), ids: new DynamoIdAllocator(stack.db, stack.tableName), clock });
    await service.grant(workspaceId, amount, 'test grant');
  };
  const credits = async (ws: Workspace) => (await stackOf().call<{ balance: number; ledger: Record<string, unknown>[] }>('GET', '/public/credits/', { apiKey: ws.key })).body;
  const enrich = (ws: Workspace, listId: number, body: Record<string, unknown>) =>
    stackOf().call<Record<string, unknown>>('POST', `/public/lead-lists/${listId}/enrichment/`, { apiKey: ws.key, body });
  const count = (ws: Workspace, listId: number, query = '') =>
    stackOf().call<Record<string, unknown>>('GET', `/public/lead-lists/${listId}/enrichment/count/${query ? `?${query}` : ''}`, { apiKey: ws.key });
  const job = async (ws: Workspace, id: unknown) => (await stackOf().call<{ job: Record<string, unknown> }>('GET', `/public/enrichment-jobs/${id}/`, { apiKey: ws.key })).body.job;
  const rule = (body: Record<string, unknown>) =>
    fetch(`${stackOf().enrichment.url}/_sandbox/enrichment/rules`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  /** A list of people: `withDomain` have a company website, `bare` have none, `emailed` already have an email. */
  async function peopleList(ws: Workspace, name: string, counts: { withDomain: number; bare?: number; emailed?: number }, tag = name) {
    const stack = stackOf();
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
  const processorWith = (finder: Finder, jobs: DynamoEnrichmentRepository = new DynamoEnrichmentRepository(stackOf().db, stackOf().tableName)) =>
    createEnrichmentProcessor({
      jobs,
      leads: new DynamoLeadRepository(stackOf().db, stackOf().tableName, clock),
      finders: { email: [finder], phone: finder },
      ids: new DynamoIdAllocator(stackOf().db, stackOf().tableName),
      clock,
      notifier: { jobCompleted: async () => {} },
      maxLeadsPerList: 10_000,
      concurrency: 1,
      callReserveMs: 14_000,
      pause: async () => {},
    });

  /** A workspace of its own with this many credits, a second after the last one (ledger order). */
  async function workspaceWith(creditsGranted: number): Promise<Workspace> {
    const stack = stackOf();
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await grant(ws.workspaceId, creditsGranted);
    clock.advance(1000);
    return ws;
  }

  /** The keys of the workspace's running-job items. */
  const runningJobItems = async (ws: Workspace) =>
    (
      await stackOf().db.send(
        new QueryCommand({
          TableName: stackOf().tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': enrichmentRunningKey(ws.workspaceId, 0).pk },
          ProjectionExpression: 'pk, sk',
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  const memberIds = async (ws: Workspace, listId: number) => ((await leadsOf(stackOf(), ws, listId)).prospects ?? []).map((p) => p.id as number);

  /** A job made straight in the table (debit, job, chunk items), as the service would, minus its choice. */
  async function jobBehindTheService(ws: Workspace, listId: number, type: 'FIND_EMAIL', prospectIds: number[], chunks = true): Promise<number> {
    const stack = stackOf();
    const jobs = new DynamoEnrichmentRepository(stack.db, stack.tableName);
    const ids = new DynamoIdAllocator(stack.db, stack.tableName);
    const stamp = clock.now().toISOString();
    const made = { ...newJob({ id: await ids.next(), workspaceId: ws.workspaceId, userId: 0, listId, type, mode: 'async', selection: prospectIds, webhookUrl: null, at: stamp }), chunksWritten: chunks };
    const cost = made.charged;
    const debit = { id: await ids.next(), workspaceId: ws.workspaceId, kind: 'DEBIT' as const, amount: -cost, reason: 'test', jobId: made.id, createdAt: stamp };
    expect(await jobs.createJob(made, debit)).toBe(true);
    if (chunks) await jobs.writeChunks(made, chunksOf(made));
    return made.id;
  }

  return { grant, credits, enrich, count, job, rule, peopleList, processorWith, workspaceWith, runningJobItems, memberIds, jobBehindTheService };
}

/** Finds `<first>@<suffix>` for a prospect of a company with a website, nothing for one without. */
export const finding = (suffix: string, calls: string[], during?: () => Promise<void>): Finder => ({
  name: `finder-${suffix}`,
  async find(input) {
    calls.push(input.firstName);
    if (during && calls.length === 1) await during();
    return input.domain ? { kind: 'found', value: `${input.firstName.toLowerCase()}@${suffix}.example`, verification: 'verified' } : { kind: 'not_found' };
  },
});

/** A finder whose every call takes 8 s of a function's time (`time.left`), finding `<first>@<suffix>.example`. */
export const slowFinding = (suffix: string, calls: string[], time: { left: number }): Finder => ({
  name: 'slow-finder',
  async find(input) {
    calls.push(input.firstName);
    time.left -= 8_000;
    return { kind: 'found', value: `${input.firstName.toLowerCase()}@${suffix}.example`, verification: 'verified' };
  },
});

/** Prints the stack's ERROR and WARN lines when SHOW_LOGS is set (a failing run's first place to look). */
export function showLogs(stack: TestStack | undefined): void {
  if (!process.env.SHOW_LOGS || !stack) return;
  for (const line of stack.logs.filter((l) => l.includes('"level":"ERROR"') || l.includes('"level":"WARN"'))) console.log(line.slice(0, 1500));
}

/**
 * A test file's stack for the enrichment tests: Alice with 100 credits (handed to `set` before the
 * tests), its ERROR and WARN lines shown (SHOW_LOGS) and the stack stopped after them.
 */
export function useEnrichmentStack(clock: ManualClock, set: (world: { stack: TestStack; alice: Workspace }) => void): void {
  let stack: TestStack | undefined;
  beforeAll(async () => {
    const world = await leadsStack({ clock });
    stack = world.stack;
    set(world);
    await enrichmentHelpers(() => world.stack, clock).grant(world.alice.workspaceId, 100);
  });
  afterAll(async () => {
    showLogs(stack);
    await stack?.stop();
  });
}
