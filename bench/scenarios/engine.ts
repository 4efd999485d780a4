import type { ScheduledEvent } from 'aws-lambda';
import { lambdaContext } from '../../infra/local/lambda-context';
import { OUTREACH, OUTREACH_SCHEDULER } from '../../shared/runtime/catalog';
import { ManualClock } from '../../shared/time/clock';
import type { BenchScenario } from '../lib';
import { type Tally, addTo, chargesOf, emptyTally, labelOf, sampleOf } from './engine/calls';
import { CAP, CONSUMERS_BY_DAY, DAY_END, FIRST_PASS_CONSUMERS, PROSPECTS, ROUNDS, SENDS, SETTLE_STEP_MS, START, STEPS, stepsLabel } from './engine/config';
import { type Day, type Phase, problems, report } from './engine/report';
import { countOutcomes, itemSizes, ok, setUp } from './engine/setup';


const clock = new ManualClock(START);

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
    const { campaignId, listId, setupMs, countActions } = await setUp(context).catch((error: Error) => {
      // A failed request's cause is in the functions' log, not its answer.
      throw new Error(`${error.message}; the functions logged: ${problems.first.join(' | ') || 'nothing'}`);
    });
    // Sizes the model prices writes by, read before the engine changes them.
    const sizes = await itemSizes(stack, campaignId, listId, user.workspaceId);

    // ---- Measured: every DynamoDB call of the functions, by phase and by what it is ----
    const byLabel = new Map<string, Map<string, Tally>>();
    const samples = new Map<string, Record<string, unknown>>();
    let current = 'setup';
    meter.observer = (metered) => {
      const phase = byLabel.get(current) ?? new Map<string, Tally>();
      byLabel.set(current, phase);
      for (const charge of chargesOf(metered)) {
        const tally = phase.get(charge.label) ?? emptyTally();
        phase.set(charge.label, tally);
        addTo(tally, charge);
      }
      const label = labelOf(metered);
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
      phase.rcu += meter.readUnits + meter.missingReadUnits;
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
    for (let day = 0; sent < SENDS && day < Math.ceil(SENDS / CAP) + STEPS + 1; day += 1) {
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
      title: `Engine: ${PROSPECTS.toLocaleString('en')} prospects, ${stepsLabel}, ${days.length} days`,
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
