import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RequestLimiter } from '../domain/suppressions/ports';
import { isConditionFailed } from './client';
import { requestCounterKey } from './keys';
import { TABLE } from './table-schema';

export interface FixedWindow {
  /** What is counted (a route's name): one counter per scope, subject and window. */
  scope: string;
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

/**
 * A fixed-window request limit in the table: one small item per subject and window, moved by one
 * conditional `ADD` (1 WCU a request; the request over the limit writes nothing). Items expire by
 * TTL a window after their end. For public routes the usage plan does not cover (no API key).
 */
export class DynamoRequestLimiter implements RequestLimiter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly window: FixedWindow,
  ) {}

  private windowOf(now: Date): { start: number; windowMs: number } {
    const windowMs = this.window.windowSeconds * 1000;
    return { start: Math.floor(now.getTime() / windowMs) * windowMs, windowMs };
  }

  async take(subject: string, now: Date): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
    const { start, windowMs } = this.windowOf(now);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: requestCounterKey(this.window.scope, subject, new Date(start).toISOString()),
          UpdateExpression: 'ADD n :one SET #ttl = if_not_exists(#ttl, :ttl)',
          ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
          ExpressionAttributeNames: { '#ttl': TABLE.timeToLive },
          ExpressionAttributeValues: { ':one': 1, ':limit': this.window.limit, ':ttl': Math.floor((start + 2 * windowMs) / 1000) },
        }),
      );
      return { allowed: true };
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000)) };
    }
  }

  /**
   * Returns one request taken at `takenAt` to its window (a login that succeeded is not a failure):
   * one `ADD -1` on the same item, never below zero.
   */
  async giveBack(subject: string, takenAt: Date): Promise<void> {
    const { start } = this.windowOf(takenAt);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: requestCounterKey(this.window.scope, subject, new Date(start).toISOString()),
          UpdateExpression: 'ADD n :minusOne',
          ConditionExpression: 'n > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
}
