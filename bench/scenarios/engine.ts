import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ScheduledEvent } from 'aws-lambda';
import { lambdaContext } from '../../infra/local/lambda-context';
import type { MeteredCall } from '../../shared/db/capacity-meter';
import { itemCopies, itemSize } from '../../shared/db/item-size';
import { campaignProspectKey, leadListKey, outreachActionKey, workspaceLeadCountsKey } from '../../shared/db/keys';
import { CAMPAIGN_SCHEDULING, OUTREACH, OUTREACH_SCHEDULER } from '../../shared/runtime/catalog';
import { ManualClock } from '../../shared/time/clock';
import { type BenchContext, type BenchScenario, fmt, table } from '../lib';

/** Prospects in the campaign (BENCH_ENGINE_PROSPECTS gives a smaller smoke run). */
const PROSPECTS = Number(process.env.BENCH_ENGINE_PROSPECTS ?? 10_000);
/** Import rows and add-to-campaign prospects per request (both maxima). */
const PER_REQUEST = 1_000;
/** `email_max_messages`' maximum. */
const CAP = 2_000;
/** Mailboxes at their maximum daily limit: together far above the campaign's cap. */
const MAILBOXES = 5;
const ACCOUNT_LIMIT = 2_000;
/**
 * Outreach consumers draining the queue at once (Lambda runs several; each handles 5 messages of
 * 10 actions, 8 at a time; the local runtime's poller runs one): the first pass with 4, each day's
 * sends with its own number, so the days show what more consumers at once do, and the last two
 * what one consumer does after that.
 */
const FIRST_PASS_CONSUMERS = 4;
const CONSUMERS_BY_DAY = [1, 2, 4, 1, 1];
/** A Monday, 00:00 UTC: the campaign is activated as its window opens. */
const START = '2026-12-07T00:00:00.000Z';
/** Past the day's last slot (2,000 slots in 00:00-23:59 UTC: the last at 23:58:15), before the window closes. */
const DAY_END = 'T23:58:30.000Z';
/** Scheduler and drain rounds per moment of the clock (the second finds nothing when the engine settled). */
const ROUNDS = 4;
/** After the last day: past the claim timeout (10 min) and the full sweep (15 min), for claims a failed action left. */
const SETTLE_STEP_MS = 16 * 60_000;
const KB = 1024;

const clock = new ManualClock(START);
/** The functions' ERROR and WARN lines (the outreach consumer logs an action it could not record): how many, and the first few. */
const problems = { count: 0, first: [] as string[] };

/** A deterministic prospect with an email: 500 distinct companies. */
function lead(n: number) {
  const company = n % 500;
  return {
    first_name: `First${n % 97}`,
    last_name: `Last ${n}`,
    network_profile_url: `https://www.linkedin.com/in/engine-bench-${n}`,
    email: `ebench${n}@company${company}.example`,
    job_title: ['CTO', 'VP Sales', 'Head of Marketing', 'Account Manager'][n % 4],
    location: ['Amsterdam', 'Berlin', 'Paris', 'London', 'Madrid'][n % 5],
    company_name: `Engine Company ${company}`,
    company_website_url: `https://engine-company${company}.example`,
  };
}

interface Tally {
  calls: number;
  rcu: number;
  wcu: number;
  wcuComputed: number;
}
const emptyTally = (): Tally => ({ calls: 0, rcu: 0, wcu: 0, wcuComputed: 0 });
const addTo = (tally: Tally, call: { readUnits: number; writeUnits: number; computedWriteUnits: number }) => {
  tally.calls += 1;
  tally.rcu += call.readUnits;
  tally.wcu += call.writeUnits;
  tally.wcuComputed += call.computedWriteUnits;
};

type Key = { pk?: unknown; sk?: unknown };
const str = (value: unknown) => (typeof value === 'string' ? value : '');
/** A key's shape, ids left out: `CAMPAIGN#n#ACTIONS`. */
const shape = (value: unknown) => str(value).replace(/\d+/g, 'n');

interface TransactInput {
  TransactItems?: { Put?: { Item: Key }; Update?: { Key: Key }; Delete?: { Key: Key }; ConditionCheck?: { Key: Key } }[];
}

/**
 * What a call is, by command and the keys it names: the rows of the breakdown. `status:` rows
 * are the prospect's status move (FINISHED) through the lead write path.
 */
