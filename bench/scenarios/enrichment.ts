import type { MeteredCall } from '../../shared/db/capacity-meter';
import { DynamoCreditRepository } from '../../shared/db/credit-repository';
import { DynamoIdAllocator } from '../../shared/db/id-allocator';
import { createCreditService } from '../../shared/domain/credits/credits';
import { COST_PER_LEAD } from '../../shared/domain/enrichment/enrichment';
import { ENRICHMENT } from '../../shared/runtime/catalog';
import { type BenchScenario, fmt, table } from '../lib';

const PROSPECTS = 10_000;
const ROWS_PER_IMPORT = 1_000;
/** Every tenth prospect has no company website: the sandbox finder finds nothing for it. */
const WITHOUT_DOMAIN_EVERY = 10;
/** Consumers of the enrichment queue besides the local poller's own loop (Lambda runs several). */
const EXTRA_CONSUMERS = Number(process.env.BENCH_ENRICHMENT_CONSUMERS ?? 3);
const TARGETS = { prospectsPerSecond: 300, wcuPerProspect: 8 };

const FIRST = ['Emma', 'Liam', 'Olivia', 'Noah', 'Ava', 'Lucas', 'Mia', 'Elias', 'Sofia', 'Daan', 'Julia', 'Finn'];
const LAST = ['de Vries', 'Jansen', 'Bakker', 'Visser', 'Smit', 'Meijer', 'Müller', 'Schmidt', 'Martin', 'García'];

/** A person without an email; 500 companies, every tenth person without a website. */
function lead(n: number) {
  const company = n % 500;
  return {
    first_name: FIRST[n % FIRST.length],
    last_name: `${LAST[(n * 7) % LAST.length]} ${n}`,
    network_profile_url: `https://www.linkedin.com/in/enrich-bench-${n}`,
    job_title: 'Head of Sales',
    company_name: `Enrich Co ${company}`,
    ...(n % WITHOUT_DOMAIN_EVERY === 0 ? {} : { company_website_url: `https://enrich${company}.example` }),
  };
}

type Key = { pk?: unknown; sk?: unknown };
const str = (value: unknown) => (typeof value === 'string' ? value : '');
const shape = (key: string) => key.replace(/\d+/g, 'n');

/** What a call is, by command and the keys it names: the rows of the breakdown. */
function labelOf(call: MeteredCall): string {
  const { command, input } = call;
  const verb = command.replace(/(Items?)?Command$/, '');
  const key = (input.Key ?? input.Item ?? {}) as Key;
  if (verb === 'TransactWrite') {
    const actions = (input.TransactItems ?? []) as { Put?: { Item: Key }; Update?: { Key: Key; UpdateExpression?: string }; Delete?: { Key: Key }; ConditionCheck?: { Key: Key } }[];
    const keys = actions.map((a) => (a.Put?.Item ?? a.Update?.Key ?? a.Delete?.Key ?? a.ConditionCheck?.Key ?? {}) as Key);
    const sks = keys.map((k) => str(k.sk));
    if (sks.some((sk) => sk.startsWith('ENRICHING#')) && actions.some((a) => a.Delete)) return 'chunk done (delete chunk + job doneChunks)';
    if (sks.some((sk) => sk.startsWith('ENRICHING#'))) return 'resolve (chunk results + job counts + refund)';
    if (keys.some((k) => str(k.pk).startsWith('ENRICHJOB#'))) return 'start: debit + ledger + job';
    if (sks.some((sk) => sk.startsWith('DIGEST'))) return 'found: list digest write';
    if (keys.some((k) => str(k.pk).startsWith('PROSPECT#'))) return 'found: prospect put + email guard (transaction)';
    if (sks.some((sk) => sk === 'LEADCOUNTS')) return 'found: journal open';
    if (sks.some((sk) => sk.startsWith('LEADLIST#'))) return 'found: list close';
    return `TransactWrite ${keys.map((k) => shape(str(k.pk))).join(', ')}`;
  }
  if (verb === 'BatchGet' || verb === 'BatchWrite') {
    const [requests] = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: Key[] } | { PutRequest?: { Item: Key }; DeleteRequest?: { Key: Key } }[]>);
    const first = (Array.isArray(requests) ? (requests[0]?.PutRequest?.Item ?? requests[0]?.DeleteRequest?.Key) : requests?.Keys?.[0]) ?? {};
    const pk = str(first.pk);
    const sk = str(first.sk);
    if (verb === 'BatchWrite' && sk.startsWith('ENRICHING#')) return 'start: chunk items (batch put)';
    if (verb === 'BatchWrite' && pk.endsWith('#MEMBERS')) return 'found: list member views (batch put)';
    if (sk.startsWith('ENRICHING#')) return 'chunk reads';
    if (pk.startsWith('PROSPECT#')) return 'prospect reads';
    if (pk.startsWith('COMPANY#')) return 'company reads';
    if (pk.startsWith('LEADIDENTITY#')) return 'email owner reads';
    return `${verb} ${shape(pk)} ${shape(sk)}`;
  }
  const pk = str(key.pk);
  const sk = str(key.sk);
  if (verb === 'Update' && pk.startsWith('PROSPECT#')) return "not found: the job's mark (conditional update)";
  if (verb === 'Query') {
    const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
    const qpk = str(values[':pk']);
    if (str(values[':prefix']).startsWith('ENRICHING#')) return "'Loading…' chunks of the list (query)";
    if (qpk.endsWith('#MEMBERS')) return 'list members / digest (query)';
    return `Query ${input.IndexName ?? 'table'} ${shape(qpk)}`;
  }
  if (pk.startsWith('ENRICHJOB#')) return `job ${verb.toLowerCase()}`;
  return `${verb} ${shape(pk)} ${shape(sk)}`;
}

