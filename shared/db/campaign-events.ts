import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ACCEPTANCE_REF, type CampaignEvent, type CampaignEvents } from '../domain/engine/campaign-events';
import { isConditionFailed } from './client';
import { campaignEventKey, campaignReachKey } from './keys';
import { DynamoAnalyticsStats } from './analytics-stats';
import { type Counter, stepKey } from '../domain/analytics/counts';
import type { CampaignEventKind } from '../domain/engine/campaign-events';

/** The counter each counted kind adds to (REPLIED is counted apart: first reply per prospect). */
const COUNTED: Partial<Record<CampaignEventKind, Counter>> = { INVITE_ACCEPTED: 'accepted', INTERESTED: 'interested', MEETING_SCHEDULED: 'meetings' };

/** Campaign events (shared/domain/engine/campaign-events.ts): ~0.3 KB each in the campaign's events partition, 1 WCU. */
export class DynamoCampaignEvents implements CampaignEvents {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly stats = new DynamoAnalyticsStats(db, tableName),
  ) {}

  /**
   * Records the event and, for a counted kind, adds to the aggregates in the same transaction
   * (docs/analytics.md). A reply counts once per prospect and campaign (its first), attributed to
   * the last step sent to the prospect, with the time since that send.
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
    if (counter !== undefined) return (await this.stats.commit([put, ...(await this.stats.updates({ ...where, counts: { [counter]: 1 } }))])) === undefined;
    const sentAt = reach?.lastAt !== undefined && reach.lastAt <= event.at ? reach.lastAt : undefined;
    const waited = sentAt === undefined ? {} : { replyMs: Date.parse(event.at) - Date.parse(sentAt), timedReplies: 1 };
    const steps = reach?.lastNodeId === undefined ? {} : { [stepKey(reach.lastNodeId, reach.lastVariant ?? null)]: { replied: 1 } };
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
      ...(await this.stats.updates({ ...where, counts: { replies: 1, ...waited }, steps })),
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

  async accepted(campaignId: number, prospectId: number): Promise<{ at: string; accountId: number | null } | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: campaignEventKey(campaignId, 'INVITE_ACCEPTED', prospectId, ACCEPTANCE_REF),
        ProjectionExpression: '#at, accountId',
        ExpressionAttributeNames: { '#at': 'at' },
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    return { at: String(Item.at), accountId: typeof Item.accountId === 'number' ? Item.accountId : null };
  }
}
