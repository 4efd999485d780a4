import { itemCopies, itemSize } from '../../../shared/db/item-size';
import { fmt, table } from '../../lib';
import { COMPLETION_CHECK, FIRST_ACTION_READ, FIRST_WRITE, OUTCOME_RECORD, type Tally, emptyTally, isAnalytics } from './calls';
import { ACCOUNT_LIMIT, CAP, FIRST_PASS_CONSUMERS, KB, MAILBOXES, PER_REQUEST, PROSPECTS, START, STEPS, stepsLabel } from './config';
import type { itemSizes } from './setup';

/** The engine bench's report: its phases, days, targets and the per-call breakdown beside a cost model. */

/** The functions' ERROR and WARN lines (the outreach consumer logs an action it could not record): how many, and the first few. */
export const problems = { count: 0, first: [] as string[] };

export interface Phase extends Tally {
  ms: number;
}

export interface Day {
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

export type Sizes = Awaited<ReturnType<typeof itemSizes>>;

export interface Findings {
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

export const units = (bytes: number, per: number) => Math.max(1, Math.ceil(bytes / per));

/**
 * What each row should cost per sent action from the item sizes (DynamoDB's rules: a write is
 * 1 WCU per KB per copy, the table's and each index's; a due time that moves deletes and puts the
 * index entry; a transaction doubles; a strongly consistent read is 1 RCU per 4 KB), and how many
 * of it one sent action takes on the path that sends at once. Keyed by the breakdown's labels.
 */
export function model(f: Findings): Map<string, { count: number; rcu: number; wcu: number; note: string }> {
  const size = (label: string, otherwise: number) => {
    const item = f.samples.get(label);
    return item ? itemSize(item) : otherwise;
  };
  const sampled = (label: string, otherwise: { size: number; copies: number }) => {
    const item = f.samples.get(label);
    return item ? { size: itemSize(item), copies: itemCopies(item) } : otherwise;
  };
  const claimSize = size('claim (action put)', f.sizes.action + 150);
  const outcomeSize = size('analytics: counters (transaction with the outcome record)', 320);
  const message = sampled('conversation: message put', { size: 600, copies: 1 });
  const summary = sampled('conversation: summary put', { size: 600, copies: 2 });
  const view = sampled('status: list member view (put unless newer)', { size: 1000, copies: 6 });
  const prospect = sampled('status: prospect put + campaign prospect update (transaction)', { size: 1000, copies: 2 });
  const perBatch = 1 / 50;
  const rows: [string, number, number, number, string][] = [
    [
      'action read',
      0,
      units(f.sizes.action, 4 * KB) / 2,
      0,
      'GetItem, eventually consistent (strong again only before a decision no conditional write confirms); a later action (a first action is read from its campaign prospect)',
    ],
    [FIRST_ACTION_READ, 1, units(f.sizes.campaignProspect, 4 * KB) / 2, 0, 'its first dispatch: GetItem of the campaign prospect carrying it, eventually consistent (same rule)'],
    [
      FIRST_WRITE,
      1,
      0,
      2 * (units(claimSize, KB) * 2 + units(f.sizes.campaignProspect, KB) + 1),
      `on this path the claim: the action put (${claimSize} B, table + gsi2 entry) and the campaign prospect's Update (table + its gsi2 entry deleted); ×2`,
    ],
    ['prospect reads (batch)', 1, units(prospect.size, 4 * KB) / 2, 0, 'sender batch (BatchGetItem, eventually consistent, same rule); the status write starts from it'],
    [
      'suppression check',
      1,
      1,
      0,
      'BatchGetItem of the address and its domain, eventually consistent: DynamoDB bills a missing item at the minimum (0.5 RCU); DynamoDB Local reports 0, added in the measured columns',
    ],
    ['company reads (batch)', 1, 0.5, 0, 'one per company per batch (50 actions, 500 companies: ~1 per action), eventually consistent; the status write reuses it'],
    ['campaign + flow (per batch)', perBatch, 1, 0, 'campaign item + 1 node, once per 50 actions'],
    ['sender accounts (per batch)', perBatch, 1, 0, `${MAILBOXES} account items, once per 50 actions`],
    ['campaign position (ADD)', 1, 0, 1, 'UpdateItem on a counter < 1 KB'],
    ['account send (conditional ADD)', 1, 0, 1, 'UpdateItem on a counter < 1 KB'],
    ['claim (action put)', 0, 0, units(claimSize, KB) * 2, `${claimSize} B: table + gsi2 entry (its key does not move); a later claim (a first action's is its first write)`],
    [OUTCOME_RECORD, 1, 0, units(outcomeSize, KB), `${outcomeSize} B, table only (alone; it is written in analytics' transaction)`],
    ['sent email (Update)', 1, 0, 1, "the sender's record, UpdateItem < 1 KB, table only (no index key)"],
    ['Message-ID link (Put)', 1, 0, 1, "the provider's mail_sent webhook: a Put < 1 KB, table only"],
    ['conversation: message put', 1, 0, units(message.size, KB) * message.copies, `${message.size} B × ${message.copies} copies`],
    ['conversation: summary put', 1, 0, units(summary.size, KB) * summary.copies, `${summary.size} B × ${summary.copies} copies`],
    ['end of sequence (action delete)', 1, 0, units(claimSize, KB) * 2, 'table + gsi2 entry'],
    [COMPLETION_CHECK, 3 * perBatch, 1, 0, 'the campaign item (GetItem, strong: its prospect count) and lsi1 twice, Limit 1, strongly consistent, once per batch (DynamoDB Local reports 0.5 for each query)'],
    ['status: batches counter (ADD)', 1, 0, units(f.sizes.leadCounts, KB), `UpdateItem on the workspace lead counts (${f.sizes.leadCounts} B)`],
    [
      'status: prospect put + campaign prospect update (transaction)',
      1,
      0,
      2 * (units(prospect.size, KB) * prospect.copies + units(f.sizes.campaignProspect, KB) * 3),
      `prospect ${prospect.size} B × ${prospect.copies} copies; campaign prospect ${f.sizes.campaignProspect} B, its lsi1 key moves (table + delete + put); ×2`,
    ],
    [
      'status: list member view (put unless newer)',
      1,
      0,
      units(view.size, KB),
      `${view.size} B, table only: its ${view.copies - 1} LSI entries hold keys, and none moves (6 copies with ALL LSIs)`,
    ],
  ];
  return new Map(rows.map(([label, count, rcu, wcu, note]) => [label, { count, rcu: rcu * count, wcu: wcu * count, note }]));
}

/** The calls of the phases whose names start with one of `prefixes`, summed by row. */
export function rowsOf(f: Findings, prefixes: string[]): Map<string, Tally> {
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

export function sumOf(rows: Map<string, Tally>, keep: (label: string) => boolean = () => true): Tally {
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

export function phaseSum(f: Findings, prefix: string): Phase {
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

export function report(f: Findings): string {
  const n = f.sent || 1;
  const per = (value: number, count = n) => fmt(value / count, 2);
  const dispatchRate = f.dispatch.dispatched / (f.dispatch.ms / 1000);
  const daySent = f.days.reduce((sum, day) => sum + day.sent, 0);
  const send = phaseSum(f, 'send:');
  const sendRate = daySent / (send.ms / 1000);
  const sendingPhases = ['pacing', 'scheduler:', 'send:', 'settle'];
  const all = rowsOf(f, sendingPhases);
  const path = rowsOf(f, ['send:']);
  // Analytics is excluded from the per-send figures (issue 11's targets) and shown on its own.
  const whole = sumOf(all, (label) => !isAnalytics(label));
  const analytics = sumOf(all, isAnalytics);
  const engineOnly = sumOf(all, (label) => !label.startsWith('status:') && !isAnalytics(label));
  const modelled = model(f);
  const modelSum = [...modelled.values()].reduce((sum, row) => ({ rcu: sum.rcu + row.rcu, wcu: sum.wcu + row.wcu }), { rcu: 0, wcu: 0 });
  const statusModel = [...modelled]
    .filter(([label]) => label.startsWith('status:'))
    .reduce((sum, [, row]) => ({ rcu: sum.rcu + row.rcu, wcu: sum.wcu + row.wcu }), { rcu: 0, wcu: 0 });

  const order = (label: string) => (label.startsWith('scheduler') ? 0 : label.startsWith('status:') ? 2 : isAnalytics(label) ? 3 : 1);
  const labels = [...new Set([...all.keys(), ...modelled.keys()])].sort((a, b) => order(a) - order(b));
  const breakdown = labels.map((label) => {
    const a = all.get(label) ?? emptyTally();
    const p = path.get(label) ?? emptyTally();
    const m = modelled.get(label);
    return [label, per(a.calls), per(a.rcu), per(a.wcu), per(a.wcuComputed), per(p.rcu), per(p.wcuComputed), m ? fmt(m.rcu, 2) : '', m ? fmt(m.wcu, 2) : '', m?.note ?? ''];
  });
  const pathSum = sumOf(path, (label) => !isAnalytics(label));
  const pathAnalytics = sumOf(path, isAnalytics);
  const firstAnalytics = breakdown.findIndex((row) => isAnalytics(String(row[0])));
  breakdown.splice(firstAnalytics < 0 ? breakdown.length : firstAnalytics, 0, [
    '**total, analytics excluded**',
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
  breakdown.push([
    '**analytics (excluded above)**',
    per(analytics.calls),
    per(analytics.rcu),
    per(analytics.wcu),
    `**${per(analytics.wcuComputed)}**`,
    per(pathAnalytics.rcu),
    per(pathAnalytics.wcuComputed),
    '',
    '',
    'the counters written with each outcome record and first contact (docs/analytics.md)',
  ]);

  const verdict = (value: number, target: number, unit: string, higherIsBetter = false) => {
    const met = higherIsBetter ? value >= target : value <= target;
    const by = higherIsBetter ? target / value : value / target;
    return met ? `**met** (${fmt(value, 2)} ${unit})` : `**not met**: ${fmt(value, 2)} ${unit}, ${fmt(by, 1)}× the target`;
  };

  const dayRows = f.days.map((day) => {
    const rows = sumOf(rowsOf(f, [`send:${day.day}`]), (label) => !isAnalytics(label));
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
    `Setup (not measured, ${fmt(f.setupMs / 1000, 1)} s): ${MAILBOXES} sandbox mailboxes at ${ACCOUNT_LIMIT.toLocaleString('en')} emails a day; a campaign with ${stepsLabel}, ` +
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
      `Without the prospect's status write: ${per(engineOnly.wcuComputed)} WCU. Analytics excluded (its rows: ${per(analytics.wcuComputed)} WCU computed, ` +
      `${per(analytics.rcu)} RCU per send more; ${per(whole.wcuComputed + analytics.wcuComputed)} WCU with it).`,
    `- ≤ 4 RCU per sent action: ${verdict(whole.rcu / n, 4, 'RCU')} (the model says ${fmt(modelSum.rcu, 2)}). Without the prospect's status write: ${per(engineOnly.rcu)} RCU.`,
    ...(STEPS > 1
      ? [
          `- Per prospect (its ${STEPS} sends, from its first dispatch to its end): ${per(whole.wcuComputed, PROSPECTS)} WCU computed, ${per(whole.rcu, PROSPECTS)} RCU, analytics excluded. ` +
            'The model column prices the one-step path (its status writes and first action once per send): compare the measured columns with a one-step run.',
        ]
      : []),
    '',
    `### Capacity per sent action (${f.sent.toLocaleString('en')} sent)`,
    '',
    'Analytics\' rows (its counters, in the transaction of each outcome record, whose own cost stays with the engine, and of the first contact) are excluded from ' +
      'the totals and the targets and shown after them. "All" is every call from the first pass on (its drain, the day ends\' scheduler runs and drains, the settling) divided by the emails sent; ' +
      '"send path" only the day ends\' drains (actions read when their slot has passed, sent at once). "Model" prices each row from the item sizes ' +
      'seen in this run for one action on the path that sends at once, without retries (the first pass adds to each action a read, a ' +
      'position and a wait put); a transaction doubles, an index entry whose key moves is a delete and a put. "WCU computed" is what the ' +
      'capacity meter makes of DynamoDB Local\'s reports: a transaction priced from its items (2 per KB per copy; an Update counted as 1 KB, ' +
      'whatever the item\'s size). "RCU" is what DynamoDB Local reports plus what it leaves out: an item a GetItem or BatchGetItem asks for and does not find, which DynamoDB bills at ' +
      'the minimum (1 unit strongly consistent, 0.5 eventually). A refused condition or a cancelled transaction is not counted at all (DynamoDB bills them), so contention costs more than shown.',
    '',
    table(['call', 'calls (all)', 'RCU (all)', 'WCU reported (all)', 'WCU computed (all)', 'RCU (send path)', 'WCU computed (send path)', 'RCU (model)', 'WCU (model)', 'model: item and rule'], breakdown),
    '',
    problems.count > 0
      ? `Function log: ${problems.count} ERROR/WARN lines; the first: \`${problems.first[0]}\``
      : "No ERROR or WARN line in the functions' logs.",
  ].join('\n');
}
