import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { InboundMessage, InboundMessageRepository } from '../domain/inbox/inbound-message';
import { isConditionFailed } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { inboundMessageKey } from './keys';

export const InboundMessageItem = itemSchema(
  'InboundMessage',
  v.object({
    id: intAttribute,
    workspaceId: intAttribute,
    providerMessageId: v.string(),
    senderAccountId: intAttribute,
    prospectId: intAttribute,
    text: v.string(),
    sentAt: v.string(),
    createdAt: v.string(),
    // Since 2026-11-28 (older messages have neither).
    campaignId: v.optional(v.nullable(intAttribute)),
    stopCampaignId: v.optional(v.nullable(intAttribute)),
  }),
);

/** Prospects' replies received through the provider, one item per provider message id and workspace. */
export class DynamoInboundMessageRepository implements InboundMessageRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async recordOnce(message: InboundMessage): Promise<InboundMessage> {
    const key = inboundMessageKey(message.workspaceId, message.providerMessageId);
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...key, entityType: 'InboundMessage', ...message },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return message;
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    if (!Item) throw new Error('Inbound message vanished after a conditional write failed');
    return parseItem(InboundMessageItem, Item);
  }
}
