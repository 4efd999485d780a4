import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { AnalyticsReads, CampaignTotals, DayCounts, WorkspaceRow } from '../domain/analytics/analytics-service';
import { COUNTERS, type Counts, type DayRange, type StepCounts, zeroCounts } from '../domain/analytics/counts';
import { localDay, utcDay } from '../domain/engine/window';
import type { Clock } from '../time/clock';
import { batchGetAll } from './batch-get';
import { cancellationReasons, queryAll } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { campaignKey, campaignReachKey, campaignStatsKey, workspaceStatsKey } from './keys';
import type { TransactItem } from './transactions';
import { isThrottledOnly } from './conflict-retries';

/**
 * The analytics aggregates (docs/analytics.md): per campaign (a day item per day in its timezone and
 * a TOTAL item with per-step-and-variant counters) and per workspace (a row per campaign, sender
 * account and UTC day, and all-time). They are only ever changed by `ADD` in the same transaction
 * as the conditional Put of the event they count, so an event counts exactly once.
 */

/** What analytics keeps of a prospect in a campaign (campaignReachKey). */
export interface Reach {
  firstContactAt?: string;
  firstReplyAt?: string;
  lastNodeId?: number;
  lastVariant?: 'A' | 'B' | null;
  lastAt?: string;
  lastAccountId?: number | null;
}

const ReachItem = itemSchema(
  'AnalyticsReach',
  v.object({
    firstContactAt: v.optional(v.string()),
    firstReplyAt: v.optional(v.string()),
    lastNodeId: v.optional(intAttribute),
    lastVariant: v.optional(v.nullable(v.picklist(['A', 'B']))),
    lastAt: v.optional(v.string()),
    lastAccountId: v.optional(v.nullable(intAttribute)),
  }),
);

const counter = v.optional(v.number(), 0);
const CountsShape = Object.fromEntries(COUNTERS.map((name) => [name, counter])) as Record<(typeof COUNTERS)[number], typeof counter>;
const StatsItem = itemSchema('AnalyticsStats', v.looseObject({ ...CountsShape, sk: v.string() }));
const WorkspaceStatsItem = itemSchema('AnalyticsStats', v.looseObject({ ...CountsShape, sk: v.string(), campaignId: intAttribute, accountId: intAttribute }));

const countsOf = (item: Record<string, unknown>): Counts => {
  const counts = zeroCounts();
  for (const name of COUNTERS) counts[name] = (item[name] as number | undefined) ?? 0;
  return counts;
};

/** What one event adds: counters, per-step counters (TOTAL item only), where and when. */
export interface Increment {
  workspaceId: number;
  campaignId: number;
  accountId: number | null;
  at: string;
  counts: Partial<Counts>;
  steps?: Record<string, { sent?: number; replied?: number }>;
}

const MAX_CONFLICT_RETRIES = 8;

/**
 * How long a campaign's timezone read for counting is used before it is read again: ten minutes,
 * so a busy campaign's sends do not each pay a read (a minute cost ~0.35 RCU per sent action at
 * 2,000 a day), and a changed timezone counts in its days within ten minutes.
 */
export const TIMEZONE_KEPT_MS = 600_000;

export class DynamoAnalyticsStats implements AnalyticsReads {
  private readonly timezones = new Map<number, { timezone: string; readAt: number }>();

