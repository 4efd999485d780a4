import { type DynamoDBDocumentClient, PutCommand, QueryCommand, } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { type ConversationMessage, type ConversationPage, type ConversationStore, type ConversationSummary, type MessageChannel, summaryText } from '../domain/inbox/conversations';
import { MAX_ANSWER_VIEW_BYTES, resultBytesOf } from '../domain/answer-budget';
import { isConditionFailed } from './client';
import { pageOf } from './query-pages';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { CONVERSATION_MESSAGE_PREFIX, conversationKey, conversationMessageKey, conversationsByRecency } from './keys';

/**
 * Conversations (shared/domain/inbox/conversations.ts) in one partition per prospect: its messages
 * (`MSG#<sentAt>#<ref>`, ~0.3-1 KB: 1 WCU) and its summary (`SUMMARY`, in gsi1 by recency: 1 WCU
 * plus 2 for the index copy when the newest message changes). Cursors are the last sort key of a
 * page, checked against the partition's own shapes.
 */

const CHANNELS = ['EMAIL', 'NETWORK'] as const;

const MessageItem = itemSchema(
  'ConversationMessage',
  v.object({
    workspaceId: intAttribute,
    prospectId: intAttribute,
    ref: v.string(),
    channel: v.picklist(CHANNELS),
    kind: v.picklist(['MESSAGE', 'INVITATION', 'AUTO_REPLY', 'BOUNCE']),
    sentByLead: v.boolean(),
    text: v.string(),
    subject: v.nullable(v.string()),
    senderAccountId: v.nullable(intAttribute),
    campaignId: v.nullable(intAttribute),
    chatId: v.nullable(v.string()),
    rfcMessageId: v.nullable(v.string()),
    providerEmailId: v.nullable(v.string()),
    sentAt: v.string(),
  }),
);

const SummaryItem = itemSchema(
  'Conversation',
  v.object({
    workspaceId: intAttribute,
    prospectId: intAttribute,
    channel: v.picklist(CHANNELS),
    senderAccountId: v.nullable(intAttribute),
    lastMessage: v.object({ text: v.string(), sentByLead: v.boolean(), sentAt: v.string() }),
  }),
);

export const CONVERSATION_CURSOR = /^(MSG#[0-9T:.Z-]{20,30}#[^\s]{1,300}|[0-9T:.Z-]{20,30}#\d{16})$/;

export class DynamoConversationStore implements ConversationStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async append(message: ConversationMessage): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...conversationMessageKey(message.workspaceId, message.prospectId, message.sentAt, message.ref), entityType: 'ConversationMessage', ...message },
      }),
    );
    const summary: ConversationSummary = {
      workspaceId: message.workspaceId,
      prospectId: message.prospectId,
      channel: message.channel,
      senderAccountId: message.senderAccountId,
      lastMessage: { text: summaryText(message.text), sentByLead: message.sentByLead, sentAt: message.sentAt },
    };
    try {
      // Only a newer message moves the summary: messages may be recorded out of order.
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...conversationKey(message.workspaceId, message.prospectId),
            ...conversationsByRecency(message.workspaceId, message.sentAt, message.prospectId),
            entityType: 'Conversation',
            ...summary,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR lastMessage.sentAt <= :at',
          ExpressionAttributeValues: { ':at': message.sentAt },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }

  async list(workspaceId: number, limit: number, cursor?: string): Promise<ConversationPage<ConversationSummary>> {
    const { gsi1pk } = conversationsByRecency(workspaceId, '', 0);
    const start = cursor
      ? { gsi1pk, gsi1sk: cursor, ...conversationKey(workspaceId, Number(cursor.slice(cursor.lastIndexOf('#') + 1))) }
      : undefined;
    const { Items, LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': gsi1pk },
        ScanIndexForward: false,
        // One more than the page: a page that ends the listing says so (no cursor to an empty page).
        Limit: limit + 1,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const { page, last } = pageOf(Items ?? [], limit, LastEvaluatedKey, 'gsi1sk');
    return { items: page.map((item) => parseItem(SummaryItem, item)), ...(last !== undefined ? { next: last } : {}) };
  }

  async messages(workspaceId: number, prospectId: number, limit: number, cursor?: string): Promise<ConversationPage<ConversationMessage>> {
    const { pk } = conversationKey(workspaceId, prospectId);
    const { Items, LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': CONVERSATION_MESSAGE_PREFIX },
        // One more than the page: a page that ends the listing says so (no cursor to an empty page).
        Limit: limit + 1,
        // A message just sent is on the page (it is read after the client's own POST).
        ConsistentRead: true,
        ...(cursor ? { ExclusiveStartKey: { pk, sk: cursor } } : {}),
      }),
    );
    const { page, last: next } = pageOf(Items ?? [], limit, LastEvaluatedKey, 'sk');
    const items = page.map((item) => parseItem(MessageItem, item));
    // A page ends early, its cursor after the last message it holds, before its messages pass what
    // one answer may hold: DynamoDB's 1 MB query page bounds what is stored, but text that JSON
    // escapes grows up to sevenfold in the answer (a control character: `\\u0001` in the result).
    let bytes = 0;
    for (const [index, item] of items.entries()) {
      bytes += resultBytesOf(item);
      const last = items[index - 1];
      if (bytes > MAX_ANSWER_VIEW_BYTES && last) {
        return { items: items.slice(0, index), next: conversationMessageKey(workspaceId, prospectId, last.sentAt, last.ref).sk };
      }
    }
    return { items, ...(next !== undefined ? { next } : {}) };
  }

  async latestOn(workspaceId: number, prospectId: number, channel: MessageChannel, sentByLead?: boolean): Promise<ConversationMessage | undefined> {
    const { pk } = conversationKey(workspaceId, prospectId);
    const byLead = sentByLead === undefined ? {} : { ':lead': sentByLead };
    // Auto-replies and bounces are left out: a manual reply builds on the conversation (its subject,
    // its thread), not on an out-of-office ("Re: Automatic reply: ...").
    const notAutomatic = '#kind <> :autoReply AND #kind <> :bounce';
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: sentByLead === undefined ? `channel = :channel AND ${notAutomatic}` : `channel = :channel AND sentByLead = :lead AND ${notAutomatic}`,
        ExpressionAttributeNames: { '#kind': 'kind' },
        ExpressionAttributeValues: { ':pk': pk, ':prefix': CONVERSATION_MESSAGE_PREFIX, ':channel': channel, ':autoReply': 'AUTO_REPLY', ':bounce': 'BOUNCE', ...byLead },
        ScanIndexForward: false,
        // A manual message sent a moment before decides the next one's channel, subject and thread.
        ConsistentRead: true,
        Limit: 50,
      }),
    );
    const found = Items?.[0];
    return found ? parseItem(MessageItem, found) : undefined;
  }

  async ownSince(workspaceId: number, prospectId: number, channel: MessageChannel, since: string): Promise<ConversationMessage[]> {
    const { pk } = conversationKey(workspaceId, prospectId);
    // Sort keys are `MSG#<sentAt>#<ref>`: a range from `since` is the messages sent since, in order.
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        FilterExpression: 'channel = :channel AND sentByLead = :lead',
        ExpressionAttributeValues: { ':pk': pk, ':from': `${CONVERSATION_MESSAGE_PREFIX}${since}`, ':to': `${CONVERSATION_MESSAGE_PREFIX}\uffff`, ':channel': channel, ':lead': false },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => parseItem(MessageItem, item));
  }
}
