import { setTimeout as sleep } from 'node:timers/promises';
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StorageBusyError } from './conflict-retries';

/** BatchGetItem's limit of keys per call. */
const KEYS_PER_CALL = 100;
const MAX_ATTEMPTS = 8;

/**
 * Reads items by key in calls of 100, retrying what DynamoDB leaves unprocessed (with backoff).
 * Missing items are simply absent from the result; order is not kept.
 */
export async function batchGetAll(
  db: DynamoDBDocumentClient,
  tableName: string,
  keys: { pk: string; sk: string }[],
  options: { consistent?: boolean; projection?: string; names?: Record<string, string> } = {},
): Promise<Record<string, unknown>[]> {
  const unique = [...new Map(keys.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
  const chunks: { pk: string; sk: string }[][] = [];
  for (let i = 0; i < unique.length; i += KEYS_PER_CALL) chunks.push(unique.slice(i, i + KEYS_PER_CALL));
  const results = await Promise.all(
    chunks.map(async (chunk) => {
      const items: Record<string, unknown>[] = [];
      let pending: Record<string, unknown>[] = chunk;
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt >= MAX_ATTEMPTS) throw new StorageBusyError('BatchGetItem left keys unprocessed after retries');
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
        const response = await db.send(
          new BatchGetCommand({
            RequestItems: {
              [tableName]: {
                Keys: pending,
                ConsistentRead: options.consistent ?? false,
                ...(options.projection ? { ProjectionExpression: options.projection } : {}),
                ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
              },
            },
          }),
        );
        items.push(...(response.Responses?.[tableName] ?? []));
        pending = response.UnprocessedKeys?.[tableName]?.Keys ?? [];
      }
      return items;
    }),
  );
  return results.flat();
}
