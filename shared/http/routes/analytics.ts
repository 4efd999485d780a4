import * as v from 'valibot';
import { CAMPAIGN_STATUSES } from '../../domain/campaigns/campaign';
import { CAMPAIGN_NOT_FOUND } from '../../domain/campaigns/lookup';
import { Count, Id, defineRoute, idParam, queryText } from './define';

/** Query values arrive as text; the domain checks them and answers 400 naming the parameter. */
const text = v.optional(v.string());
const date = (description: string) => queryText({ type: 'string', format: 'date' }, `${description} (YYYY-MM-DD).`);
const DateRangeQuery = v.object({ start_date: date('The first day of the range'), end_date: date('The last day of the range') });
const repeated = (items: Record<string, unknown>, description: string) =>
  queryText({ type: 'array', items }, `${description}: the parameter repeated, or its values comma-separated.`);

const DailyMetric = v.strictObject({
  date: v.string(),
  emails_sent: Count,
  network_messages_sent: Count,
  invites_sent: Count,
  invites_accepted: Count,
  replies: Count,
  interested: Count,
});

const campaignFields = {
  amount_of_prospects: Count,
  amount_of_emails_sent: Count,
  amount_of_invites_sent: Count,
  amount_of_invites_accepted: Count,
  amount_of_network_messages_sent: Count,
  amount_of_prospects_contacted: Count,
  amount_of_replies: Count,
  amount_of_interested: Count,
  average_reply_time: v.string(),
};

const Variant = v.strictObject({
  subject_line: v.string(),
  message_template: v.string(),
  sent_count: Count,
  reply_count: Count,
  reply_rate: v.number(),
});

export const analyticsRoutes = {
  getAccountAnalytics: defineRoute('analytics', {
    method: 'GET',
    path: '/public/analytics',
    auth: 'apiKey',
    summary:
      'Workspace-wide totals in UTC days; `start_date`/`end_date` limit them to a range and add `daily_metrics`. `sender_accounts`, `campaigns` and `campaign_statuses` filter (repeated or comma-separated).',
    request: {
      query: v.object({
        ...DateRangeQuery.entries,
        sender_accounts: repeated({ type: 'integer', minimum: 1 }, 'Only these sender accounts'),
        campaigns: repeated({ type: 'integer', minimum: 1 }, 'Only these campaigns'),
        campaign_statuses: repeated({ type: 'string', enum: [...CAMPAIGN_STATUSES] }, 'Only campaigns in these statuses'),
      }),
    },
    listQuery: ['sender_accounts', 'campaigns', 'campaign_statuses'],
    responses: {
      200: v.strictObject({
        success: v.literal(true),
        analytics: v.strictObject({
          total_prospects: Count,
          total_emails_sent: Count,
          total_network_messages_sent: Count,
          total_invites_sent: Count,
          total_invites_accepted: Count,
          total_replies: Count,
          total_interested: Count,
          reply_rate: v.number(),
          invite_acceptance_rate: v.number(),
          daily_metrics: v.optional(v.array(DailyMetric)),
        }),
      }),
    },
    errors: [],
  }),
  getCampaignAnalytics: defineRoute('analytics', {
    method: 'GET',
    path: '/public/campaigns/{id}/analytics',
    auth: 'apiKey',
    summary: "A campaign's analytics in its timezone's days (over `start_date`..`end_date` when given); A/B tests, pipeline and per-step metrics are all-time.",
    request: { path: v.object({ id: idParam(CAMPAIGN_NOT_FOUND) }), query: DateRangeQuery },
    responses: {
      200: v.strictObject({
        success: v.literal(true),
        analytics: v.strictObject({ ...campaignFields, daily_metrics: v.array(DailyMetric) }),
        ab_testing: v.strictObject({
          tests: v.array(v.strictObject({ step_id: Id, step_name: v.string(), variant_a: Variant, variant_b: Variant })),
        }),
        pipeline: v.strictObject({ leads_contacted: Count, replied: Count, interested: Count, meeting_scheduled: Count }),
        metrics_per_step: v.record(v.string(), v.strictObject({ emails_sent: Count, replies: Count, reply_rate: v.number() })),
      }),
    },
    errors: [404],
  }),
  getDashboardAnalytics: defineRoute('analytics', {
    method: 'GET',
    path: '/dashboard/campaign-analytics',
    auth: 'apiKeyOrSession',
    summary: 'All-time analytics of the campaigns of the current workspace, of one linked workspace (`workspace_id`), or of every linked one (`ALL`).',
    request: { query: v.object({ workspace_id: text }) },
    responses: {
      200: v.strictObject({
        campaigns: v.array(
          v.strictObject({
            id: Id,
            name: v.string(),
            status: v.picklist(CAMPAIGN_STATUSES),
            workspace_id: Id,
            analytics: v.strictObject(campaignFields),
          }),
        ),
      }),
    },
    errors: [403],
  }),
};
