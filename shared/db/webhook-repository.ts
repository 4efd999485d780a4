import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { AttemptOutcome, DeliveryAttempt, DeliveryStatus } from '../domain/webhooks/delivery';
import type { DeliveryClaim, WebhookDeliveryRepository, WebhookSettingsRepository, WorkspaceMembers } from '../domain/webhooks/ports';
import type { WebhookSettings } from '../domain/webhooks/webhook';
import { validationError } from '../domain/errors';
import type { SecretBox } from '../security/secret-box';
import { isConditionFailed, queryAll } from './client';
import { WEBHOOK_ATTEMPT_PREFIX, membershipByWorkspace, webhookAttemptKey, webhookDeliveryKey, webhookSettingsKey } from './keys';
import { TABLE } from './table-schema';

/** Delivery records outlive the longest retry window (about 36 h) with room to spare. */
const DELIVERY_TTL_SECONDS = 7 * 86_400;
/** The delivery log keeps 30 days. */
const ATTEMPT_TTL_SECONDS = 30 * 86_400;

const ttlFrom = (iso: string, seconds: number) => Math.floor(Date.parse(iso) / 1000) + seconds;

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
    return {
      userId,
      url: typeof Item.url === 'string' ? Item.url : null,
      secret: this.box.open(String(Item.sealedSecret)),
      secretCreatedAt: String(Item.secretCreatedAt),
      previousSecret: typeof Item.sealedPreviousSecret === 'string' ? this.box.open(Item.sealedPreviousSecret) : null,
      previousSecretValidUntil: typeof Item.previousSecretValidUntil === 'string' ? Item.previousSecretValidUntil : null,
      createdAt: String(Item.createdAt),
      updatedAt: String(Item.updatedAt),
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
            createdAt: settings.createdAt,
            updatedAt: settings.updatedAt,
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

const attemptItem = (attempt: DeliveryAttempt) => ({
  ...webhookAttemptKey(attempt.userId, attempt.at, attempt.eventId, attempt.attempt),
  entityType: 'WebhookAttempt',
  ...attempt,
  ttl: ttlFrom(attempt.at, ATTEMPT_TTL_SECONDS),
});

const toAttempt = (item: Record<string, unknown>): DeliveryAttempt => ({
  userId: Number(item.userId),
  eventId: String(item.eventId),
  eventType: String(item.eventType),
  attempt: Number(item.attempt),
  at: String(item.at),
  outcome: String(item.outcome) as AttemptOutcome,
  statusCode: typeof item.statusCode === 'number' ? item.statusCode : null,
  error: typeof item.error === 'string' ? item.error : null,
  durationMs: Number(item.durationMs ?? 0),
  nextAttemptAt: typeof item.nextAttemptAt === 'string' ? item.nextAttemptAt : null,
  test: item.test === true,
});

/** The cursor is the last sort key of a page within the caller's own partition, base64url-encoded. */
const CURSOR_PATTERN = /^WEBHOOK_ATTEMPT#[0-9T:.Z-]{20,30}#[A-Za-z0-9_]{1,64}#\d{2}$/;

export const encodeAttemptCursor = (sk: string): string => Buffer.from(sk, 'utf8').toString('base64url');

/** undefined for anything that is not one of our cursors. */
export function decodeAttemptCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  return CURSOR_PATTERN.test(sk) ? sk : undefined;
}

export class DynamoWebhookDeliveryRepository implements WebhookDeliveryRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(input: { userId: number; eventId: string; eventType: string; now: string; leaseUntil: string; maxAttempts: number }): Promise<DeliveryClaim> {
    try {
      const result = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookDeliveryKey(input.userId, input.eventId),
          UpdateExpression:
            'SET attempts = if_not_exists(attempts, :zero) + :one, leaseUntil = :leaseUntil, #status = :pending, ' +
            'eventType = :eventType, createdAt = if_not_exists(createdAt, :now), entityType = :entityType, #ttl = :ttl',
          // New, or pending with no live lease and attempts left.
          ConditionExpression:
            'attribute_not_exists(pk) OR (#status = :pending AND attempts < :max AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now))',
          ExpressionAttributeNames: { '#status': 'status', '#ttl': TABLE.timeToLive },
          ExpressionAttributeValues: {
            ':zero': 0,
            ':one': 1,
            ':leaseUntil': input.leaseUntil,
            ':pending': 'PENDING',
            ':eventType': input.eventType,
            ':now': input.now,
            ':entityType': 'WebhookDelivery',
            ':ttl': ttlFrom(input.now, DELIVERY_TTL_SECONDS),
            ':max': input.maxAttempts,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { kind: 'claimed', attempt: Number(result.Attributes?.attempts) };
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const current = await this.read(input.userId, input.eventId);
      const status = String(current?.status ?? 'PENDING') as DeliveryStatus;
      if (status !== 'PENDING') return { kind: 'finished', status };
      // Pending but out of attempts: a crash between the last attempt and its outcome; give up.
      if (Number(current?.attempts ?? 0) >= input.maxAttempts) return { kind: 'finished', status: 'FAILED' };
      return { kind: 'busy', leaseUntil: String(current?.leaseUntil ?? input.leaseUntil) };
    }
  }

  private async read(userId: number, eventId: string) {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: webhookDeliveryKey(userId, eventId), ConsistentRead: true }),
    );
    return Item;
  }

  async complete(input: { userId: number; eventId: string; status: DeliveryStatus; attempt?: DeliveryAttempt }): Promise<void> {
    const update = {
      Update: {
        TableName: this.tableName,
        Key: webhookDeliveryKey(input.userId, input.eventId),
        UpdateExpression: 'SET #status = :status REMOVE leaseUntil',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': input.status },
      },
    };
    if (!input.attempt) {
      await this.db.send(new UpdateCommand(update.Update));
      return;
    }
    // The outcome and its log line together: the log never shows an attempt the state does not count.
    await this.db.send(
      new TransactWriteCommand({ TransactItems: [update, { Put: { TableName: this.tableName, Item: attemptItem(input.attempt) } }] }),
    );
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.tableName, Item: attemptItem(attempt) }));
  }

  async listAttempts(userId: number, page: { limit: number; after?: string | undefined }) {
    const prefixKey = webhookAttemptKey(userId, '', '', 0);
    const startSk = page.after === undefined ? undefined : decodeAttemptCursor(page.after);
    if (page.after !== undefined && startSk === undefined) throw validationError('cursor is not valid');
    const result = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': prefixKey.pk, ':prefix': WEBHOOK_ATTEMPT_PREFIX },
        ScanIndexForward: false,
        Limit: page.limit,
        ...(startSk ? { ExclusiveStartKey: { pk: prefixKey.pk, sk: startSk } } : {}),
      }),
    );
    const items = (result.Items ?? []).map(toAttempt);
    const last = result.LastEvaluatedKey?.sk;
    return typeof last === 'string' ? { items, next: encodeAttemptCursor(last) } : { items };
  }
}

/** The users of a workspace, by the membership index (GSI1). */
export class DynamoWorkspaceMembers implements WorkspaceMembers {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listUserIds(workspaceId: number): Promise<number[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      IndexName: TABLE.gsi1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': TABLE.gsi1.partitionKey },
      ExpressionAttributeValues: { ':pk': membershipByWorkspace(workspaceId, 0).gsi1pk },
      ProjectionExpression: 'userId',
    });
    return items.map((item) => Number(item.userId));
  }
}
