import { type BenchContext, fmt, measured, median, table } from './lib';

/** Characters of each step's message template in the measured flow (the "~500-character templates"). */
const TEMPLATE_CHARS = 500;
/** Nodes of the measured flow: 16 steps and 4 conditions. */
const STEPS = 16;
const CONDITIONS = 4;
const READS = 20;

function template(n: number): string {
  const base = `Hi {{first_name}}, step ${n}: we help teams like {{company_name}} reach the right people without the busywork. `;
  return base.repeat(Math.ceil(TEMPLATE_CHARS / base.length)).slice(0, TEMPLATE_CHARS);
}

/**
 * Reading a campaign's detail (`GET /public/campaigns/{id}/`) with a 20-node flow of ~500-character
 * templates, built through the API: a main path of steps with conditions whose NO branches hold a
 * step each. Target on DynamoDB Local: under 10 RCU a read, authorization included.
 */
export async function benchCampaignDetail(context: BenchContext): Promise<{ markdown: string; medianRcu: number }> {
  const { call } = context;
  const { apiKey } = context.user;
  const created = await call('POST', '/public/campaigns/', { apiKey, body: { name: `Detail bench ${Date.now()}` } });
  if (created.status !== 201) throw new Error(`create campaign: ${created.status} ${JSON.stringify(created.body)}`);
  const campaignId = created.body.campaign.id as number;
  let steps = 0;
  let conditions = 0;
  let lastStep: number | undefined;
  const addStep = async (extra: Record<string, unknown>) => {
    steps += 1;
    const type = steps % 2 === 0 ? 'NETWORK_MESSAGE' : 'EMAIL';
    const body = { step_type: type, message_template: template(steps), ...(type === 'EMAIL' ? { subject_line: `Step ${steps} for {{first_name}}` } : {}), ...extra };
    const response = await call('POST', `/public/campaigns/${campaignId}/steps/`, { apiKey, body });
    if (response.status !== 201) throw new Error(`add step: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.step.id as number;
  };
  while (steps + conditions < STEPS + CONDITIONS) {
    lastStep = await addStep({});
    if (conditions < CONDITIONS && steps % 3 === 0) {
      const condition = await call('POST', `/public/campaigns/${campaignId}/conditions/`, {
        apiKey,
        body: { condition_type: 'HAS_EMAIL', parent_step_id: lastStep, delay_in_hours: 24 },
      });
      if (condition.status !== 201) throw new Error(`add condition: ${condition.status} ${JSON.stringify(condition.body)}`);
      conditions += 1;
      await addStep({ parent_condition_id: condition.body.condition.id, branch: 'NO' });
      lastStep = await addStep({ parent_condition_id: condition.body.condition.id, branch: 'YES' });
    }
  }
  const runs = [];
  for (let i = 0; i < READS; i += 1) {
    const run = await measured(context.meter, () => call('GET', `/public/campaigns/${campaignId}/`, { apiKey }));
    if (run.result.status !== 200) throw new Error(`detail: ${run.result.status}`);
    runs.push(run);
  }
  const detail = runs[0]?.result.body.campaign;
  const bytes = JSON.stringify(detail).length;
  const medianRcu = median(runs.map((run) => run.rcu));
  const markdown = [
    `A campaign detail with ${detail.steps.length} steps and ${detail.conditions.length} conditions, message templates of ${TEMPLATE_CHARS} characters (answer: ${fmt(bytes / 1024, 1)} KB), read ${READS} times, before any prospect is moved (the meter counts every call of the process: the engine's background work on moved prospects would fall into the reads' windows).`,
    '',
    table(
      ['operation', 'median ms', 'median RCU', 'calls', 'target'],
      [['GET /public/campaigns/{id}/ (authorization included)', fmt(median(runs.map((run) => run.ms)), 1), fmt(medianRcu, 1), median(runs.map((run) => run.calls)), '< 10 RCU']],
    ),
  ].join('\n');
  return { markdown, medianRcu };
}
