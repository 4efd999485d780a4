import type { AccountRepository } from '../accounts/ports';
import { CAMPAIGN_STATUSES, type Campaign, type CampaignStatus } from '../campaigns/campaign';
import { requireCampaignWithFlow } from '../campaigns/lookup';
import type { CampaignStep } from '../campaigns/nodes';
import type { CampaignRepository } from '../campaigns/ports';
import { selectWorkspaces } from '../campaigns/workspace-selector';
import { validationError } from '../errors';
import { variantTemplates } from '../engine/render';
import {
  type Counts,
  type DayRange,
  type StepCounts,
  addCounts,
  campaignFields,
  dailyMetric,
  daysOf,
  parseRange,
  percent,
  stepKey,
  zeroCounts,
} from './counts';

/** A day's counts of a campaign (its timezone) or of a workspace row (UTC). */
export interface DayCounts {
  day: string;
  counts: Counts;
}

/** A campaign's all-time counts, with its per-step-and-variant counts. */
export interface CampaignTotals {
  counts: Counts;
  steps: StepCounts;
}

/** One aggregate of a workspace: a campaign and sender account (0: none known), on a UTC day or all-time (day null). */
export interface WorkspaceRow {
  day: string | null;
  campaignId: number;
  accountId: number;
  counts: Counts;
}

/** The aggregates, read (shared/db/analytics-stats.ts). */
export interface AnalyticsReads {
  campaignDays(campaignId: number, range: DayRange | undefined): Promise<DayCounts[]>;
  campaignTotals(campaignIds: number[]): Promise<Map<number, CampaignTotals>>;
  workspaceRows(workspaceId: number, range: DayRange | undefined): Promise<WorkspaceRow[]>;
}

export interface AnalyticsDeps {
  stats: AnalyticsReads;
  campaigns: Pick<CampaignRepository, 'getWithFlow' | 'listForWorkspace'>;
  memberships: Pick<AccountRepository, 'listMemberships'>;
}

export interface DateQuery {
  start_date?: string;
  end_date?: string;
}

export interface AccountQuery extends DateQuery {
  sender_accounts?: string;
  campaigns?: string;
  campaign_statuses?: string;
}

/**
 * The entries of a comma-separated list parameter (repeated parameters arrive joined), trimmed; an
 * empty entry is none (`?campaigns=76&campaigns=` is 76, as an empty parameter is not given).
 */
const listEntries = (value: string | undefined): string[] => (value ?? '').split(',').map((part) => part.trim()).filter((part) => part !== '');

/** A list of ids, or 400 naming the parameter; undefined when it names none. */
function idList(name: string, value: string | undefined): Set<number> | undefined {
  const parts = listEntries(value);
  if (parts.length === 0) return undefined;
  // Ids start at 1 (the OpenAPI document says so): 0 is no id, refused like any other text, and so is
  // a number past the ids' safe-integer range (it would be read as another number).
  if (parts.some((part) => !/^[0-9]{1,16}$/.test(part) || Number(part) < 1 || !Number.isSafeInteger(Number(part)))) {
    throw validationError(`${name} must be a list of ids`);
  }
  return new Set(parts.map(Number));
}

function statusList(value: string | undefined): Set<CampaignStatus> | undefined {
  const parts = listEntries(value).map((part) => part.toUpperCase());
  if (parts.length === 0) return undefined;
  const unknown = parts.find((part) => !(CAMPAIGN_STATUSES as readonly string[]).includes(part));
  if (unknown !== undefined) throw validationError(`campaign_statuses must be among ${CAMPAIGN_STATUSES.join(', ')}`);
  return new Set(parts as CampaignStatus[]);
}

const sumDays = (days: DayCounts[]) => days.reduce((sum, day) => addCounts(sum, day.counts), zeroCounts());

/** Every day of the range, zero days included. */
function dailyMetrics(range: DayRange, days: Map<string, Counts>) {
  return daysOf(range).map((day) => dailyMetric(day, days.get(day) ?? zeroCounts()));
}

const stepName = (step: CampaignStep, position: number) => `Step ${position}: ${step.stepType}`;

