import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ACCEPTANCE_REF, type CampaignEvent, type CampaignEvents } from '../domain/engine/campaign-events';
import type { Clock } from '../time/clock';
import { isConditionFailed } from './client';
import { campaignEventKey, campaignReachKey } from './keys';
import { DynamoAnalyticsStats } from './analytics-stats';
import { type Counter, stepKey } from '../domain/analytics/counts';
import type { CampaignEventKind } from '../domain/engine/campaign-events';

/** The counter each counted kind adds to (REPLIED is counted apart: first reply per prospect). */
const COUNTED: Partial<Record<CampaignEventKind, Counter>> = { INVITE_ACCEPTED: 'accepted', INTERESTED: 'interested', MEETING_SCHEDULED: 'meetings' };

/**
 * The send a reply is attributed to: the one it answers when its record names the step, variant
 * and time (an email's thread, a chat's last step: since 2026-11-28), else the prospect's last send
 * (the reach item), as for a reply matched by its sender's address. Before 2026-11-28 always the
 * last send: a reply to a first email, after a later step went out, was credited to that step.
 */
function answeredSend(event: CampaignEvent, reach: { lastNodeId?: number; lastVariant?: 'A' | 'B' | null; lastAt?: string } | undefined) {
  if (event.nodeId !== null && event.sentAt !== undefined) return { nodeId: event.nodeId, variant: event.variant ?? null, at: event.sentAt };
  return { nodeId: reach?.lastNodeId, variant: reach?.lastVariant ?? null, at: reach?.lastAt };
}

/** The account a reply is counted by: the one it came through when it names the send it answers, else the last send's. */
function answeredThrough(event: CampaignEvent, reach: { lastAccountId?: number | null } | undefined): number | null {
  if (event.nodeId !== null && event.sentAt !== undefined) return event.accountId ?? reach?.lastAccountId ?? null;
  return reach?.lastAccountId ?? event.accountId ?? null;
}

/** Campaign events (shared/domain/engine/campaign-events.ts): ~0.3 KB each in the campaign's events partition, 1 WCU. */
export class DynamoCampaignEvents implements CampaignEvents {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    clock: Clock,
    private readonly stats = new DynamoAnalyticsStats(db, tableName, clock),
  ) {}

  /**
   * Records the event and, for a counted kind, adds to the aggregates in the same transaction
   * (docs/analytics.md). A reply counts once per prospect and campaign (its first), attributed to
   * the send it answers (answeredSend), with the time since that send.
   */
  async record(event: CampaignEvent): Promise<boolean> {
    const put = {
      Put: {
        TableName: this.tableName,
        Item: { ...campaignEventKey(event.campaignId, event.kind, event.prospectId, event.ref), entityType: 'CampaignEvent', ...event },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    const counter = COUNTED[event.kind];
    if (counter === undefined && event.kind !== 'REPLIED') return this.putOnce(put);
    const reach = await this.stats.reach(event.campaignId, event.prospectId);
    // A prospect the campaign never contacted (who wrote first: matched by address, its sequence
    // stopped all the same) answered none of its messages: recorded, not counted, so replies never
    // exceed contacted (before 2026-11-28 it counted; a race probe).
    if (event.kind === 'REPLIED' && reach?.firstContactAt === undefined) return this.putOnce(put);
    const where = { workspaceId: event.workspaceId, campaignId: event.campaignId, accountId: event.accountId ?? reach?.lastAccountId ?? null, at: event.at };
    if (counter !== undefined) {
      const failed = await this.stats.commit([put, ...(await this.stats.updates({ ...where, counts: { [counter]: 1 } }))]);
      if (failed === undefined) return true;
      if (event.kind === 'INVITE_ACCEPTED' && failed[0] === 'ConditionalCheckFailed') await this.keepLatestAcceptance(event);
      return false;
    }
    const answered = answeredSend(event, reach);
    const sentAt = answered.at !== undefined && answered.at <= event.at ? answered.at : undefined;
    const waited = sentAt === undefined ? {} : { replyMs: Date.parse(event.at) - Date.parse(sentAt), timedReplies: 1 };
    const steps = answered.nodeId === undefined ? {} : { [stepKey(answered.nodeId, answered.variant)]: { replied: 1 } };
    const failed = await this.stats.commit([
      put,
      {
        Update: {
          TableName: this.tableName,
          Key: campaignReachKey(event.campaignId, event.prospectId),
          UpdateExpression: 'SET entityType = :type, firstReplyAt = :at',
          ConditionExpression: 'attribute_not_exists(firstReplyAt)',
          ExpressionAttributeValues: { ':type': 'AnalyticsReach', ':at': event.at },
        },
      },
      // Counted by the account of the send it answers (analytics.md): the thread's or chat's, where
      // the reply came (the same account); else the last send's, not the mailbox a new thread
      // happened to reach (before 2026-11-28 that one: a probe).
      ...(await this.stats.updates({ ...where, accountId: answeredThrough(event, reach), counts: { replies: 1, ...waited }, steps })),
    ]);
    if (failed === undefined) return true;
    if (failed[0] === 'ConditionalCheckFailed') return false;
    // Not the prospect's first reply: recorded, not counted again.
    return this.putOnce(put);
  }

  private async putOnce(put: { Put: ConstructorParameters<typeof PutCommand>[0] }): Promise<boolean> {
    try {
      await this.db.send(new PutCommand(put.Put));
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  /**
   * An acceptance after the one recorded (a later stay's invitation; the event is one per campaign
   * and prospect, so it is counted once): kept on the event as the latest, which the ACCEPTED_INVITE
   * condition of that stay reads. Before 2026-11-28 it was dropped, and a new stay's condition took
   * YES only at its deadline's look.
   */
  private async keepLatestAcceptance(event: CampaignEvent): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: campaignEventKey(event.campaignId, event.kind, event.prospectId, event.ref),
          UpdateExpression: 'SET latestAt = :at, latestAccountId = :account',
          ConditionExpression: 'attribute_exists(pk) AND #at < :at AND (attribute_not_exists(latestAt) OR latestAt < :at)',
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: { ':at': event.at, ':account': event.accountId },
        }),
      );
    } catch (error) {
      // Not later than what is kept (a replayed webhook, or an older one arriving late).
      if (!isConditionFailed(error)) throw error;
    }
  }

  async accepted(campaignId: number, prospectId: number): Promise<{ at: string; accountId: number | null } | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: campaignEventKey(campaignId, 'INVITE_ACCEPTED', prospectId, ACCEPTANCE_REF),
        ProjectionExpression: '#at, accountId, latestAt, latestAccountId',
        ExpressionAttributeNames: { '#at': 'at' },
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const latest = typeof Item.latestAt === 'string';
    const accountId = latest ? Item.latestAccountId : Item.accountId;
    return { at: String(latest ? Item.latestAt : Item.at), accountId: typeof accountId === 'number' ? accountId : null };
  }
}
