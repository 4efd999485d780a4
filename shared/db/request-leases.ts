import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { RequestLeases } from '../domain/request-leases';
import { isConditionFailed } from './client';
import { requestLeaseKey } from './keys';

/**
 * Leases that make requests on one thing take turns: an item per key, taken with a conditional
 * Put (free or expired) and deleted by its holder. A holder that crashed leaves it to expire.
 */
export class DynamoRequestLeases implements RequestLeases {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async take(name: string, holder: string, term: () => { now: string; until: string }, attempts: number): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      const { now, until } = term();
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...requestLeaseKey(name), entityType: 'RequestLease', holder, until },
            ConditionExpression: 'attribute_not_exists(pk) OR #until <= :now',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':now': now },
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
        if (attempt >= attempts) return false;
        await sleep(Math.min(50 * attempt, 250) + Math.floor(Math.random() * 50));
      }
    }
  }

  async release(name: string, holder: string): Promise<void> {
    try {
      await this.db.send(
        new DeleteCommand({ TableName: this.tableName, Key: requestLeaseKey(name), ConditionExpression: 'holder = :holder', ExpressionAttributeValues: { ':holder': holder } }),
      );
    } catch (error) {
      // Expired and taken by another request meanwhile: it is theirs now.
      if (!isConditionFailed(error)) throw error;
    }
  }
}