function labelOf(call: MeteredCall): string {
  const { command, input } = call;
  const key = ((input.Key ?? input.Item) ?? {}) as Key;
  const pk = str(key.pk);
  const sk = str(key.sk);
  const verb = command.replace(/(Items?)?Command$/, '');
  if (verb === 'TransactWrite') {
    const actions = (input as TransactInput).TransactItems ?? [];
    const keys = actions.map((a) => (a.Put?.Item ?? a.Update?.Key ?? a.Delete?.Key ?? a.ConditionCheck?.Key ?? {}) as Key);
    if (keys.some((k) => str(k.sk).startsWith('DIGEST'))) return 'status: list digest write (transaction with the list item)';
    if (keys.some((k) => str(k.pk).startsWith('PROSPECT#'))) return 'status: prospect put + campaign prospect update (transaction)';
    if (keys.some((k) => str(k.sk) === 'LEADCOUNTS')) return 'status: journal open (list + workspace counters, transaction)';
    if (keys.some((k) => str(k.sk).startsWith('LEADLIST#'))) return 'status: list close (transaction)';
    return `TransactWrite ${keys.map((k) => shape(k.pk)).join(', ')}`;
  }
  if (verb === 'BatchGet' || verb === 'BatchWrite') {
    const [requests] = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: Key[] } | { PutRequest?: { Item: Key }; DeleteRequest?: { Key: Key } }[]>);
    const first = (Array.isArray(requests) ? (requests[0]?.PutRequest?.Item ?? requests[0]?.DeleteRequest?.Key) : requests?.Keys?.[0]) ?? {};
    const firstPk = str(first.pk);
    const projected = !Array.isArray(requests) && (requests as { ProjectionExpression?: string })?.ProjectionExpression;
    if (verb === 'BatchWrite' && firstPk.endsWith('#MEMBERS')) return 'status: list member view (batch put)';
    if (firstPk.startsWith('PROSPECT#')) return projected ? 'status: view check (prospect versions)' : 'prospect reads (batch, and again by the status write)';
    if (firstPk.startsWith('COMPANY#')) return 'company reads (sender, and again by the status write)';
    return `${verb} ${shape(firstPk)}`;
  }
  if (verb === 'Query') {
    const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
    const qpk = str(values[':pk']);
    if (input.IndexName === 'gsi2') return 'scheduler: due-index query';
    if (input.IndexName === 'lsi1' && qpk.endsWith('#PROSPECTS')) return 'campaign completion check (2 queries)';
    if (qpk.endsWith('#MEMBERS')) return 'status: list digest read';
    if (/^CAMPAIGN#\d+$/.test(qpk)) return 'campaign + flow (per batch)';
    if (qpk.startsWith('WORKSPACE#') && str(values[':prefix']).startsWith('SENDER_ACCOUNT')) return 'sender accounts (per batch)';
    return `Query ${input.IndexName ?? 'table'} ${shape(qpk)}`;
  }
  if (pk.startsWith('DISPATCH#')) return 'scheduler: shard leases (take + release)';
  if (pk.endsWith('#ACTIONS')) {
    if (verb === 'Get') return 'action read';
    if (verb === 'Delete') return 'end of sequence (action delete)';
    if (verb === 'Put') return (input.Item as { claim?: unknown }).claim ? 'claim (action put)' : 'wait for its slot or day (action put, due time moves)';
  }
  if (pk.startsWith('SENDCOUNT#CAMPAIGN')) return 'campaign position (ADD)';
  if (pk.startsWith('SENDCOUNT#ACCOUNT')) return 'account send (conditional ADD)';
  if (pk.endsWith('#OUTCOMES')) return verb === 'Get' ? 'crash rule: outcome read' : 'outcome record';
  if (pk.startsWith('SENT_EMAIL#')) return 'sent email';
  if (pk.startsWith('LEADJOURNAL#')) return verb === 'Put' ? 'status: journal put' : 'status: journal delete';
  if (sk === 'LEADCOUNTS') return verb === 'Get' ? 'status: batches-opened reads' : 'status: journal close (workspace counters)';
  if (sk.startsWith('LEADLIST#')) return 'status: digest retry check (list item)';
  if (/^CAMPAIGN#\d+$/.test(pk) && sk === 'CAMPAIGN') return 'campaign status (COMPLETED, once)';
  return `${verb} ${shape(pk)} ${shape(sk)}`;
}

interface Phase extends Tally {
  ms: number;
}

interface Day {
  day: string;
  consumers: number;
  dispatched: number;
  messages: number;
  schedulerMs: number;
  drainMs: number;
  sent: number;
  /** ERROR/WARN lines of the functions that day (an action whose result could not be recorded). */
  problems: number;
}

/** An item a call writes, to price its row by (the first of each row is kept). */
function sampleOf(call: MeteredCall): Record<string, unknown> | undefined {
  const { input } = call;
  if (input.Item) return input.Item as Record<string, unknown>;
  if (Array.isArray(input.TransactItems)) {
    const puts = (input as TransactInput).TransactItems?.flatMap((action) => (action.Put ? [action.Put.Item as Record<string, unknown>] : [])) ?? [];
    return puts.find((item) => str(item.sk).startsWith('DIGEST')) ?? puts.find((item) => str(item.pk).startsWith('PROSPECT#')) ?? puts[0];
  }
  if (input.RequestItems) {
    const [requests] = Object.values(input.RequestItems as Record<string, unknown>);
    if (Array.isArray(requests)) return (requests[0] as { PutRequest?: { Item: Record<string, unknown> } } | undefined)?.PutRequest?.Item;
  }
  return undefined;
}

/**
 * The engine at full load: one ACTIVE campaign of 10,000 prospects with one EMAIL step, its cap at
 * the maximum (2,000 a day) and 5 mailboxes at theirs, played on a ManualClock over 5 days. The
 * scheduler's dispatch of the 10,000 due actions is timed, then the outreach queue is drained by
 * its consumer in process (the poller's receive, handler, delete); each day the clock moves past
 * the day's last slot and the scheduler and drain run until the engine settles. Capacity is every
 * DynamoDB call of the functions, broken down by what it is, beside a model from item sizes.
 */
export const scenario: BenchScenario = {
  name: 'engine',
  stack: () => ({
    clock,
    background: false,
    functionLog: (line) => {
      if (!/\b(ERROR|WARN)\b/.test(line)) return;
      problems.count += 1;
      if (problems.first.length < 3) problems.first.push(line.slice(0, 400));
    },
  }),
  async run(context) {
    const { call, user, stack, meter } = context;
    const apiKey = user.apiKey;
    const ok = (response: { status: number; body: any }, what: string, status = 200) => {
      if (response.status !== status) throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
      return response.body;
    };

    // ---- Setup (not measured) ----
    const setupStarted = performance.now();
    const accountIds: number[] = [];
    for (let i = 0; i < MAILBOXES; i += 1) {
      const id = `sbx-engine-bench-${i}`;
      await stack.provider.control.createAccount({ id, type: 'MAIL', name: `Engine bench ${i}` });
      const registered = ok(await call('POST', '/public/accounts/', { apiKey, body: { provider_account_id: id } }), 'register account', 201);
      accountIds.push(registered.account.id);
      ok(await call('PATCH', `/public/accounts/${registered.account.id}/`, { apiKey, body: { daily_limits: { emails: ACCOUNT_LIMIT } } }), 'account limits');
    }
    const campaignId: number = ok(await call('POST', '/public/campaigns/', { apiKey, body: { name: 'Engine bench' } }), 'campaign', 201).campaign.id;
    ok(
      await call('POST', `/public/campaigns/${campaignId}/steps/`, {
        apiKey,
        body: {
          step_type: 'EMAIL',
          subject_line: 'A question for {{company_name}}, {{first_name}}',
          message_template: '<p>Hi {{first_name}},</p><p>I saw that you are {{job_title}} at {{company_name}} in {{location}}. Could we talk for 15 minutes next week?</p><p>Best regards</p>',
        },
      }),
      'step',
      201,
    );
    const allDay = { enabled: true, start: '00:00', end: '23:59' };
    ok(
      await call('PATCH', `/public/campaigns/${campaignId}/`, {
        apiKey,
        body: {
          account_ids: accountIds,
          timezone: 'UTC',
          email_max_messages: CAP,
          sending_window: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, allDay])),
        },
      }),
      'campaign settings',
    );
    const listId: number = ok(await call('POST', '/public/lead-lists', { apiKey, body: { name: 'Engine bench' } }), 'list', 201).lead_list.id;
    for (let start = 0; start < PROSPECTS; start += PER_REQUEST) {
      const leads = Array.from({ length: Math.min(PER_REQUEST, PROSPECTS - start) }, (_, i) => lead(start + i));
      const body = ok(await call('POST', `/public/lead-lists/${listId}/import`, { apiKey, body: { leads } }), 'import');
      if (body.created !== leads.length) throw new Error(`import created ${body.created} of ${leads.length}`);
    }
    let moved = 0;
    for (let request = 0; moved < PROSPECTS; request += 1) {
      if (request > PROSPECTS / PER_REQUEST + 2) throw new Error('add-to-campaign never ended');
      const body = ok(
        await call('POST', `/public/lead-lists/${listId}/add-to-campaign`, { apiKey, body: { campaign: campaignId, amount: 0, prospects_per_company: 1000 } }),
        'add-to-campaign',
      );
      moved += body.count;
      if (!body.has_more) break;
    }
    if (moved !== PROSPECTS) throw new Error(`moved ${moved} of ${PROSPECTS}`);
    ok(await call('POST', `/public/campaigns/${campaignId}/activate/`, { apiKey }), 'activate');
    const scheduling = stack.queues[CAMPAIGN_SCHEDULING.name];
    if (!scheduling) throw new Error('no campaign-scheduling queue');
    while ((await stack.poller.pollOnce(scheduling)) > 0);
    const actionsPk = outreachActionKey(campaignId, 0).pk;
    const countActions = async () => {
      let count = 0;
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await stack.db.send(
          new QueryCommand({ TableName: stack.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': actionsPk }, Select: 'COUNT', ExclusiveStartKey: startKey }),
        );
        count += page.Count ?? 0;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return count;
    };
    const scheduled = await countActions();
    if (scheduled !== PROSPECTS) throw new Error(`${scheduled} actions after activation, expected ${PROSPECTS}`);
    const setupMs = performance.now() - setupStarted;
    // Sizes the model prices writes by, read before the engine changes them.
    const sizes = await itemSizes(stack, campaignId, listId, user.workspaceId);

    // ---- Measured: every DynamoDB call of the functions, by phase and by what it is ----
    const byLabel = new Map<string, Map<string, Tally>>();
    const samples = new Map<string, Record<string, unknown>>();
    let current = 'setup';
    meter.observer = (metered) => {
      const label = labelOf(metered);
      const phase = byLabel.get(current) ?? new Map<string, Tally>();
      byLabel.set(current, phase);
      const tally = phase.get(label) ?? emptyTally();
      phase.set(label, tally);
      addTo(tally, metered);
      if (!samples.has(label)) {
        const item = sampleOf(metered);
        if (item) samples.set(label, item);
      }
    };
    const phases = new Map<string, Phase>();
    async function inPhase<T>(name: string, fn: () => Promise<T>): Promise<{ result: T; ms: number }> {
      current = name;
      meter.reset();
      const started = performance.now();
      const result = await fn();
      const ms = performance.now() - started;
      const phase = phases.get(name) ?? { ms: 0, ...emptyTally() };
      phase.ms += ms;
      phase.calls += meter.calls;
      phase.rcu += meter.readUnits;
      phase.wcu += meter.writeUnits;
      phase.wcuComputed += meter.computedWriteUnits;
      phases.set(name, phase);
      current = 'between';
      return { result, ms };
    }

    const schedulerFn = stack.functions.schedules[OUTREACH_SCHEDULER.name];
    const outreach = stack.queues[OUTREACH.name];
    if (!schedulerFn || !outreach) throw new Error('no outreach scheduler or queue');
    const runScheduler = async () => {
      const event = { 'detail-type': 'Scheduled Event', source: 'aws.events', time: clock.now().toISOString(), detail: {} } as ScheduledEvent;
      return (await schedulerFn(event, lambdaContext(OUTREACH_SCHEDULER.name, 60_000))) as { dispatched: number; shardsSkipped: number };
    };
    /** Drains the outreach queue, `consumers` receive-handle-delete loops at once; the messages handled. */
    const drain = async (consumers: number) => {
      let messages = 0;
      await Promise.all(
        Array.from({ length: consumers }, async () => {
          for (let received = await stack.poller.pollOnce(outreach); received > 0; received = await stack.poller.pollOnce(outreach)) messages += received;
        }),
      );
      return messages;
    };
    const emailsSent = async () => (await stack.provider.control.state()).sent.filter((item) => item.kind === 'email').length;

    // Dispatch: one scheduler run over the 10,000 due actions.
    const dispatch = await inPhase('dispatch', runScheduler);
    if (dispatch.result.dispatched !== PROSPECTS) throw new Error(`dispatched ${dispatch.result.dispatched}, expected ${PROSPECTS}`);

    // The first pass, as the window opens: each action takes its position of the day; positions
    // 1-2 go at once, 3-2,000 wait for their slot today, the others for their day's slot.
    const pacing = await inPhase('pacing', () => drain(FIRST_PASS_CONSUMERS));
    const sentAtOnce = await emailsSent();
    const again = await inPhase('pacing', runScheduler);
    const pacingProblems = problems.count;

    const days: Day[] = [];
    let sent = sentAtOnce;
    for (let day = 0; sent < PROSPECTS && day < Math.ceil(PROSPECTS / CAP) + 2; day += 1) {
      const date = new Date(Date.parse(START) + day * 86_400_000).toISOString().slice(0, 10);
      clock.set(`${date}${DAY_END}`);
      const consumers = CONSUMERS_BY_DAY[day] ?? 1;
      const row: Day = { day: date, consumers, dispatched: 0, messages: 0, schedulerMs: 0, drainMs: 0, sent: 0, problems: problems.count };
      for (let round = 0; round < ROUNDS; round += 1) {
        const scheduler = await inPhase(`scheduler:${date}`, runScheduler);
        row.schedulerMs += scheduler.ms;
        row.dispatched += scheduler.result.dispatched;
        if (scheduler.result.dispatched === 0) break;
        const drained = await inPhase(`send:${date}`, () => drain(consumers));
        row.drainMs += drained.ms;
        row.messages += drained.result;
      }
      const total = await emailsSent();
      row.sent = total - sent;
      row.problems = problems.count - row.problems;
      sent = total;
      days.push(row);
    }
    // Actions whose end could not be recorded keep their claim: the crash rule settles them once it expires.
    const settle = { steps: 0, dispatched: 0, left: await countActions() };
    while (settle.left > 0 && settle.steps < 6) {
      clock.advance(SETTLE_STEP_MS);
      settle.steps += 1;
      for (let round = 0; round < ROUNDS; round += 1) {
        const scheduler = await inPhase('settle', runScheduler);
        settle.dispatched += scheduler.result.dispatched;
        if (scheduler.result.dispatched === 0) break;
        await inPhase('settle', () => drain(1));
      }
      settle.left = await countActions();
    }
    meter.observer = undefined;

    const left = settle.left;
    const outcomes = await countOutcomes(stack, campaignId);
    const campaign = ok(await call('GET', `/public/campaigns/${campaignId}/`, { apiKey }), 'campaign').campaign;

    return {
      title: `Engine: ${PROSPECTS.toLocaleString('en')} prospects, one EMAIL step, ${days.length} days`,
      markdown: report({
        setupMs,
        dispatch: { ...(phases.get('dispatch') as Phase), dispatched: dispatch.result.dispatched },
        pacing: { ...(phases.get('pacing') as Phase), messages: pacing.result, sentAtOnce, again: again.result.dispatched },
        phases,
        days,
        pacingProblems,
        settle,
        grown: await itemSizes(stack, campaignId, listId, user.workspaceId, false),
        sent,
        left,
        outcomes,
        campaignStatus: String(campaign.status),
        byLabel,
        samples,
        sizes,
      }),
    };
  },
};

