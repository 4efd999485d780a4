import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { ActionOutcome, OutreachAction, SentEmail } from '../domain/engine/action';
import type { OutcomeLog } from '../domain/engine/ports';
import { isConditionFailed } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { actionOutcomeKey, sentEmailKey } from './keys';

const OutcomeItem = itemSchema(
  'ActionOutcome',
  v.object({
    workspaceId: intAttribute,
    campaignId: intAttribute,
    prospectId: intAttribute,
    stint: v.string(),
    nodeId: intAttribute,
    stepType: v.picklist(['EMAIL', 'NETWORK_INVITE', 'NETWORK_MESSAGE']),
    outcome: v.picklist(['SENT', 'SKIPPED', 'FAILED', 'UNCERTAIN']),
    reason: v.nullable(v.string()),
    accountId: v.nullable(intAttribute),
    variant: v.nullable(v.picklist(['A', 'B'])),
    at: v.string(),
    trackingId: v.optional(v.string()),
    invitationId: v.optional(v.string()),
    chatId: v.optional(v.string()),
    messageId: v.optional(v.string()),
  }),
);

const SentEmailItem = itemSchema(
  'SentEmail',
  v.object({
    trackingId: v.string(),
    workspaceId: intAttribute,
    campaignId: intAttribute,
    prospectId: intAttribute,
    nodeId: intAttribute,
    accountId: intAttribute,
    at: v.string(),
    messageId: v.nullable(v.string()),
  }),
);

/**
 * Outcome records (append-only: a Put that only creates, so a repeated write of the same stint and
 * node changes nothing) in a partition per campaign, and sent emails under their tracking id.
 */
export class DynamoOutcomeLog implements OutcomeLog {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async record(outcome: ActionOutcome): Promise<void> {
    await this.putOnce({ ...actionOutcomeKey(outcome.campaignId, outcome.prospectId, outcome.stint, outcome.nodeId), entityType: 'ActionOutcome', ...outcome });
  }

  async recordEmail(email: SentEmail): Promise<void> {
    await this.putOnce({ ...sentEmailKey(email.trackingId), entityType: 'SentEmail', ...email });
  }

  async find(action: OutreachAction, nodeId: number): Promise<ActionOutcome | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: actionOutcomeKey(action.campaignId, action.prospectId, action.stint, nodeId), ConsistentRead: true }),
    );
    return Item ? parseItem(OutcomeItem, Item) : undefined;
  }

  async findEmail(trackingId: string): Promise<SentEmail | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: sentEmailKey(trackingId), ConsistentRead: true }));
    return Item ? parseItem(SentEmailItem, Item) : undefined;
  }

  /** The Message-ID the provider's `mail_sent` webhook reports for a tracking id; false when no such email was sent by us. */
  async setEmailMessageId(trackingId: string, messageId: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: sentEmailKey(trackingId),
          UpdateExpression: 'SET messageId = :id',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':id': messageId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  private async putOnce(item: Record<string, unknown>): Promise<void> {
    try {
      await this.db.send(new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
}
