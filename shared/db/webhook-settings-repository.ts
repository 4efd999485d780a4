import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { WebhookSettingsRepository } from '../domain/webhooks/ports';
import type { WebhookSettings } from '../domain/webhooks/webhook';
import type { SecretBox } from '../security/secret-box';
import { isConditionFailed } from './client';
import { itemSchema, nullableString, parseItem } from './item-schema';
import { webhookSettingsKey } from './keys';

/** A settings item as stored: the secrets still sealed. No URL and no previous secret are null or absent. */
export const WebhookSettingsItem = itemSchema(
  'WebhookSettings',
  v.object({
    url: nullableString,
    sealedSecret: v.string(),
    secretCreatedAt: v.string(),
    sealedPreviousSecret: nullableString,
    previousSecretValidUntil: nullableString,
    sealedOlderSecrets: v.optional(v.array(v.object({ sealed: v.string(), validUntil: v.string() }))),
    createdAt: v.string(),
    updatedAt: v.string(),
    secretUnseen: v.optional(v.boolean()),
    disabledAt: v.optional(v.string()),
  }),
);

/** Webhook settings; the signing secrets are stored sealed (see shared/security/secret-box.ts). */
export class DynamoWebhookSettingsRepository implements WebhookSettingsRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly box: SecretBox,
  ) {}

  async get(userId: number): Promise<WebhookSettings | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: webhookSettingsKey(userId), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const item = parseItem(WebhookSettingsItem, Item);
    return {
      userId,
      url: item.url,
      secret: this.box.open(item.sealedSecret),
      secretCreatedAt: item.secretCreatedAt,
      previousSecret: item.sealedPreviousSecret === null ? null : this.box.open(item.sealedPreviousSecret),
      previousSecretValidUntil: item.previousSecretValidUntil,
      ...(item.sealedOlderSecrets?.length
        ? { olderSecrets: item.sealedOlderSecrets.map((older) => ({ secret: this.box.open(older.sealed), validUntil: older.validUntil })) }
        : {}),
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
      ...(item.secretUnseen ? { secretUnseen: true } : {}),
      ...(item.disabledAt !== undefined ? { disabledAt: item.disabledAt } : {}),
    };
  }

  async save(settings: WebhookSettings, expectedUpdatedAt: string | null): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...webhookSettingsKey(settings.userId),
            entityType: 'WebhookSettings',
            userId: settings.userId,
            url: settings.url,
            sealedSecret: this.box.seal(settings.secret),
            secretCreatedAt: settings.secretCreatedAt,
            sealedPreviousSecret: settings.previousSecret === null ? undefined : this.box.seal(settings.previousSecret),
            previousSecretValidUntil: settings.previousSecretValidUntil ?? undefined,
            sealedOlderSecrets: settings.olderSecrets?.length
              ? settings.olderSecrets.map((older) => ({ sealed: this.box.seal(older.secret), validUntil: older.validUntil }))
              : undefined,
            createdAt: settings.createdAt,
            updatedAt: settings.updatedAt,
            ...(settings.secretUnseen ? { secretUnseen: true } : {}),
            ...(settings.disabledAt !== undefined ? { disabledAt: settings.disabledAt } : {}),
          },
          ...(expectedUpdatedAt === null
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: 'updatedAt = :expected', ExpressionAttributeValues: { ':expected': expectedUpdatedAt } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}
