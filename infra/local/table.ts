import { CreateTableCommand, DescribeTableCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GLOBAL_INDEXES, LOCAL_INDEXES, LOCAL_INDEX_PROJECTION, type LocalIndexProjection, TABLE } from '../../shared/db/table-schema';

/** The table `npm start` keeps its data in (and `npm run migrate` migrates by default). */
export const LOCAL_TABLE_NAME = 'outreach';

/**
 * Creates the single table (same keys and indexes as the CDK stack) unless it exists. A table
 * created with ALL local indexes (before 2026-11-26, or `localIndexProjection: 'ALL'`, as the tests
 * of the upgrade do) is kept as it is: the code reads both layouts.
 */
export async function ensureTable(
  db: DynamoDBDocumentClient,
  tableName: string,
  options: { localIndexProjection?: LocalIndexProjection } = {},
): Promise<void> {
  try {
    await db.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException) && (error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const attributes = [
    TABLE.partitionKey,
    TABLE.sortKey,
    ...GLOBAL_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
    ...LOCAL_INDEXES.map((index) => index.sortKey),
  ];
  await db.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: GLOBAL_INDEXES.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      ...(LOCAL_INDEXES.length > 0
        ? {
            LocalSecondaryIndexes: LOCAL_INDEXES.map((index) => ({
              IndexName: index.name,
              KeySchema: [
                { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
                { AttributeName: index.sortKey, KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: options.localIndexProjection ?? LOCAL_INDEX_PROJECTION },
            })),
          }
        : {}),
    }),
  );
}