  /** `clock`: what the timezones read are kept by (TIMEZONE_KEPT_MS); without one, each is read every time. */
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock?: Clock,
  ) {}

  /**
   * The campaign's timezone (its days), kept for TIMEZONE_KEPT_MS per instance. An event is counted
   * on the day of its campaign's timezone when it is counted, so a changed timezone applies to events
   * from at most ten minutes after the change. Before 2026-11-28 it was kept for the instance's
   * life: a warm function went on counting a campaign's days in its old timezone (a probe).
   */
  async timezoneOf(campaignId: number): Promise<string> {
    const now = this.clock?.now().getTime();
    const known = this.timezones.get(campaignId);
    if (known && now !== undefined && now - known.readAt < TIMEZONE_KEPT_MS && now >= known.readAt) return known.timezone;
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: campaignKey(campaignId), ProjectionExpression: '#tz', ExpressionAttributeNames: { '#tz': 'timezone' } }));
    const timezone = typeof Item?.timezone === 'string' ? Item.timezone : 'UTC';
    if (now !== undefined) this.timezones.set(campaignId, { timezone, readAt: now });
    return timezone;
  }

  async reach(campaignId: number, prospectId: number): Promise<Reach | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: campaignReachKey(campaignId, prospectId), ConsistentRead: true }));
    return Item ? parseItem(ReachItem, Item) : undefined;
  }

  /** The four aggregate updates of an increment: campaign day and total, workspace day and total rows. */
  async updates(increment: Increment): Promise<TransactItem[]> {
    const at = new Date(increment.at);
    const campaignDay = localDay(at, await this.timezoneOf(increment.campaignId));
    const accountId = increment.accountId ?? 0;
    const counts = Object.entries(increment.counts).filter(([, n]) => n !== 0) as [string, number][];
    const steps = Object.entries(increment.steps ?? {}).flatMap(([key, step]) =>
      (['sent', 'replied'] as const).filter((name) => (step[name] ?? 0) !== 0).map((name) => [`${name}_${key}`, step[name] as number] as [string, number]),
    );
    const update = (key: { pk: string; sk: string }, adds: [string, number][], set: Record<string, unknown>): TransactItem => {
      const sets = Object.keys(set);
      return {
        Update: {
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `SET ${['entityType', ...sets].map((name) => `#${name} = :${name}`).join(', ')}${
            adds.length > 0 ? ` ADD ${adds.map((_, i) => `#a${i} :a${i}`).join(', ')}` : ''
          }`,
          ExpressionAttributeNames: {
            '#entityType': 'entityType',
            ...Object.fromEntries(sets.map((name) => [`#${name}`, name])),
            ...Object.fromEntries(adds.map(([name], i) => [`#a${i}`, name])),
          },
          ExpressionAttributeValues: {
            ':entityType': 'AnalyticsStats',
            ...Object.fromEntries(sets.map((name) => [`:${name}`, set[name]])),
            ...Object.fromEntries(adds.map(([, n], i) => [`:a${i}`, n])),
          },
        },
      };
    };
    const row = { workspaceId: increment.workspaceId, campaignId: increment.campaignId, accountId };
    return [
      update(campaignStatsKey(increment.campaignId, campaignDay), counts, { day: campaignDay }),
      update(campaignStatsKey(increment.campaignId, null), [...counts, ...steps], {}),
      update(workspaceStatsKey(increment.workspaceId, utcDay(at), increment.campaignId, accountId), counts, { ...row, day: utcDay(at) }),
      update(workspaceStatsKey(increment.workspaceId, null, increment.campaignId, accountId), counts, row),
    ];
  }

  /**
   * Commits the actions; a transaction cancelled by contention alone is retried. Returns the
   * cancellation reasons' codes when a condition failed (undefined: committed).
   */
  async commit(actions: TransactItem[]): Promise<(string | undefined)[] | undefined> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: actions }));
        return undefined;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons === undefined) throw error;
        const codes = reasons.map((reason) => (reason.Code === 'None' ? undefined : reason.Code));
        if (codes.includes('ConditionalCheckFailed')) return codes;
        // Throttling was retried by the client already (conflict-retries.ts): not again here.
        if (attempt >= MAX_CONFLICT_RETRIES || isThrottledOnly(error)) throw error;
        await sleep(Math.min(1000, 20 * 2 ** attempt) * (0.5 + Math.random()));
      }
    }
  }

  async campaignDays(campaignId: number, range: DayRange | undefined): Promise<DayCounts[]> {
    const { pk } = campaignStatsKey(campaignId, null);
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: range ? 'pk = :pk AND sk BETWEEN :from AND :to' : 'pk = :pk AND begins_with(sk, :day)',
      ExpressionAttributeValues: range
        ? { ':pk': pk, ':from': campaignStatsKey(campaignId, range.from).sk, ':to': campaignStatsKey(campaignId, range.to).sk }
        : { ':pk': pk, ':day': 'DAY#' },
    });
    return items.map((item) => {
      const parsed = parseItem(StatsItem, item);
      return { day: parsed.sk.slice('DAY#'.length), counts: countsOf(parsed) };
    });
  }

  async campaignTotals(campaignIds: number[]): Promise<Map<number, CampaignTotals>> {
    const items = await batchGetAll(
      this.db,
      this.tableName,
      campaignIds.map((id) => campaignStatsKey(id, null)),
    );
    const totals = new Map<number, CampaignTotals>();
    for (const item of items) {
      const parsed = parseItem(StatsItem, item);
      const steps: StepCounts = {};
      for (const [name, value] of Object.entries(parsed)) {
        const match = /^(sent|replied)_(\d+_[AB])$/.exec(name);
        if (!match) continue;
        const [, which, key] = match as unknown as [string, 'sent' | 'replied', string];
        steps[key] ??= { sent: 0, replied: 0 };
        steps[key][which] = value as number;
      }
      totals.set(Number(String(item.pk).split('#')[1]), { counts: countsOf(parsed), steps });
    }
    return totals;
  }

  async workspaceRows(workspaceId: number, range: DayRange | undefined): Promise<WorkspaceRow[]> {
    const { pk } = workspaceStatsKey(workspaceId, null, 0, 0);
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: range ? 'pk = :pk AND sk BETWEEN :from AND :to' : 'pk = :pk AND begins_with(sk, :total)',
      ExpressionAttributeValues: range ? { ':pk': pk, ':from': `DAY#${range.from}#`, ':to': `DAY#${range.to}#~` } : { ':pk': pk, ':total': 'TOTAL#' },
    });
    return items.map((item) => {
      const parsed = parseItem(WorkspaceStatsItem, item);
      return { day: range ? parsed.sk.slice(4, 14) : null, campaignId: parsed.campaignId, accountId: parsed.accountId, counts: countsOf(parsed) };
    });
  }
}
