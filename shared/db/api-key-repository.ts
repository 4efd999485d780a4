import { oldestFirst } from '../domain/ordering';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { ApiKey, ApiKeyCredential } from '../domain/api-keys/api-key';
import type { ApiKeyRepository, CreateOutcome } from '../domain/api-keys/ports';
import { conflict } from '../domain/errors';
import { cancellationReasons, isConditionFailed, isTransactionConditionFailed, queryAll } from './client';
import { intAttribute, itemSchema, nullableString, parseItem } from './item-schema';
import { API_KEY_RECORD_PREFIX, apiKeyCounterKey, apiKeyCredentialKey, apiKeyRecordKey, membershipKey } from './keys';

const recordItem = (key: ApiKey) => ({ ...apiKeyRecordKey(key.userId, key.id), entityType: 'ApiKey', ...key });

const credentialItem = (credential: ApiKeyCredential) => ({
  ...apiKeyCredentialKey(credential.prefix),
  entityType: 'ApiKeyCredential',
  ...credential,
});

export const ApiKeyItem = itemSchema(
  'ApiKey',
  v.object({
    id: intAttribute,
    userId: intAttribute,
    workspaceId: intAttribute,
    name: v.string(),
    prefix: v.string(),
    isActive: v.boolean(),
    lastUsed: nullableString,
    createdAt: v.string(),
    updatedAt: v.string(),
    usageKeyId: v.string(),
  }),
);

export const ApiKeyCredentialItem = itemSchema(
  'ApiKeyCredential',
  v.object({
    prefix: v.string(),
    keyId: intAttribute,
    userId: intAttribute,
    workspaceId: intAttribute,
    secretHash: v.string(),
    usageKeyValue: v.string(),
    lastUsedWrittenAt: v.optional(v.string()),
  }),
);

export const ApiKeyCounterItem = itemSchema('ApiKeyCounter', v.object({ activeKeys: intAttribute }));

/** Attempts of a transaction cancelled only because another one held the counter at the same moment. */
const MAX_ATTEMPTS = 12;

/** Full jitter, so concurrent requests of one user do not collide on the counter again in step. */
const backOff = (attempt: number) => sleep(Math.random() * Math.min(500, 10 * 2 ** attempt));
const conditionFailed = (reason: { Code?: string } | undefined) => reason?.Code === 'ConditionalCheckFailed';
/**
 * Whether a cancelled transaction is worth another try: only contention (another transaction on
 * the same items, or throttling). Anything else (a validation error, a full item collection) is a
 * fault to surface at once, not a reason to sleep and answer "please retry".
 */
// Throttling is not among them: every client retries a transaction cancelled for it already
// (conflict-retries.ts), and retrying it here too multiplied the waits.
const RETRYABLE = new Set(['None', 'ConditionalCheckFailed', 'TransactionConflict']);
const onlyContention = (reasons: { Code?: string }[]) => reasons.every((reason) => RETRYABLE.has(reason.Code ?? 'None'));

/**
 * The attributes `recordUse` reads or writes besides the item keys. The authorizer, whose only
 * write that is, may update these attributes and no others (infra/table-access.ts).
 */
export const RECORD_USE_ATTRIBUTES = ['prefix', 'lastUsed', 'lastUsedWrittenAt'] as const;

