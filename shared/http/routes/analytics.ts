import * as v from 'valibot';
import { CAMPAIGN_STATUSES } from '../../domain/campaigns/campaign';
import { CAMPAIGN_NOT_FOUND } from '../../domain/campaigns/lookup';
import { defineRoute, idParam } from './define';

/** Query values arrive as text; the domain checks them and answers 400 naming the parameter. */
const text = v.optional(v.string());
const DateRangeQuery = v.object({ start_date: text, end_date: text });

const DailyMetric = v.strictObject({
  date: v.string(),
  emails_sent: v.number(),
  network_messages_sent: v.number(),
  invites_sent: v.number(),
  invites_accepted: v.number(),
  replies: v.number(),
  interested: v.number(),
});

const campaignFields = {
  amount_of_prospects: v.number(),
  amount_of_emails_sent: v.number(),
  amount_of_invites_sent: v.number(),
  amount_of_invites_accepted: v.number(),
  amount_of_network_messages_sent: v.number(),
  amount_of_prospects_contacted: v.number(),
  amount_of_replies: v.number(),
  amount_of_interested: v.number(),
  average_reply_time: v.string(),
};

const Variant = v.strictObject({
  subject_line: v.string(),
  message_template: v.string(),
  sent_count: v.number(),
  reply_count: v.number(),
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
      query: v.object({ ...DateRangeQuery.entries, sender_accounts: text, campaigns: text, campaign_statuses: text }),
    },
    listQuery: ['sender_accounts', 'campaigns', 'campaign_statuses'],
    responses: {
      200: v.strictObject({
        success: v.literal(true),
        analytics: v.strictObject({
          total_prospects: v.number(),
          total_emails_sent: v.number(),
          total_network_messages_sent: v.number(),
          total_invites_sent: v.number(),
          total_invites_accepted: v.number(),
          total_replies: v.number(),
          total_interested: v.number(),
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
          tests: v.array(v.strictObject({ step_id: v.number(), step_name: v.string(), variant_a: Variant, variant_b: Variant })),
        }),
        pipeline: v.strictObject({ leads_contacted: v.number(), replied: v.number(), interested: v.number(), meeting_scheduled: v.number() }),
        metrics_per_step: v.record(v.string(), v.strictObject({ emails_sent: v.number(), replies: v.number(), reply_rate: v.number() })),
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
            id: v.number(),
            name: v.string(),
            status: v.picklist(CAMPAIGN_STATUSES),
            workspace_id: v.number(),
            analytics: v.strictObject(campaignFields),
          }),
        ),
      }),
    },
    errors: [403],
  }),
};
