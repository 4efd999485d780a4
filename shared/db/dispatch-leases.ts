import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DispatchLeases } from '../domain/engine/ports';
import { isConditionFailed } from './client';
import { dispatchLeaseKey } from './keys';

/** The scheduler's lease per due-time shard: one small item each, two writes per shard and run. */
export class DynamoDispatchLeases implements DispatchLeases {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async take(shard: number, now: string, until: string, holder: string) {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: dispatchLeaseKey(shard),
          UpdateExpression: 'SET holder = :holder, leaseUntil = :until',
          ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil <= :now',
          ExpressionAttributeValues: { ':holder': holder, ':until': until, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return {
        ...(typeof Attributes?.through === 'string' ? { through: Attributes.through } : {}),
        ...(typeof Attributes?.fullSweepAt === 'string' ? { fullSweepAt: Attributes.fullSweepAt } : {}),
      };
    } catch (error) {
      if (isConditionFailed(error)) return undefined;
      throw error;
    }
  }

  async release(shard: number, holder: string, state: { through: string; fullSweepAt?: string | undefined }): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: dispatchLeaseKey(shard),
          UpdateExpression: `SET through = :through, leaseUntil = :free${state.fullSweepAt ? ', fullSweepAt = :full' : ''}`,
          ConditionExpression: 'holder = :holder',
          ExpressionAttributeValues: { ':through': state.through, ':free': '', ':holder': holder, ...(state.fullSweepAt ? { ':full': state.fullSweepAt } : {}) },
        }),
      );
    } catch (error) {
      // Another run took the lease after ours expired: it keeps the mark.
      if (!isConditionFailed(error)) throw error;
    }
  }
}