/** Sizes of the items the status write changes (and of an action, while there is one). */
async function itemSizes(stack: BenchContext['stack'], campaignId: number, listId: number, workspaceId: number, withAction = true) {
  const get = async (key: { pk: string; sk: string }) =>
    (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }))).Item as Record<string, unknown> | undefined;
  const firstAction = withAction
    ? ((
        await stack.db.send(
          new QueryCommand({ TableName: stack.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': outreachActionKey(campaignId, 0).pk }, Limit: 1 }),
        )
      ).Items?.[0] as Record<string, unknown> | undefined)
    : undefined;
  const digest = await stack.db.send(
    new QueryCommand({
      TableName: stack.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `LEADLIST#${String(listId).padStart(16, '0')}#MEMBERS`, ':prefix': 'DIGEST' },
      ConsistentRead: true,
    }),
  );
  const list = await get(leadListKey(workspaceId, listId));
  const leadCounts = await get(workspaceLeadCountsKey(workspaceId));
  const tokens = (item: Record<string, unknown> | undefined) => (item?.openJournals instanceof Set ? item.openJournals.size : 0);
  const sizeOf = (item: Record<string, unknown> | undefined) => (item ? itemSize(item) : 0);
  return {
    action: sizeOf(firstAction),
    campaignProspect: firstAction ? sizeOf(await get(campaignProspectKey(campaignId, Number(firstAction.prospectId)))) : 0,
    list: sizeOf(list),
    listTokens: tokens(list),
    leadCounts: sizeOf(leadCounts),
    leadCountsTokens: tokens(leadCounts),
    digestChunks: ((digest.Items ?? []) as Record<string, unknown>[]).map((chunk) => itemSize(chunk)),
  };
}

