import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { RequestLeases } from '../domain/request-leases';
import { isConditionFailed } from './client';
import { requestLeaseKey } from './keys';

export interface LeaseItems {
  /** The item of the lease `name` (default `requestLeaseKey`). */
  key?: (name: string) => { pk: string; sk: string };
  entityType?: string;
  /** The longest wait between two tries (each waits 50 ms more than the one before, plus up to 50 ms). */
  waitCeilingMs?: number;
}

/**
 * Leases that make requests on one thing take turns: an item per key, taken with a conditional
 * Put (free or expired) and deleted by its holder. A holder that crashed leaves it to expire.
 */
export class DynamoRequestLeases implements RequestLeases {
  private readonly keyOf: (name: string) => { pk: string; sk: string };

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly items: LeaseItems = {},
  ) {
    this.keyOf = items.key ?? requestLeaseKey;
  }

  async take(name: string, holder: string | number, term: () => { now: string; until: string }, attempts: number): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      const { now, until } = term();
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...this.keyOf(name), entityType: this.items.entityType ?? 'RequestLease', holder, until },
            ConditionExpression: 'attribute_not_exists(pk) OR #until <= :now',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':now': now },
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
        if (attempt >= attempts) return false;
        await sleep(Math.min(50 * attempt, this.items.waitCeilingMs ?? 250) + Math.floor(Math.random() * 50));
      }
    }
  }

  async release(name: string, holder: string | number): Promise<void> {
    try {
      await this.db.send(
        new DeleteCommand({ TableName: this.tableName, Key: this.keyOf(name), ConditionExpression: 'holder = :holder', ExpressionAttributeValues: { ':holder': holder } }),
      );
    } catch (error) {
      // Expired and taken by another request meanwhile: it is theirs now.
      if (!isConditionFailed(error)) throw error;
    }
  }
}
