import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { isDeepStrictEqual } from 'node:util';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { capacityMeter } from './capacity-meter';
import { retryConflicts } from './conflict-retries';
import { TABLE } from './table-schema';

export interface DocClientOptions {
  /** DynamoDB Local's URL; unset in AWS. */
  endpoint?: string | undefined;
  region?: string;
  /** Report consumed capacity into the process-wide meter (benchmarks). */
  trackCapacity?: boolean;
}

/**
 * The document client every repository uses. Locally it points at DynamoDB Local with dummy
 * credentials so that a developer's real AWS profile is never touched by tests.
 */
export function makeDocClient(options: DocClientOptions = {}): DynamoDBDocumentClient {
  const config: DynamoDBClientConfig = { region: options.region ?? 'us-east-1' };
  if (options.endpoint) {
    config.endpoint = options.endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
  // The SDK's logger middleware runs every input and output through its sensitive-data filter
  // before handing them to the logger, even to the no-op logger this client has: measurable CPU on
  // bulk paths (a tenth of the service's own time in the lead-list import) for nothing logged.
  client.middlewareStack.remove('loggerMiddleware');
  retryConflicts(client);
  if (options.trackCapacity) capacityMeter.attach(client);
  return client;
}

/** `ConditionalCheckFailedException` by name: the name survives bundling where instanceof may not. */
export const isConditionFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** A value as DynamoDB keeps it: attributes set to undefined are not written (removeUndefinedValues). */
function stored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stored);
  if (value === null || typeof value !== 'object' || value instanceof Set) return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined).map(([key, item]) => [key, stored(item)]));
}

/**
 * Whether the table now holds exactly `item`, read strongly consistent: asked after a conditional
 * write of `item` failed, it tells the write that landed from one that lost a race. A write whose
 * answer was lost (a timeout, a reset connection) is sent again by the SDK, and that second send
 * fails the write's own condition (the version it expects is the one it wrote): without this check
 * the caller took its own write for another's (chaos run: a claim given back twice, a cap exceeded).
 */
export async function storedAsWritten(db: DynamoDBDocumentClient, tableName: string, item: Record<string, unknown>): Promise<boolean> {
  const key = { [TABLE.partitionKey]: item[TABLE.partitionKey], [TABLE.sortKey]: item[TABLE.sortKey] };
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  return Item !== undefined && isDeepStrictEqual(stored(Item), stored(item));
}

/** A transaction cancelled because one of its conditions failed. */
export const isTransactionConditionFailed = (error: unknown): boolean =>
  error instanceof Error &&
  error.name === 'TransactionCanceledException' &&
  'CancellationReasons' in error &&
  Array.isArray((error as { CancellationReasons?: unknown[] }).CancellationReasons) &&
  ((error as { CancellationReasons: { Code?: string }[] }).CancellationReasons ?? []).some(
    (reason) => reason.Code === 'ConditionalCheckFailed',
  );

/**
 * The per-action reasons of a cancelled transaction, in the order of its TransactItems (`None`
 * for actions that were fine); undefined for any other error.
 */
export function cancellationReasons(error: unknown): { Code?: string }[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return Array.isArray(reasons) ? reasons : [];
}

/** Every item a Query matches, following LastEvaluatedKey page by page (for small, bounded sets). */
export async function queryAll(db: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
