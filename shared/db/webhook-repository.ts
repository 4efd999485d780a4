import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { AttemptOutcome, DeliveryAttempt, DeliveryStatus } from '../domain/webhooks/delivery';
import type { DeliveryMessage } from '../domain/webhooks/events';
import type { DeliveryClaim, ReopenResult, WebhookDeliveryRepository } from '../domain/webhooks/ports';
import { validationError } from '../domain/errors';
import { isConditionFailed } from './client';
import { pageOf } from './query-pages';
import { everyValueOf, intAttribute, itemSchema, nullableString, parseItem } from './item-schema';
import { WEBHOOK_ATTEMPT_PREFIX, webhookAttemptKey, webhookDeliveryKey } from './keys';
import { TABLE } from './table-schema';

/** Delivery records outlive the longest retry window (about 36 h) with room to spare. */
const DELIVERY_TTL_SECONDS = 7 * 86_400;
/**
 * A delivery given up on keeps its message as long as the dead-letter queue keeps its copy (14
 * days), for its user to have it sent again.
 */
const FAILED_DELIVERY_TTL_SECONDS = 14 * 86_400;
/** The delivery log keeps 30 days. */
const ATTEMPT_TTL_SECONDS = 30 * 86_400;

/** An ISO time as DynamoDB's TTL counts it: epoch seconds. */
const epochSeconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);
const ttlFrom = (iso: string, seconds: number) => epochSeconds(iso) + seconds;

const attemptItem = (attempt: DeliveryAttempt) => ({
  ...webhookAttemptKey(attempt.userId, attempt.at, attempt.eventId, attempt.attempt),
  entityType: 'WebhookAttempt',
  ...attempt,
  ttl: ttlFrom(attempt.at, ATTEMPT_TTL_SECONDS),
});

// Every value of the domain's unions: the Records make the compiler ask for a value added there.
const ATTEMPT_OUTCOMES = everyValueOf<AttemptOutcome>({ delivered: true, http_error: true, timeout: true, blocked: true, network_error: true, skipped: true });
const DELIVERY_STATUSES = everyValueOf<DeliveryStatus>({ PENDING: true, DELIVERED: true, FAILED: true, SKIPPED: true });

export const WebhookAttemptItem = itemSchema(
  'WebhookAttempt',
  v.object({
    userId: intAttribute,
    eventId: v.string(),
    eventType: v.string(),
    attempt: intAttribute,
    at: v.string(),
    outcome: v.picklist(ATTEMPT_OUTCOMES),
    statusCode: v.optional(v.nullable(intAttribute), null),
    error: nullableString,
    durationMs: v.number(),
    nextAttemptAt: nullableString,
    test: v.boolean(),
  }),
);

/**
 * A delivery record as the worker reads it after losing a claim. `attempts` may be missing: a
 * completion that lands after the record expired writes the status alone.
 */
export const WebhookDeliveryItem = itemSchema(
  'WebhookDelivery',
  v.object({
    status: v.picklist(DELIVERY_STATUSES),
    attempts: v.optional(intAttribute, 0),
    leaseUntil: v.optional(v.string()),
    /** The queue message that carries the next attempt (its SQS message id). */
    carrier: v.optional(v.string()),
    /** When the next attempt is due (the backoff of the last one). */
    retryAt: v.optional(v.string()),
    /** A delivery given up on (FAILED): the queue message, as JSON, to send it again on request. */
    message: v.optional(v.string()),
    /** When DynamoDB may delete it (epoch seconds): past it, it is gone to every reader. */
    ttl: v.optional(intAttribute),
  }),
);

/**
 * Whether an item past its `ttl` is gone: DynamoDB deletes such items only within days (and
 * DynamoDB Local never), so readers leave them out themselves. Before 2026-11-29 a delivery
 * given up on 20 days earlier could be sent again, and the log showed lines 52 days old.
 */
const expiredAt = (ttl: number | undefined, now: string): boolean => ttl !== undefined && ttl <= epochSeconds(now);

/** What a reopen finds of a delivery it cannot reopen, or the message it could. */
function reopenable(item: { status: DeliveryStatus; message?: string | undefined; ttl?: number | undefined } | undefined, now: string): ReopenResult {
  if (!item || expiredAt(item.ttl, now)) return { kind: 'missing' };
  if (item.status !== 'FAILED') return { kind: 'not_failed', status: item.status };
  if (item.message === undefined) return { kind: 'not_kept' };
  return { kind: 'reopened', message: JSON.parse(item.message) as DeliveryMessage };
}