export class DynamoApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listForUser(userId: number, options: { consistent?: boolean } = {}): Promise<ApiKey[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': apiKeyRecordKey(userId, 0).pk, ':prefix': API_KEY_RECORD_PREFIX },
      ...(options.consistent ? { ConsistentRead: true } : {}),
    });
    return items.map((item) => parseItem(ApiKeyItem, item)).sort(oldestFirst);
  }

  async get(userId: number, keyId: number): Promise<ApiKey | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: apiKeyRecordKey(userId, keyId), ConsistentRead: true }),
    );
    return Item ? parseItem(ApiKeyItem, Item) : undefined;
  }

  async activeKeyCount(userId: number): Promise<number> {
    // Strongly consistent: a key revoked a moment ago has already freed its slot.
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: apiKeyCounterKey(userId), ConsistentRead: true }),
    );
    return Item ? parseItem(ApiKeyCounterItem, Item).activeKeys : this.initialiseCounter(userId);
  }

  /**
   * Migration for users whose keys predate the counter (or whose counter was deleted to rebuild
   * it): the counter starts at a count of their active keys. Safe under concurrency because every
   * write that changes the set of active keys is a transaction conditional on the counter
   * existing, so that set cannot change while it is absent; of two concurrent initialisations
   * one writes and the other finds the counter there.
   */
  private async initialiseCounter(userId: number): Promise<number> {
    for (let attempt = 0; ; attempt += 1) {
      const activeKeys = await this.countActiveRecords(userId);
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...apiKeyCounterKey(userId), entityType: 'ApiKeyCounter', userId, activeKeys },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return activeKeys;
      } catch (error) {
        if (isConditionFailed(error)) return this.activeKeyCount(userId);
        // A transaction holding the (absent) counter item at this moment: it fails, we try again.
        if (!(error instanceof Error && error.name === 'TransactionConflictException') || attempt + 1 >= MAX_ATTEMPTS) throw error;
        await backOff(attempt);
      }
    }
  }

  private async countActiveRecords(userId: number): Promise<number> {
    let count = 0;
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression: 'isActive = :true',
          ExpressionAttributeValues: { ':pk': apiKeyRecordKey(userId, 0).pk, ':prefix': API_KEY_RECORD_PREFIX, ':true': true },
          Select: 'COUNT',
          ConsistentRead: true,
          ExclusiveStartKey,
        }),
      );
      count += page.Count ?? 0;
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return count;
  }

  async create(key: ApiKey, credential: ApiKeyCredential, maxActiveKeys: number): Promise<CreateOutcome> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      try {
        await this.db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                // The slot: concurrent creates of one user serialise here, so the limit holds exactly.
                Update: {
                  TableName: this.tableName,
                  Key: apiKeyCounterKey(key.userId),
                  UpdateExpression: 'ADD activeKeys :one',
                  ConditionExpression: 'activeKeys < :max',
                  ExpressionAttributeValues: { ':one': 1, ':max': maxActiveKeys },
                },
              },
              { Put: { TableName: this.tableName, Item: recordItem(key), ConditionExpression: 'attribute_not_exists(pk)' } },
              {
                Put: { TableName: this.tableName, Item: credentialItem(credential), ConditionExpression: 'attribute_not_exists(pk)' },
              },
              {
                // The user's link to the key's workspace: a member removed from it (the removal
                // then revokes their keys there) cannot get a new key for it in between.
                ConditionCheck: {
                  TableName: this.tableName,
                  Key: membershipKey(key.userId, key.workspaceId),
                  ConditionExpression: 'attribute_exists(pk)',
                },
              },
            ],
          }),
        );
        return 'created';
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons || !onlyContention(reasons)) throw error;
        const [counter, recordPut, credentialPut, membership] = reasons;
        const keyItems = [recordPut, credentialPut];
        if (conditionFailed(membership)) return 'not_member';
        if (conditionFailed(counter)) {
          // Full, or no counter yet (then this initialises it); a slot freed meanwhile is taken on the next attempt.
          if ((await this.activeKeyCount(key.userId)) >= maxActiveKeys) return 'limit_reached';
          continue;
        }
        if (keyItems.some(conditionFailed)) throw conflict('API key could not be created, please retry');
        await backOff(attempt);
      }
    }
    throw conflict('API key could not be created, please retry');
  }

  async rotate(previous: ApiKey, next: ApiKey, credential: ApiKeyCredential): Promise<void> {
    // The key stays active, so its slot in the counter stays taken.
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: apiKeyRecordKey(previous.userId, previous.id),
                UpdateExpression: 'SET prefix = :prefix, updatedAt = :updatedAt, usageKeyId = :usageKeyId',
                ConditionExpression: 'prefix = :previousPrefix AND isActive = :true',
                ExpressionAttributeValues: {
                  ':prefix': next.prefix,
                  ':updatedAt': next.updatedAt,
                  ':usageKeyId': next.usageKeyId,
                  ':previousPrefix': previous.prefix,
                  ':true': true,
                },
              },
            },
            { Delete: { TableName: this.tableName, Key: apiKeyCredentialKey(previous.prefix) } },
            {
              Put: { TableName: this.tableName, Item: credentialItem(credential), ConditionExpression: 'attribute_not_exists(pk)' },
            },
          ],
        }),
      );
    } catch (error) {
      if (isTransactionConditionFailed(error)) throw conflict('API key changed while rotating, please retry');
      throw error;
    }
  }

  async revoke(key: ApiKey, updatedAt: string): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      try {
        await this.db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                // Only the key as read: a concurrent revoke must not free its slot twice, and a
                // concurrent rotation's new credential must not outlive the revocation.
                Update: {
                  TableName: this.tableName,
                  Key: apiKeyRecordKey(key.userId, key.id),
                  UpdateExpression: 'SET isActive = :false, updatedAt = :updatedAt',
                  ConditionExpression: 'isActive = :true AND prefix = :prefix',
                  ExpressionAttributeValues: { ':false': false, ':true': true, ':updatedAt': updatedAt, ':prefix': key.prefix },
                },
              },
              { Delete: { TableName: this.tableName, Key: apiKeyCredentialKey(key.prefix) } },
              {
                Update: {
                  TableName: this.tableName,
                  Key: apiKeyCounterKey(key.userId),
                  UpdateExpression: 'ADD activeKeys :minusOne',
                  ConditionExpression: 'attribute_exists(activeKeys)',
                  ExpressionAttributeValues: { ':minusOne': -1 },
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons || !onlyContention(reasons)) throw error;
        const [record, , counter] = reasons;
        if (conditionFailed(record)) return false;
        if (conditionFailed(counter)) {
          // No counter yet: count the keys (this one still active) and revoke again.
          await this.activeKeyCount(key.userId);
          continue;
        }
        await backOff(attempt);
      }
    }
    throw conflict('API key changed while revoking, please retry');
  }

  async getCredential(prefix: string): Promise<ApiKeyCredential | undefined> {
    // Strongly consistent: a key rotated or revoked a moment ago must already fail.
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: apiKeyCredentialKey(prefix), ConsistentRead: true }),
    );
    return Item ? parseItem(ApiKeyCredentialItem, Item) : undefined;
  }

  /** Touches RECORD_USE_ATTRIBUTES and the keys only: the authorizer's IAM grant allows no other attribute. */
  async recordUse(credential: ApiKeyCredential, usedAt: string): Promise<void> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              // Only while this prefix is still the key's current one: never touch a rotated key.
              Update: {
                TableName: this.tableName,
                Key: apiKeyRecordKey(credential.userId, credential.keyId),
                UpdateExpression: 'SET lastUsed = :usedAt',
                ConditionExpression: 'prefix = :prefix',
                ExpressionAttributeValues: { ':usedAt': usedAt, ':prefix': credential.prefix },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: apiKeyCredentialKey(credential.prefix),
                UpdateExpression: 'SET lastUsedWrittenAt = :usedAt',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':usedAt': usedAt },
              },
            },
          ],
        }),
      );
    } catch (error) {
      // A rotate or revoke in between wins; the use is simply not recorded.
      if (!isTransactionConditionFailed(error)) throw error;
    }
  }
}
