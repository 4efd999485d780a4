import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
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

/**
 * The login throttle's per-pair counts: one small item per (email, IP) pair, read (strongly
 * consistent) and put back with the next count and its wait, conditional on what was read, per
 * attempt (1 RCU + 1 WCU), and deleted on a success. The item expires by TTL a day after the last
 * attempt; TTL deletes lazily, so an expired item is treated as absent here.
 */
export class DynamoLoginAttempts implements LoginAttemptStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(
    normalizedEmail: string,
    ip: string,
    now: Date,
    waitAfterMs: (attempts: number) => number,
  ): Promise<{ claimed: true; attempts: number } | { claimed: false; until: Date }> {
    const key = loginAttemptsKey(normalizedEmail, ip);
    const nowMs = now.getTime();
    const nowSeconds = Math.floor(nowMs / 1000);
    const ttl = nowSeconds + LOGIN_ATTEMPTS_MEMORY_SECONDS;
    // Read, then write the next count with its wait, conditional on what was read: of attempts sent
    // at once, one takes each count, and the others read the wait it set (or, with no wait yet, try
    // the next count). A few rounds at most: each lost race means another attempt of the pair counted.
    for (let round = 0; round < 4; round += 1) {
      const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
      const stored = Item ? parseItem(LoginAttemptsItem, Item, key) : undefined;
      // TTL deletes lazily: an expired count is forgotten here (the write below replaces it).
      const live = stored && stored.ttl > nowSeconds ? stored : undefined;
      if (live?.waitUntil !== undefined && live.waitUntil > nowMs) return { claimed: false, until: new Date(live.waitUntil) };
      const attempts = (live?.attempts ?? 0) + 1;
      const waitMs = waitAfterMs(attempts);
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...key, entityType: 'LoginAttempts', attempts, ttl, ...(waitMs > 0 ? { waitUntil: nowMs + waitMs } : {}) },
            ConditionExpression: stored ? '#attempts = :storedAttempts AND #ttl = :storedTtl' : 'attribute_not_exists(#attempts)',
            ExpressionAttributeNames: stored ? { '#attempts': 'attempts', '#ttl': TABLE.timeToLive } : { '#attempts': 'attempts' },
            ...(stored ? { ExpressionAttributeValues: { ':storedAttempts': stored.attempts, ':storedTtl': stored.ttl } } : {}),
          }),
        );
        return { claimed: true, attempts };
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
      }
    }
    // Still contended: other attempts of this very pair are under way; this one waits a second.
    return { claimed: false, until: new Date(nowMs + 1000) };
  }

  async clear(normalizedEmail: string, ip: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: loginAttemptsKey(normalizedEmail, ip) }));
  }
}