async function countOutcomes(stack: BenchContext['stack'], campaignId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await stack.db.send(
      new QueryCommand({
        TableName: stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `CAMPAIGN#${String(campaignId).padStart(16, '0')}#OUTCOMES` },
        ProjectionExpression: 'outcome',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) counts[String(item.outcome)] = (counts[String(item.outcome)] ?? 0) + 1;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return counts;
}

type Sizes = Awaited<ReturnType<typeof itemSizes>>;

interface Findings {
  setupMs: number;
  dispatch: Phase & { dispatched: number };
  pacing: Phase & { messages: number; sentAtOnce: number; again: number };
  phases: Map<string, Phase>;
  days: Day[];
  pacingProblems: number;
  settle: { steps: number; dispatched: number; left: number };
  sent: number;
  left: number;
  outcomes: Record<string, number>;
  campaignStatus: string;
  byLabel: Map<string, Map<string, Tally>>;
  samples: Map<string, Record<string, unknown>>;
  sizes: Sizes;
  grown: Sizes;
}

const units = (bytes: number, per: number) => Math.max(1, Math.ceil(bytes / per));

/**
 * What each row should cost per sent action from the item sizes (DynamoDB's rules: a write is
 * 1 WCU per KB per copy, the table's and each index's; a due time that moves deletes and puts the
 * index entry; a transaction doubles; a strongly consistent read is 1 RCU per 4 KB), and how many
 * of it one sent action takes on the path that sends at once. Keyed by the breakdown's labels.
 */
function model(f: Findings): Map<string, { count: number; rcu: number; wcu: number; note: string }> {
  const size = (label: string, otherwise: number) => {
    const item = f.samples.get(label);
    return item ? itemSize(item) : otherwise;
  };
  const claimSize = size('claim (action put)', f.sizes.action + 150);
  const outcomeSize = size('outcome record', 320);
  const emailSize = size('sent email', 190);
  const journalSize = size('status: journal put', 250);
  const viewItem = f.samples.get('status: list member view (batch put)');
  const viewSize = viewItem ? itemSize(viewItem) : 1000;
  const viewCopies = viewItem ? itemCopies(viewItem) : 6;
  const prospectItem = f.samples.get('status: prospect put + campaign prospect update (transaction)');
  const prospectSize = prospectItem ? itemSize(prospectItem) : 1000;
  const prospectCopies = prospectItem ? itemCopies(prospectItem) : 3;
  const chunkSize = size('status: list digest write (transaction with the list item)', 2500);
  const digestBytes = f.sizes.digestChunks.reduce((sum, bytes) => sum + bytes, 0);
  const perBatch = 1 / 50;
  const rows: [string, number, number, number, string][] = [
    ['action read', 1, units(f.sizes.action, 4 * KB), 0, 'GetItem, strongly consistent'],
    ['prospect reads (batch, and again by the status write)', 2, units(prospectSize, 4 * KB), 0, 'sender batch + status write, consistent'],
    ['company reads (sender, and again by the status write)', 2, 1, 0, 'one per company per batch + status write'],
    ['campaign + flow (per batch)', perBatch, 1, 0, 'campaign item + 1 node, once per 50 actions'],
    ['sender accounts (per batch)', perBatch, 1, 0, `${MAILBOXES} account items, once per 50 actions`],
    ['campaign position (ADD)', 1, 0, 1, 'UpdateItem on a counter < 1 KB'],
    ['account send (conditional ADD)', 1, 0, 1, 'UpdateItem on a counter < 1 KB'],
    ['claim (action put)', 1, 0, units(claimSize, KB) * 2, `${claimSize} B: table + gsi2 entry (its key does not move)`],
    ['outcome record', 1, 0, units(outcomeSize, KB), `${outcomeSize} B, table only`],
    ['sent email', 1, 0, units(emailSize, KB), `${emailSize} B, table only`],
    ['end of sequence (action delete)', 1, 0, units(claimSize, KB) * 2, 'table + gsi2 entry'],
    ['campaign completion check (2 queries)', 2, 1, 0, 'lsi1, Limit 1, strongly consistent (DynamoDB Local reports 0.5 each)'],
    ['status: journal put', 1, 0, units(journalSize, KB), `${journalSize} B`],
    [
      'status: journal open (list + workspace counters, transaction)',
      1,
      0,
      2 * (units(f.sizes.list, KB) + units(f.sizes.leadCounts, KB)),
      `2 Updates: list ${f.sizes.list} B, workspace counters ${f.sizes.leadCounts} B (as before the run); ×2`,
    ],
    ['status: batches-opened reads', 2, units(f.sizes.leadCounts, 4 * KB), 0, 'before the writes, and before the view check'],
    [
      'status: prospect put + campaign prospect update (transaction)',
      1,
      0,
      2 * (units(prospectSize, KB) * prospectCopies + units(f.sizes.campaignProspect, KB) * 3),
      `prospect ${prospectSize} B × ${prospectCopies} copies; campaign prospect ${f.sizes.campaignProspect} B, its lsi1 key moves (table + delete + put); ×2`,
    ],
    ['status: list member view (batch put)', 1, 0, units(viewSize, KB) * viewCopies, `${viewSize} B × ${viewCopies} copies (table + LSIs)`],
    ['status: list digest read', 1, units(digestBytes, 4 * KB), 0, `all ${f.sizes.digestChunks.length} chunks, ${fmt(digestBytes / KB, 1)} KB, strongly consistent`],
    ['status: list digest write (transaction with the list item)', 1, 0, 2 * (units(chunkSize, KB) + units(f.sizes.list, KB)), `the prospect's chunk, ${fmt(chunkSize / KB, 1)} KB, + the list item; ×2`],
    ['status: view check (prospect versions)', 1, units(prospectSize, 4 * KB), 0, 'when another batch opened meanwhile (always, under load)'],
    ['status: journal close (workspace counters)', 1, 0, units(f.sizes.leadCounts, KB), 'UpdateItem'],
    ['status: journal delete', 1, 0, units(journalSize, KB), 'DeleteItem'],
  ];
  return new Map(rows.map(([label, count, rcu, wcu, note]) => [label, { count, rcu: rcu * count, wcu: wcu * count, note }]));
}

/** The calls of the phases whose names start with one of `prefixes`, summed by row. */
function rowsOf(f: Findings, prefixes: string[]): Map<string, Tally> {
  const rows = new Map<string, Tally>();
  for (const [phase, labels] of f.byLabel) {
    if (!prefixes.some((prefix) => phase.startsWith(prefix))) continue;
    for (const [label, t] of labels) {
      const sum = rows.get(label) ?? emptyTally();
      sum.calls += t.calls;
      sum.rcu += t.rcu;
      sum.wcu += t.wcu;
      sum.wcuComputed += t.wcuComputed;
      rows.set(label, sum);
    }
  }
  return rows;
}

function sumOf(rows: Map<string, Tally>, keep: (label: string) => boolean = () => true): Tally {
  const sum = emptyTally();
  for (const [label, t] of rows) {
    if (!keep(label)) continue;
    sum.calls += t.calls;
    sum.rcu += t.rcu;
    sum.wcu += t.wcu;
    sum.wcuComputed += t.wcuComputed;
  }
  return sum;
}

function phaseSum(f: Findings, prefix: string): Phase {
  const sum: Phase = { ms: 0, ...emptyTally() };
  for (const [name, p] of f.phases) {
    if (!name.startsWith(prefix)) continue;
    sum.ms += p.ms;
    sum.calls += p.calls;
    sum.rcu += p.rcu;
    sum.wcu += p.wcu;
    sum.wcuComputed += p.wcuComputed;
  }
  return sum;
}

function report(f: Findings): string {
  const n = f.sent || 1;
  const per = (value: number, count = n) => fmt(value / count, 2);
  const dispatchRate = f.dispatch.dispatched / (f.dispatch.ms / 1000);
  const daySent = f.days.reduce((sum, day) => sum + day.sent, 0);
  const send = phaseSum(f, 'send:');
  const sendRate = daySent / (send.ms / 1000);
  const sendingPhases = ['pacing', 'scheduler:', 'send:', 'settle'];
  const all = rowsOf(f, sendingPhases);
  const path = rowsOf(f, ['send:']);
  const whole = sumOf(all);
  const engineOnly = sumOf(all, (label) => !label.startsWith('status:'));
  const modelled = model(f);
  const modelSum = [...modelled.values()].reduce((sum, row) => ({ rcu: sum.rcu + row.rcu, wcu: sum.wcu + row.wcu }), { rcu: 0, wcu: 0 });
  const statusModel = [...modelled]
    .filter(([label]) => label.startsWith('status:'))
    .reduce((sum, [, row]) => ({ rcu: sum.rcu + row.rcu, wcu: sum.wcu + row.wcu }), { rcu: 0, wcu: 0 });

  const order = (label: string) => (label.startsWith('scheduler') ? 0 : label.startsWith('status:') ? 2 : 1);
  const labels = [...new Set([...all.keys(), ...modelled.keys()])].sort((a, b) => order(a) - order(b));
  const breakdown = labels.map((label) => {
    const a = all.get(label) ?? emptyTally();
    const p = path.get(label) ?? emptyTally();
    const m = modelled.get(label);
    return [label, per(a.calls), per(a.rcu), per(a.wcu), per(a.wcuComputed), per(p.rcu), per(p.wcuComputed), m ? fmt(m.rcu, 2) : '', m ? fmt(m.wcu, 2) : '', m?.note ?? ''];
  });
  const pathSum = sumOf(path);
  breakdown.push([
    '**total**',
    per(whole.calls),
    `**${per(whole.rcu)}**`,
    per(whole.wcu),
    `**${per(whole.wcuComputed)}**`,
    per(pathSum.rcu),
    per(pathSum.wcuComputed),
    `**${fmt(modelSum.rcu, 2)}**`,
    `**${fmt(modelSum.wcu, 2)}**`,
    `of which the status write: ${fmt(statusModel.rcu, 2)} RCU, ${fmt(statusModel.wcu, 2)} WCU`,
  ]);

  const verdict = (value: number, target: number, unit: string, higherIsBetter = false) => {
    const met = higherIsBetter ? value >= target : value <= target;
    const by = higherIsBetter ? target / value : value / target;
    return met ? `**met** (${fmt(value, 2)} ${unit})` : `**not met**: ${fmt(value, 2)} ${unit}, ${fmt(by, 1)}× the target`;
  };

  const dayRows = f.days.map((day) => {
    const rows = sumOf(rowsOf(f, [`send:${day.day}`]));
    return [
      day.day,
      day.consumers,
      day.dispatched,
      day.messages,
      day.sent,
      fmt(day.schedulerMs, 0),
      fmt(day.drainMs, 0),
      `**${fmt(day.sent / (day.drainMs / 1000), 1)}**`,
      per(rows.rcu, day.sent || 1),
      per(rows.wcuComputed, day.sent || 1),
      day.problems,
    ];
  });
  const phaseRow = (name: string, p: Phase, detail: string) => [name, detail, fmt(p.ms, 0), fmt(p.rcu, 0), fmt(p.wcu, 0), fmt(p.wcuComputed, 0), p.calls];
  const scheduler = phaseSum(f, 'scheduler:');
  const settle = phaseSum(f, 'settle');
  const sizesRow = (name: string, s: Sizes) => [
    name,
    `${s.list} B (${s.listTokens} open batches)`,
    `${s.leadCounts} B (${s.leadCountsTokens} open batches)`,
    `${s.digestChunks.length} chunks, ${fmt(s.digestChunks.reduce((a, b) => a + b, 0) / KB, 1)} KB`,
  ];

  return [
    `Setup (not measured, ${fmt(f.setupMs / 1000, 1)} s): ${MAILBOXES} sandbox mailboxes at ${ACCOUNT_LIMIT.toLocaleString('en')} emails a day; a campaign with one EMAIL step, ` +
      `\`email_max_messages\` ${CAP.toLocaleString('en')} (the maximum), timezone UTC, a window open every day 00:00-23:59; ${PROSPECTS.toLocaleString('en')} prospects ` +
      `with emails imported into one list (${PER_REQUEST.toLocaleString('en')} a request, 500 companies), moved in with add-to-campaign without activation, then \`activate\` ` +
      `and the campaign-scheduling queue drained: ${PROSPECTS.toLocaleString('en')} actions due at ${START}. A ManualClock: the scenario moves time. ` +
      'The outreach queue is drained by its consumer in process (the poller\'s receive, handler and delete; several loops at once stand for concurrent Lambda invocations).',
    '',
    table(
      ['phase', 'detail', 'ms', 'RCU', 'WCU (reported)', 'WCU (computed)', 'DynamoDB calls'],
      [
        phaseRow('dispatch', f.dispatch, `one scheduler run: ${f.dispatch.dispatched.toLocaleString('en')} due actions → **${fmt(dispatchRate, 0)} actions/s**`),
        phaseRow(
          'first pass',
          f.pacing,
          `${f.pacing.messages} messages as the window opens (${FIRST_PASS_CONSUMERS} consumers): ${f.pacing.sentAtOnce} sent at once, the others wait for their slot or day ` +
            `(${fmt((PROSPECTS / f.pacing.ms) * 1000, 0)} actions/s); a scheduler run after it dispatched ${f.pacing.again}; ${f.pacingProblems} ERROR/WARN lines`,
        ),
        phaseRow('scheduler, day ends', scheduler, `${f.days.length} days, runs until nothing more is due`),
        phaseRow('sending, day ends', send, `${daySent.toLocaleString('en')} sent → **${fmt(sendRate, 1)} sends/s** overall`),
        phaseRow('settling', settle, `${f.settle.steps} steps of 16 min after the last day: ${f.settle.dispatched} dispatched (claims left by failed actions, settled by the crash rule)`),
      ],
    ),
    '',
    table(['day (clock at 23:58:30 UTC)', 'consumers', 'dispatched', 'messages', 'emails sent', 'scheduler ms', 'drain ms', 'sends/s', 'RCU / sent', 'WCU / sent (computed)', 'ERROR/WARN'], dayRows),
    '',
    `After the last day: ${f.sent.toLocaleString('en')} emails in the sandbox, outcome records ${JSON.stringify(f.outcomes)}, ${f.left} actions left, campaign ${f.campaignStatus}.`,
    '',
    table(['items the status write updates', 'list item', 'workspace lead counters', 'list digest'], [sizesRow('before the first send', f.sizes), sizesRow('after the run', f.grown)]),
    '',
    '### Targets (DynamoDB Local)',
    '',
    `- Dispatch ≥ 1,000 due actions/s: ${verdict(dispatchRate, 1000, 'actions/s', true)}.`,
    `- ≤ 10 WCU per sent action: ${verdict(whole.wcuComputed / n, 10, 'WCU')} (computed; DynamoDB Local reported ${per(whole.wcu)}; the model says ${fmt(modelSum.wcu, 2)}). ` +
      `Without the prospect's status write: ${per(engineOnly.wcuComputed)} WCU.`,
    `- ≤ 4 RCU per sent action: ${verdict(whole.rcu / n, 4, 'RCU')} (the model says ${fmt(modelSum.rcu, 2)}). Without the prospect's status write: ${per(engineOnly.rcu)} RCU.`,
    '',
    `### Capacity per sent action (${f.sent.toLocaleString('en')} sent)`,
    '',
    '"All" is every call from the first pass on (its drain, the day ends\' scheduler runs and drains, the settling) divided by the emails sent; ' +
      '"send path" only the day ends\' drains (actions read when their slot has passed, sent at once). "Model" prices each row from the item sizes ' +
      'seen in this run for one action on the path that sends at once, without retries (the first pass adds to each action a read, a prospect read, a ' +
      'position and a wait put); a transaction doubles, an index entry whose key moves is a delete and a put. "WCU computed" is what the ' +
      'capacity meter makes of DynamoDB Local\'s reports: a transaction priced from its items (2 per KB per copy; an Update counted as 1 KB, ' +
      'whatever the item\'s size). A refused condition or a cancelled transaction is not counted at all (DynamoDB bills them), so contention costs more than shown.',
    '',
    table(['call', 'calls (all)', 'RCU (all)', 'WCU reported (all)', 'WCU computed (all)', 'RCU (send path)', 'WCU computed (send path)', 'RCU (model)', 'WCU (model)', 'model: item and rule'], breakdown),
    '',
    problems.count > 0
      ? `Function log: ${problems.count} ERROR/WARN lines; the first: \`${problems.first[0]}\``
      : "No ERROR or WARN line in the functions' logs.",
  ].join('\n');
}
