import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { LOGIN_ATTEMPTS_MEMORY_SECONDS, type LoginAttemptStore } from '../domain/accounts/login-throttle';
import { isConditionFailed } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { loginAttemptsKey } from './keys';
import { TABLE } from './table-schema';

/** One (email, IP) pair's attempts since its last success, and until when it must wait (epoch ms). */
export const LoginAttemptsItem = itemSchema(
  'LoginAttempts',
  v.object({ attempts: intAttribute, waitUntil: v.optional(intAttribute), ttl: intAttribute }),
);

/** Names and values every condition below uses. */
const NAMES = { '#attempts': 'attempts', '#waitUntil': 'waitUntil', '#ttl': TABLE.timeToLive } as const;

/**
 * The login throttle's per-pair counts: one small item per (email, IP) pair, moved by one
 * conditional `ADD` per attempt (1 WCU) and deleted on a success. The item expires by TTL a day
 * after the last attempt; TTL deletes lazily, so an expired item is treated as absent here.
 */
export class DynamoLoginAttempts implements LoginAttemptStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(normalizedEmail: string, ip: string, now: Date): Promise<{ claimed: true; attempts: number } | { claimed: false; until: Date }> {
    const key = loginAttemptsKey(normalizedEmail, ip);
    const nowMs = now.getTime();
    const nowSeconds = Math.floor(nowMs / 1000);
    const ttl = nowSeconds + LOGIN_ATTEMPTS_MEMORY_SECONDS;
    // A few rounds at most: each lost race means another attempt of the same pair changed the item.
    for (let round = 0; round < 3; round += 1) {
      try {
        const { Attributes } = await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'ADD #attempts :one SET #ttl = :ttl, entityType = :type',
            ConditionExpression:
              'attribute_not_exists(#attempts) OR (#ttl > :nowSeconds AND (attribute_not_exists(#waitUntil) OR #waitUntil <= :nowMs))',
            ExpressionAttributeNames: NAMES,
            ExpressionAttributeValues: { ':one': 1, ':ttl': ttl, ':type': 'LoginAttempts', ':nowSeconds': nowSeconds, ':nowMs': nowMs },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { claimed: true, attempts: parseItem(LoginAttemptsItem, Attributes ?? {}, key).attempts };
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
      }
      // Waiting, or expired: which one is the stored item's to say.
      const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
      if (!Item) continue; // cleared by a success in between
      const stored = parseItem(LoginAttemptsItem, Item, key);
      if (stored.ttl <= nowSeconds) {
        // Forgotten: start over at one, unless another attempt restarted it first.
        try {
          await this.db.send(
            new PutCommand({
              TableName: this.tableName,
              Item: { ...key, entityType: 'LoginAttempts', attempts: 1, ttl },
              ConditionExpression: '#ttl = :storedTtl',
              ExpressionAttributeNames: { '#ttl': TABLE.timeToLive },
              ExpressionAttributeValues: { ':storedTtl': stored.ttl },
            }),
          );
          return { claimed: true, attempts: 1 };
        } catch (error) {
          if (!isConditionFailed(error)) throw error;
          continue;
        }
      }
      if (stored.waitUntil !== undefined && stored.waitUntil > nowMs) return { claimed: false, until: new Date(stored.waitUntil) };
    }
    // Still contended: other attempts of this very pair are under way; this one waits a second.
    return { claimed: false, until: new Date(nowMs + 1000) };
  }

  async holdUntil(normalizedEmail: string, ip: string, attempts: number, until: Date): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: loginAttemptsKey(normalizedEmail, ip),
          UpdateExpression: 'SET #waitUntil = :until',
          // A later attempt of the pair was counted meanwhile: its own, longer hold stands.
          ConditionExpression: '#attempts = :attempts',
          ExpressionAttributeNames: { '#attempts': 'attempts', '#waitUntil': 'waitUntil' },
          ExpressionAttributeValues: { ':until': until.getTime(), ':attempts': attempts },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }

  async clear(normalizedEmail: string, ip: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: loginAttemptsKey(normalizedEmail, ip) }));
  }
}