export function createAnalyticsService(deps: AnalyticsDeps) {
  return {
    /** One campaign: its fields over the range (or all-time), its days, A/B tests, pipeline and per-step metrics (all-time). */
    async campaign(workspaceId: number, campaignId: number, query: DateQuery) {
      const range = parseRange(query.start_date, query.end_date);
      const { campaign, nodes } = await requireCampaignWithFlow(deps.campaigns, workspaceId, campaignId);
      const [days, totals] = await Promise.all([
        deps.stats.campaignDays(campaignId, range),
        deps.stats.campaignTotals([campaignId]).then((found) => found.get(campaignId) ?? { counts: zeroCounts(), steps: {} }),
      ]);
      const counts = range ? sumDays(days) : totals.counts;
      const daily = range ? dailyMetrics(range, new Map(days.map((day) => [day.day, day.counts]))) : days.map((day) => dailyMetric(day.day, day.counts));
      const steps = [...nodes.values()].filter((node): node is CampaignStep => node.kind === 'STEP').sort((a, b) => a.id - b.id);
      const variant = (step: CampaignStep, which: 'A' | 'B') => {
        const found = totals.steps[stepKey(step.id, which)] ?? { sent: 0, replied: 0 };
        // What the variant's sends went out with (a B that leaves one blank sends A's).
        const { subject, text } = variantTemplates(step, which);
        return {
          subject_line: subject,
          message_template: text,
          sent_count: found.sent,
          reply_count: found.replied,
          reply_rate: percent(found.replied, found.sent),
        };
      };
      const tests = steps
        .map((step, index) => ({ step, position: index + 1 }))
        .filter(({ step }) => step.subjectLineB.trim() !== '' || step.messageTemplateB.trim() !== '' || totals.steps[stepKey(step.id, 'B')] !== undefined)
        .map(({ step, position }) => ({
          step_id: step.id,
          step_name: stepName(step, position),
          variant_a: variant(step, 'A'),
          variant_b: variant(step, 'B'),
        }));
      const perStep: Record<string, { emails_sent: number; replies: number; reply_rate: number }> = {};
      for (const step of steps) {
        const a = totals.steps[stepKey(step.id, 'A')] ?? { sent: 0, replied: 0 };
        const b = totals.steps[stepKey(step.id, 'B')] ?? { sent: 0, replied: 0 };
        const sent = a.sent + b.sent;
        const replied = a.replied + b.replied;
        perStep[String(step.id)] = { emails_sent: sent, replies: replied, reply_rate: percent(replied, sent) };
      }
      return {
        analytics: { ...campaignFields(campaign.prospectCount, counts), daily_metrics: daily },
        ab_testing: { tests },
        pipeline: {
          leads_contacted: totals.counts.contacted,
          replied: totals.counts.replies,
          interested: totals.counts.interested,
          meeting_scheduled: totals.counts.meetings,
        },
        metrics_per_step: perStep,
      };
    },

    /** The workspace's totals over its campaigns (filtered), in UTC days. */
    async account(workspaceId: number, query: AccountQuery) {
      const range = parseRange(query.start_date, query.end_date);
      const accounts = idList('sender_accounts', query.sender_accounts);
      const only = idList('campaigns', query.campaigns);
      const statuses = statusList(query.campaign_statuses);
      const selected = (await deps.campaigns.listForWorkspace(workspaceId)).filter(
        (campaign) => (only === undefined || only.has(campaign.id)) && (statuses === undefined || statuses.has(campaign.status)),
      );
      const ids = new Set(selected.map((campaign) => campaign.id));
      const rows = (await deps.stats.workspaceRows(workspaceId, range)).filter(
        (row) => ids.has(row.campaignId) && (accounts === undefined || accounts.has(row.accountId)),
      );
      const total = zeroCounts();
      const days = new Map<string, Counts>();
      for (const row of rows) {
        addCounts(total, row.counts);
        if (row.day !== null) days.set(row.day, addCounts(days.get(row.day) ?? zeroCounts(), row.counts));
      }
      return {
        total_prospects: selected.reduce((sum, campaign) => sum + campaign.prospectCount, 0),
        total_emails_sent: total.emails,
        total_network_messages_sent: total.messages,
        total_invites_sent: total.invites,
        total_invites_accepted: total.accepted,
        total_replies: total.replies,
        total_interested: total.interested,
        reply_rate: percent(total.replies, total.contacted),
        invite_acceptance_rate: percent(total.accepted, total.invites),
        ...(range ? { daily_metrics: dailyMetrics(range, days) } : {}),
      };
    },

    /** The app host's dashboard: every campaign of the selected workspaces with its all-time fields. */
    async dashboard(userId: number, currentWorkspaceId: number, workspace: string | undefined) {
      const workspaces = await selectWorkspaces(deps.memberships, userId, currentWorkspaceId, workspace);
      const campaigns: Campaign[] = (await Promise.all(workspaces.map((id) => deps.campaigns.listForWorkspace(id)))).flat();
      const totals = await deps.stats.campaignTotals(campaigns.map((campaign) => campaign.id));
      return campaigns.map((campaign) => ({
        id: campaign.id,
        name: campaign.name,
        status: campaign.status,
        workspace_id: campaign.workspaceId,
        analytics: campaignFields(campaign.prospectCount, totals.get(campaign.id)?.counts ?? zeroCounts()),
      }));
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
