import { DynamoCampaignEvents } from '../../shared/db/campaign-events';
import { DynamoOutcomeLog } from '../../shared/db/outcome-log';
import { type BenchScenario, fmt, measured, median, table } from '../lib';

const PROSPECTS = 10_000;
const DAYS = 90;
const CAMPAIGNS = 20;
/** Sends recorded for each of the other campaigns (the dashboard reads their totals). */
const OTHER_SENDS = 200;
const CONCURRENCY = 8;
const RUNS = 5;
const START = Date.parse('2026-08-01T08:00:00.000Z');

async function inParallel<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

/**
 * Analytics reads (docs/analytics.md) over aggregates written by the real recording code: a
 * campaign whose 10,000 prospects get an email and, a day later, an invite, spread over 90 days
 * (20,000 sends through the outcome log), 2,000 first replies and 1,000 acceptances through the
 * campaign events, and 19 more campaigns with 200 sends each. Then each endpoint, 5 runs: RCU of
 * the request (authorizer included) and latency through the local gateway.
 */
export const scenario: BenchScenario = {
  name: 'analytics',
  async run(context) {
    const { call, user, stack } = context;
    const apiKey = user.apiKey;
    const campaignIds: number[] = [];
    const stepIds: number[] = [];
    for (let c = 0; c < CAMPAIGNS; c += 1) {
      const created = await call('POST', '/public/campaigns', { apiKey, body: { name: `Analytics bench ${c}` } });
      campaignIds.push(created.body.campaign.id);
    }
    const [main] = campaignIds as [number];
    for (const body of [
      { step_type: 'EMAIL', subject_line: 'A', message_template: 'A', subject_line_b: 'B', message_template_b: 'B' },
      { step_type: 'NETWORK_INVITE', message_template: 'Hi', delay_in_hours: 24 },
    ]) {
      stepIds.push((await call('POST', `/public/campaigns/${main}/steps`, { apiKey, body })).body.step.id);
    }
    const log = new DynamoOutcomeLog(stack.db, stack.tableName, stack.clock);
    const events = new DynamoCampaignEvents(stack.db, stack.tableName, stack.clock);
    const at = (prospect: number, hours: number) => new Date(START + (prospect % DAYS) * 86_400_000 + hours * 3_600_000).toISOString();
    const send = (campaignId: number, prospectId: number, node: number, stepType: 'EMAIL' | 'NETWORK_INVITE', hours: number) =>
      log.record({
        workspaceId: user.workspaceId,
        campaignId,
        prospectId,
        stint: 's1',
        nodeId: node,
        stepType,
        outcome: 'SENT',
        reason: null,
        accountId: stepType === 'EMAIL' ? 1 : 2,
        variant: stepType === 'EMAIL' ? (prospectId % 2 === 0 ? 'A' : 'B') : null,
        at: at(prospectId, hours),
      });
    const setupStarted = performance.now();
    const prospects = Array.from({ length: PROSPECTS }, (_, i) => 1_000_000 + i);
    await inParallel(prospects, async (p) => {
      await send(main, p, stepIds[0] as number, 'EMAIL', 0);
      await send(main, p, stepIds[1] as number, 'NETWORK_INVITE', 24);
    });
    const event = (prospectId: number, kind: 'REPLIED' | 'INVITE_ACCEPTED', hours: number) =>
      events.record({ workspaceId: user.workspaceId, campaignId: main, prospectId, kind, ref: kind === 'REPLIED' ? `m${prospectId}` : 'invite', at: at(prospectId, hours), channel: null, accountId: kind === 'REPLIED' ? 1 : 2, nodeId: null });
    await inParallel(prospects.filter((p) => p % 5 === 0), (p) => event(p, 'REPLIED', 30).then(() => undefined));
    await inParallel(prospects.filter((p) => p % 10 === 1), (p) => event(p, 'INVITE_ACCEPTED', 28).then(() => undefined));
    await inParallel(campaignIds.slice(1).flatMap((c) => Array.from({ length: OTHER_SENDS }, (_, i) => [c, 2_000_000 + i] as const)), ([c, p]) => send(c, p, 1, 'EMAIL', 0));
    const setupMs = performance.now() - setupStarted;

    const endpoints: [string, string, { apiKey?: string; token?: string }][] = [
      ['campaign analytics, 90 days', `/public/campaigns/${main}/analytics?start_date=2026-08-01&end_date=2026-10-29`, { apiKey }],
      ['campaign analytics, all-time', `/public/campaigns/${main}/analytics`, { apiKey }],
      ['account analytics, 90 days', '/public/analytics?start_date=2026-08-01&end_date=2026-10-29', { apiKey }],
      ['account analytics, all-time', '/public/analytics', { apiKey }],
      [`dashboard, ${CAMPAIGNS} campaigns (session)`, '/dashboard/campaign-analytics', { token: user.token }],
    ];
    const rows: (string | number)[][] = [];
    for (const [label, path, auth] of endpoints) {
      const runs = [];
      for (let i = 0; i < RUNS; i += 1) {
        const run = await measured(context.meter, () => call('GET', path, auth));
        if (run.result.status !== 200) throw new Error(`${label}: ${run.result.status} ${JSON.stringify(run.result.body).slice(0, 300)}`);
        runs.push(run);
      }
      rows.push([label, fmt(median(runs.map((r) => r.rcu)), 1), fmt(median(runs.map((r) => r.ms)), 1), median(runs.map((r) => r.calls))]);
    }
    const check = await call('GET', `/public/campaigns/${main}/analytics`, { apiKey });
    return {
      title: 'Analytics',
      markdown: [
        `Setup (not measured): ${PROSPECTS * 2 + (CAMPAIGNS - 1) * OTHER_SENDS} sends, ${PROSPECTS / 5} replies, ${PROSPECTS / 10} acceptances recorded through the real recording code, concurrency ${CONCURRENCY}, in ${fmt(setupMs / 1000, 1)} s.`,
        `Main campaign all-time: emails ${check.body.analytics.amount_of_emails_sent}, invites ${check.body.analytics.amount_of_invites_sent}, contacted ${check.body.analytics.amount_of_prospects_contacted}, replies ${check.body.analytics.amount_of_replies}, accepted ${check.body.analytics.amount_of_invites_accepted}, average reply time ${check.body.analytics.average_reply_time}.`,
        '',
        table(['request', 'RCU (median)', 'ms (median)', 'DynamoDB calls'], rows),
        '',
        'Targets (issue 14): campaign analytics over 90 days ≤ 50 RCU; the dashboard over 20 campaigns ≤ 100 RCU.',
      ].join('\n'),
    };
  },
};
