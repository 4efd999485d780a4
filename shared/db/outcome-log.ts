import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { ActionOutcome, OutreachAction, SentEmail } from '../domain/engine/action';
import type { OutcomeLog } from '../domain/engine/ports';
import { isConditionFailed } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { actionOutcomeKey, campaignReachKey, messageIdLinkKey, sentEmailByMessageId, sentEmailKey } from './keys';
import { DynamoAnalyticsStats } from './analytics-stats';
import { sendCounter, stepKey } from '../domain/analytics/counts';
import type { Clock } from '../time/clock';

/**
 * How long the link from a Message-ID to its email is kept. Replies and bounces name the email
 * they answer within days; after a year a reply is still matched by its sender's address
 * (docs/engine.md, "Replies"), and links of emails sent from the mailbox itself, outside the
 * service (which nothing records), do not pile up.
 */
const MESSAGE_ID_LINK_DAYS = 365;

const MessageIdLinkItem = itemSchema('MessageIdLink', v.object({ trackingId: v.string(), messageId: v.string() }));

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
    campaignId: v.optional(intAttribute),
    prospectId: intAttribute,
    nodeId: v.optional(intAttribute),
    accountId: intAttribute,
    at: v.string(),
    messageId: v.nullable(v.string()),
    variant: v.optional(v.picklist(['A', 'B'])),
    to: v.optional(v.string()),
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
    private readonly clock: Clock,
    private readonly stats = new DynamoAnalyticsStats(db, tableName, clock),
  ) {}

  private now(): number {
    return this.clock.now().getTime();
  }

  /**
   * A send is counted with its record (docs/analytics.md): one transaction puts the record (only if
   * new) and adds to the aggregates, then another marks the prospect's first contact (only once).
   * Each is idempotent on its own, so a replay after a crash between them completes the second.
   */
  async record(outcome: ActionOutcome): Promise<void> {
    const item = { ...actionOutcomeKey(outcome.campaignId, outcome.prospectId, outcome.stint, outcome.nodeId), entityType: 'ActionOutcome', ...outcome };
    if (outcome.outcome !== 'SENT') return this.putOnce(item);
    const where = { workspaceId: outcome.workspaceId, campaignId: outcome.campaignId, accountId: outcome.accountId, at: outcome.at };
    const reach = campaignReachKey(outcome.campaignId, outcome.prospectId);
    await this.stats.commit([
      { Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Update: {
          TableName: this.tableName,
          Key: reach,
          UpdateExpression: 'SET entityType = :type, lastNodeId = :node, lastVariant = :variant, lastAt = :at, lastAccountId = :account',
          ExpressionAttributeValues: { ':type': 'AnalyticsReach', ':node': outcome.nodeId, ':variant': outcome.variant, ':at': outcome.at, ':account': outcome.accountId },
        },
      },
      ...(await this.stats.updates({ ...where, counts: { [sendCounter(outcome.stepType)]: 1 }, steps: { [stepKey(outcome.nodeId, outcome.variant)]: { sent: 1 } } })),
    ]);
    await this.stats.commit([
      {
        Update: {
          TableName: this.tableName,
          Key: reach,
          UpdateExpression: 'SET entityType = :type, firstContactAt = :at',
          ConditionExpression: 'attribute_not_exists(firstContactAt)',
          ExpressionAttributeValues: { ':type': 'AnalyticsReach', ':at': outcome.at },
        },
      },
      ...(await this.stats.updates({ ...where, counts: { contacted: 1 } })),
    ]);
  }

  /**
   * The email's item under its tracking id; its Message-ID is linked to it by the provider's
   * `mail_sent` webhook (setEmailMessageId). An item that webhook made first under the layout before
   * 2026-11-26 (with the Message-ID and an expiry) keeps the Message-ID and loses the expiry.
   */
  async recordEmail(email: SentEmail): Promise<void> {
    const { messageId, ...fields } = email;
    const names = Object.keys(fields).filter((name) => fields[name as keyof typeof fields] !== undefined);
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: sentEmailKey(email.trackingId),
        UpdateExpression: `SET entityType = :type, ${names.map((name) => `#${name} = :${name}`).join(', ')}, messageId = if_not_exists(messageId, :messageId) REMOVE #ttl`,
        ExpressionAttributeNames: { ...Object.fromEntries(names.map((name) => [`#${name}`, name])), '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':type': 'SentEmail', ':messageId': messageId, ...Object.fromEntries(names.map((name) => [`:${name}`, fields[name as keyof typeof fields]])) },
      }),
    );
  }

  async find(action: OutreachAction, nodeId: number): Promise<ActionOutcome | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: actionOutcomeKey(action.campaignId, action.prospectId, action.stint, nodeId), ConsistentRead: true }),
    );
    return Item ? parseItem(OutcomeItem, Item) : undefined;
  }

  async findEmail(trackingId: string): Promise<SentEmail | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: sentEmailKey(trackingId), ConsistentRead: true }));
    // An item the mail_sent webhook of the layout before left for an email the engine never recorded is not one.
    return Item?.entityType === 'SentEmail' ? parseItem(SentEmailItem, Item) : undefined;
  }

  /**
   * The Message-ID the provider's `mail_sent` webhook reports for a tracking id, as a link of its
   * own (the sent-email item is not touched, so it is written once, by the sender or the chats
   * function, and carries no index key: 1 WCU each). The webhook may come before the send is
   * recorded, or for an email sent from the mailbox itself, outside the service, which nothing
   * records: the link is kept either way and expires after MESSAGE_ID_LINK_DAYS. A repeated
   * webhook puts the same item.
   */
  async setEmailMessageId(trackingId: string, messageId: string): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...messageIdLinkKey(messageId),
          entityType: 'MessageIdLink',
          trackingId,
          messageId,
          ttl: Math.floor(this.now() / 1000) + MESSAGE_ID_LINK_DAYS * 86_400,
        },
      }),
    );
  }

  /** The email we sent (the engine's, or a manual one from the inbox) with this RFC Message-ID (a reply's In-Reply-To); undefined for one never recorded. */
  async findByMessageId(messageId: string): Promise<SentEmail | undefined> {
    const { Item: link } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: messageIdLinkKey(messageId), ConsistentRead: true }));
    if (link) {
      const recorded = await this.findEmail(parseItem(MessageIdLinkItem, link).trackingId);
      return recorded ? { ...recorded, messageId } : undefined;
    }
    // Emails recorded before 2026-11-26 carry their Message-ID on the sent-email item, in gsi1.
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': sentEmailByMessageId(messageId).gsi1pk },
        Limit: 5,
      }),
    );
    const recorded = (Items ?? []).find((item) => item.entityType === 'SentEmail');
    return recorded ? parseItem(SentEmailItem, recorded) : undefined;
  }

  private async putOnce(item: Record<string, unknown>): Promise<void> {
    try {
      await this.db.send(new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
}
