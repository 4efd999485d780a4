import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SearchUsageRepository } from '../domain/leads/ports';
import { isConditionFailed } from './client';
import { searchUsageKey } from './keys';

/** Usage items expire a year after their month: history for support, not kept forever. */
const RETENTION_SECONDS = 400 * 24 * 3600;

/** A workspace's monthly count of directory searches: one item per month, counted atomically. */
export class DynamoSearchUsageRepository implements SearchUsageRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async reserve(workspaceId: number, month: string, limit: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: searchUsageKey(workspaceId, month),
          UpdateExpression: 'ADD searches :one SET entityType = :type, workspaceId = :workspaceId, #month = :month, #ttl = :ttl',
          // Never past the limit, even with concurrent searches.
          ConditionExpression: 'attribute_not_exists(searches) OR searches < :limit',
          ExpressionAttributeNames: { '#month': 'month', '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': limit,
            ':type': 'SearchUsage',
            ':workspaceId': workspaceId,
            ':month': month,
            ':ttl': Math.floor(Date.parse(`${month}-01T00:00:00Z`) / 1000) + RETENTION_SECONDS,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  async release(workspaceId: number, month: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: searchUsageKey(workspaceId, month),
          UpdateExpression: 'ADD searches :minusOne',
          ConditionExpression: 'searches > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
}
