import { setTimeout as sleep } from 'node:timers/promises';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StorageBusyError } from './conflict-retries';

/** BatchWriteItem's limit of requests per call. */
const REQUESTS_PER_CALL = 25;
const MAX_ATTEMPTS = 10;
/** Calls in flight at once: enough to keep DynamoDB busy, few enough not to be throttled. */
const CONCURRENCY = 16;

export type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/**
 * Writes unconditionally, 25 requests a call, several calls at once, retrying what DynamoDB leaves
 * unprocessed with backoff. `groups` are kept within one call (a lead and its list members), so
 * they land together. For items no other writer can be changing: new leads, derived items.
 * Returns the keys of the puts that were sent more than once (they landed later than the rest).
 */
export async function batchWriteAll(db: DynamoDBDocumentClient, tableName: string, groups: WriteRequest[][]): Promise<Set<string>> {
  /** Keys (`pk \u0000 sk`) of the puts that DynamoDB left unprocessed at first and were sent again. */
  const retried = new Set<string>();
  const calls: WriteRequest[][] = [];
  let current: WriteRequest[] = [];
  for (const group of groups) {
    if (current.length + group.length > REQUESTS_PER_CALL && current.length > 0) {
      calls.push(current);
      current = [];
    }
    current.push(...group);
  }
  if (current.length > 0) calls.push(current);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      let pending = calls[next++] as WriteRequest[];
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt >= MAX_ATTEMPTS) throw new StorageBusyError('BatchWriteItem left requests unprocessed after retries');
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
        const response = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (response.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
        for (const request of pending) if ('PutRequest' in request) retried.add(`${String(request.PutRequest.Item.pk)}\u0000${String(request.PutRequest.Item.sk)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, calls.length) }, worker));
  return retried;
}