interface Tally {
  calls: number;
  rcu: number;
  wcu: number;
  wcuComputed: number;
}

/**
 * Issue 13's benchmark: 10,000 prospects of one list without an email (9,000 with a company
 * website, 1,000 without) enriched with FIND_EMAIL in one async request, end to end: the request
 * (debit, job, chunk items, queue messages), the enrichment queue worked by the worker through the
 * sandbox providers over HTTP (the local poller's loop and EXTRA_CONSUMERS more receive loops), until
 * the job is COMPLETED. Capacity is every DynamoDB call in the process meanwhile (the polling of the
 * job's status included), broken down by what it is.
 */
export const scenario: BenchScenario = {
  name: 'enrichment',
  async run(context) {
    const { call, user, stack, meter } = context;
    const apiKey = user.apiKey;
    const ok = (response: { status: number; body: any }, what: string) => {
      if (response.status !== 200 && response.status !== 201) throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
      return response.body;
    };

    // ---- Setup (not measured): the list and the credits ----
    const listId: number = ok(await call('POST', '/public/lead-lists', { apiKey, body: { name: 'Enrichment bench' } }), 'create list').lead_list.id;
    for (let start = 0; start < PROSPECTS; start += ROWS_PER_IMPORT) {
      const leads = Array.from({ length: ROWS_PER_IMPORT }, (_, i) => lead(start + i));
      const imported = ok(await call('POST', `/public/lead-lists/${listId}/import`, { apiKey, body: { leads } }), 'import');
      if (imported.created !== ROWS_PER_IMPORT) throw new Error(`import created ${imported.created}`);
    }
    const cost = PROSPECTS * COST_PER_LEAD.FIND_EMAIL;
    await createCreditService({ credits: new DynamoCreditRepository(stack.db, stack.tableName), ids: new DynamoIdAllocator(stack.db, stack.tableName), clock: stack.clock }).grant(
      user.workspaceId,
      cost,
      'enrichment bench',
    );
    const counted = ok(await call('GET', `/public/lead-lists/${listId}/enrichment/count/`, { apiKey }), 'count');
    if (counted.unenriched_count !== PROSPECTS || counted.total_cost !== cost) throw new Error(`count: ${JSON.stringify(counted)}`);

    // ---- Measured: the request, then the queue until the job is COMPLETED ----
    const byLabel = new Map<string, Tally>();
    meter.reset();
    meter.observer = (metered) => {
      const label = labelOf(metered);
      const tally = byLabel.get(label) ?? { calls: 0, rcu: 0, wcu: 0, wcuComputed: 0 };
      tally.calls += 1;
      tally.rcu += metered.readUnits;
      tally.wcu += metered.writeUnits;
      tally.wcuComputed += metered.computedWriteUnits;
      byLabel.set(label, tally);
    };
    const started = performance.now();
    const startedBody = ok(await call('POST', `/public/lead-lists/${listId}/enrichment/`, { apiKey, body: { enrichment_type: 'FIND_EMAIL', prospect_limit: PROSPECTS } }), 'start');
    const requestMs = performance.now() - started;
    if (startedBody.enriched_count !== PROSPECTS || startedBody.credits_deducted !== cost) throw new Error(`start: ${JSON.stringify(startedBody)}`);
    const jobId: number = startedBody.job_id;

    let done = false;
    const queue = stack.queues[ENRICHMENT.name];
    if (!queue) throw new Error('no enrichment queue');
    const consumers = Array.from({ length: EXTRA_CONSUMERS }, async () => {
      while (!done) if ((await stack.poller.pollOnce(queue, 1)) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    });
    let job: Record<string, any> = {};
    let polls = 0;
    const deadline = performance.now() + 600_000;
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = ok(await call('GET', `/public/enrichment-jobs/${jobId}/`, { apiKey }), 'job').job;
      polls += 1;
      if (job.status === 'COMPLETED') break;
    }
    const totalMs = performance.now() - started;
    done = true;
    await Promise.all(consumers);
    meter.observer = undefined;
    const totals = { rcu: meter.readUnits, wcu: meter.writeUnits, wcuComputed: meter.computedWriteUnits, calls: meter.calls, dbMs: meter.dbMillis };
    if (job.status !== 'COMPLETED') throw new Error(`job not completed after 10 minutes: ${JSON.stringify(job)}`);

    // ---- Checks (not measured) ----
    const expectedNotFound = PROSPECTS / WITHOUT_DOMAIN_EVERY;
    const expected = { found_count: PROSPECTS - expectedNotFound, not_found_count: expectedNotFound, duplicate_count: 0, failed_count: 0, credits_charged: cost, credits_refunded: 0 };
    for (const [field, value] of Object.entries(expected)) if (job[field] !== value) throw new Error(`job ${field} ${job[field]}, expected ${value}: ${JSON.stringify(job)}`);
    const after = ok(await call('GET', `/public/lead-lists/${listId}/enrichment/count/`, { apiKey }), 'count after');
    if (after.unenriched_count !== expectedNotFound) throw new Error(`count after: ${JSON.stringify(after)}`);
    const balance = ok(await call('GET', '/public/credits/', { apiKey }), 'credits').balance;
    if (balance !== 0) throw new Error(`balance after: ${balance}`);
    const page = ok(await call('GET', `/public/lead-lists/${listId}/leads?page=1&page_size=100`, { apiKey }), 'leads page');
    const loading = page.prospects.filter((p: { status: string }) => p.status === 'Loading…').length;
    if (loading > 0) throw new Error(`${loading} prospects still Loading… after completion`);

    const perProspect = (value: number) => fmt(value / PROSPECTS, 2);
    const throughput = PROSPECTS / (totalMs / 1000);
    const rows = [...byLabel]
      .sort(([, a], [, b]) => b.wcuComputed + b.rcu - (a.wcuComputed + a.rcu))
      .map(([label, t]) => [label, String(t.calls), fmt(t.rcu, 1), fmt(t.wcu, 1), fmt(t.wcuComputed, 1), perProspect(t.wcuComputed), perProspect(t.rcu)]);
    const met = (ok: boolean) => (ok ? 'met' : 'not met');
    return {
      title: `Enrichment: ${PROSPECTS.toLocaleString('en')} prospects, FIND_EMAIL, async, end to end`,
      markdown: [
        table(
          ['measure', 'value', 'target'],
          [
            ['prospects enriched', `${PROSPECTS.toLocaleString('en')} (${job.found_count} found, ${job.not_found_count} not found)`, ''],
            ['consumers of the enrichment queue', `${1 + EXTRA_CONSUMERS} (the poller's loop + ${EXTRA_CONSUMERS}), batches of ${ENRICHMENT.batchSize} messages`, ''],
            ['start request (debit, job, chunks, messages)', `${fmt(requestMs, 0)} ms`, ''],
            ['request to COMPLETED', `${fmt(totalMs / 1000, 2)} s`, ''],
            ['throughput', `${fmt(throughput, 0)} prospects/s`, `≥ ${TARGETS.prospectsPerSecond}: ${met(throughput >= TARGETS.prospectsPerSecond)}`],
            [
              'WCU per prospect (computed)',
              `${perProspect(totals.wcuComputed)} (reported ${perProspect(totals.wcu)})`,
              `≤ ${TARGETS.wcuPerProspect}: ${met(totals.wcuComputed / PROSPECTS <= TARGETS.wcuPerProspect)}`,
            ],
            ['RCU per prospect', perProspect(totals.rcu), ''],
            ['DynamoDB calls', `${totals.calls} (${fmt(totals.dbMs / 1000, 1)} s waiting, summed over concurrent calls)`, ''],
            ['job status polls (GET, included above)', String(polls), ''],
          ],
        ),
        '',
        'Capacity by call (per prospect: over all 10,000):',
        '',
        table(['call', 'calls', 'RCU', 'WCU (reported)', 'WCU (computed)', 'WCU/prospect', 'RCU/prospect'], rows),
        '',
        'WCU (computed) replaces DynamoDB Local\'s figure for each transaction (which it reports as if it wrote one item) by ' +
          'the cost of its actions: 2 WCU per KB per copy (the table and each index the item has keys for); an Update or ' +
          'ConditionCheck counts 1 KB, and so does an LSI entry (keys only). A refused condition is not counted. ' +
          'Setup (the import of 10,000 leads and the grant of credits) is not measured.',
      ].join('\n'),
    };
  },
};
