import { type DynamoDBDocumentClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '../../shared/db/batch-write';

export interface CopyOptions {
  /** Parallel Scan segments (each reads its share of the table, one page at a time). */
  segments: number;
  log?: (line: string) => void;
}

export interface CopyReport {
  /** Items read from the source and written to the target. */
  copied: number;
}

/**
 * Copies every item of one table into another, as it is: the way to a table whose local indexes
 * project differently (they can only be set when a table is created; docs/deploy.md, "Upgrading a
 * table created with ALL local indexes"). Both tables have the same keys; the target's indexes
 * fill themselves from the items. A run overwrites what the target holds under the same keys, so
 * running it again (after an interruption) copies the source again and ends with the same
 * items; it must run while nothing writes to either table, or a write to the target can be
 * overwritten by the source's older item.
 */
export async function copyTable(db: DynamoDBDocumentClient, from: string, to: string, options: CopyOptions): Promise<CopyReport> {
  const counts = await Promise.all(
    Array.from({ length: options.segments }, async (_, segment) => {
      let copied = 0;
      let start: ScanCommandOutput['LastEvaluatedKey'];
      do {
        // Strongly consistent: nothing written just before the copy is missed.
        const page = await db.send(
          new ScanCommand({ TableName: from, Segment: segment, TotalSegments: options.segments, ConsistentRead: true, ExclusiveStartKey: start }),
        );
        const items = page.Items ?? [];
        // 25 a call, several calls at once, what DynamoDB leaves unprocessed sent again after a backoff.
        await batchWriteAll(db, to, items.map((Item) => [{ PutRequest: { Item } }]));
        copied += items.length;
        start = page.LastEvaluatedKey;
        if (items.length > 0) options.log?.(`segment ${segment + 1}/${options.segments}: ${copied} items`);
      } while (start);
      return copied;
    }),
  );
  return { copied: counts.reduce((sum, n) => sum + n, 0) };
}