/** What a claim reads back: its attempt count after the increment, and the message a delivery sent again on request keeps. */
const ClaimedDeliveryItem = itemSchema('WebhookDelivery', v.object({ attempts: intAttribute, message: v.optional(v.string()) }));

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

  async claim(input: { userId: number; eventId: string; eventType: string; now: string; leaseUntil: string; maxAttempts: number; carrier: string }): Promise<DeliveryClaim> {
    try {
      const result = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookDeliveryKey(input.userId, input.eventId),
          UpdateExpression:
            'SET attempts = if_not_exists(attempts, :zero) + :one, leaseUntil = :leaseUntil, #status = :pending, carrier = :carrier, ' +
            'eventType = :eventType, createdAt = if_not_exists(createdAt, :now), entityType = :entityType, #ttl = :ttl',
          // New, or pending with no live lease and attempts left, by the message that carries its
          // retry or once that retry is due: a duplicate of the event (a provider webhook replayed)
          // never brings an attempt forward.
          ConditionExpression:
            'attribute_not_exists(pk) OR (#status = :pending AND attempts < :max AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now) ' +
            'AND (attribute_not_exists(retryAt) OR retryAt <= :now OR carrier = :carrier))',
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
            ':carrier': input.carrier,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const claimed = parseItem(ClaimedDeliveryItem, result.Attributes ?? {}, webhookDeliveryKey(input.userId, input.eventId));
      return { kind: 'claimed', attempt: claimed.attempts, ...(claimed.message !== undefined ? { reopened: true } : {}) };
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const current = await this.read(input.userId, input.eventId);
      // Gone (expired) between the claim and this read: as if still pending with a live lease.
      const status = current?.status ?? 'PENDING';
      if (status !== 'PENDING') return { kind: 'finished', status };
      const leased = current?.leaseUntil !== undefined && current.leaseUntil >= input.now;
      if (!current || leased) return { kind: 'busy', leaseUntil: current?.leaseUntil ?? input.leaseUntil };
      // Pending, out of attempts, lease over: the worker of the last attempt stopped before recording it.
      if (current.attempts >= input.maxAttempts) return { kind: 'unrecorded' };
      // Its retry is not due and another message carries it: this one is a duplicate.
      return { kind: 'scheduled', retryAt: current.retryAt ?? input.now };
    }
  }

  private async read(userId: number, eventId: string) {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: webhookDeliveryKey(userId, eventId), ConsistentRead: true }),
    );
    return Item ? parseItem(WebhookDeliveryItem, Item) : undefined;
  }

  async complete(input: { userId: number; eventId: string; status: DeliveryStatus; attempt?: DeliveryAttempt; message?: DeliveryMessage }): Promise<void> {
    const retryAt = input.status === 'PENDING' ? input.attempt?.nextAttemptAt : undefined;
    // Given up on: its message kept (for `reopen`), as long as the dead-letter queue keeps its copy.
    const kept = input.status === 'FAILED' && input.message && input.attempt ? { message: JSON.stringify(input.message), ttl: ttlFrom(input.attempt.at, FAILED_DELIVERY_TTL_SECONDS) } : undefined;
    // Delivered or skipped: a kept message is no longer needed (a pending retry of a reopened one keeps it).
    const dropMessage = input.status === 'DELIVERED' || input.status === 'SKIPPED';
    const update = {
      Update: {
        TableName: this.tableName,
        Key: webhookDeliveryKey(input.userId, input.eventId),
        // A retry: when it is due, so only its carrier takes it sooner (claim).
        UpdateExpression: `SET #status = :status${retryAt ? ', retryAt = :retryAt' : ''}${kept ? ', message = :message, #ttl = :ttl' : ''} REMOVE leaseUntil${dropMessage ? ', message' : ''}`,
        ExpressionAttributeNames: { '#status': 'status', ...(kept ? { '#ttl': TABLE.timeToLive } : {}) },
        ExpressionAttributeValues: {
          ':status': input.status,
          ...(retryAt ? { ':retryAt': retryAt } : {}),
          ...(kept ? { ':message': kept.message, ':ttl': kept.ttl } : {}),
        },
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

  async giveUp(input: { userId: number; eventId: string; now: string; maxAttempts: number; message: DeliveryMessage }): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookDeliveryKey(input.userId, input.eventId),
          UpdateExpression: 'SET #status = :failed, message = :message, #ttl = :ttl REMOVE leaseUntil',
          ConditionExpression: '#status = :pending AND attempts >= :max AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status', '#ttl': TABLE.timeToLive },
          ExpressionAttributeValues: {
            ':failed': 'FAILED',
            ':pending': 'PENDING',
            ':message': JSON.stringify(input.message),
            ':ttl': ttlFrom(input.now, FAILED_DELIVERY_TTL_SECONDS),
            ':max': input.maxAttempts,
            ':now': input.now,
          },
        }),
      )
      .catch((error: unknown) => {
        // Settled meanwhile (a duplicate gave up first, or its user had it reopened): theirs stands.
        if (!isConditionFailed(error)) throw error;
      });
  }

  async failed(input: { userId: number; eventId: string; now: string }): Promise<ReopenResult> {
    return reopenable(await this.read(input.userId, input.eventId), input.now);
  }

  async reopen(input: { userId: number; eventId: string; now: string }): Promise<ReopenResult> {
    try {
      const result = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookDeliveryKey(input.userId, input.eventId),
          UpdateExpression: 'SET #status = :pending, attempts = :zero, reopenedAt = :now, #ttl = :ttl REMOVE leaseUntil, carrier, retryAt',
          ConditionExpression: '#status = :failed AND attribute_exists(message) AND (attribute_not_exists(#ttl) OR #ttl > :nowSeconds)',
          ExpressionAttributeNames: { '#status': 'status', '#ttl': TABLE.timeToLive },
          ExpressionAttributeValues: {
            ':pending': 'PENDING',
            ':failed': 'FAILED',
            ':zero': 0,
            ':now': input.now,
            ':nowSeconds': epochSeconds(input.now),
            ':ttl': ttlFrom(input.now, DELIVERY_TTL_SECONDS),
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const old = parseItem(WebhookDeliveryItem, result.Attributes ?? {}, webhookDeliveryKey(input.userId, input.eventId));
      return { kind: 'reopened', message: JSON.parse(old.message as string) as DeliveryMessage };
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const found = reopenable(await this.read(input.userId, input.eventId), input.now);
      // Reopenable now, it was not when the condition was checked (reopened and given up on again meanwhile): as taken.
      return found.kind === 'reopened' ? { kind: 'not_failed', status: 'PENDING' } : found;
    }
  }

  async restoreFailed(input: { userId: number; eventId: string; reopenedAt: string }): Promise<void> {
    // Only the reopen it undoes, and only while no attempt was made since (its message stays kept).
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookDeliveryKey(input.userId, input.eventId),
          UpdateExpression: 'SET #status = :failed',
          ConditionExpression: 'reopenedAt = :at AND attempts = :zero',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':failed': 'FAILED', ':at': input.reopenedAt, ':zero': 0 },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailed(error)) throw error;
      });
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.tableName, Item: attemptItem(attempt) }));
  }

  async listAttempts(userId: number, page: { limit: number; after?: string | undefined; now: string }) {
    const prefixKey = webhookAttemptKey(userId, '', '', 0);
    const startSk = page.after === undefined ? undefined : decodeAttemptCursor(page.after);
    if (page.after !== undefined && startSk === undefined) throw validationError('cursor is not valid');
    // Lines past their 30 days are gone (expiredAt): the sort key starts with the attempt's time.
    const oldest = `${WEBHOOK_ATTEMPT_PREFIX}${new Date(Date.parse(page.now) - ATTEMPT_TTL_SECONDS * 1000).toISOString()}`;
    // A cursor left at a line that has passed its 30 days since: nothing older is shown (DynamoDB
    // refuses a start key outside the key condition).
    if (startSk !== undefined && startSk < oldest) return { items: [] };
    const result = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :oldest AND :last',
        ExpressionAttributeValues: { ':pk': prefixKey.pk, ':oldest': oldest, ':last': `${WEBHOOK_ATTEMPT_PREFIX}\uffff` },
        // The attempt of a test send made a moment before is in the log.
        ConsistentRead: true,
        ScanIndexForward: false,
        // One more than the page: a page that ends the log says so (no cursor to an empty page).
        Limit: page.limit + 1,
        ...(startSk ? { ExclusiveStartKey: { pk: prefixKey.pk, sk: startSk } } : {}),
      }),
    );
    const { page: found, last } = pageOf(result.Items ?? [], page.limit, result.LastEvaluatedKey, 'sk');
    const items = found.map((item) => parseItem(WebhookAttemptItem, item));
    return last !== undefined ? { items, next: encodeAttemptCursor(last) } : { items };
  }
}
