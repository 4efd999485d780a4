/**
 * The single table's shape. Read by the CDK stack, the repositories and the local runtime,
 * so the deployed table, the code and DynamoDB Local can never disagree.
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  entityType: 'entityType',
  timeToLive: 'ttl',
  gsi1: { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  gsi2: { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
} as const;

/** Global secondary indexes, in the order they are created. */
export const GLOBAL_INDEXES = [TABLE.gsi1, TABLE.gsi2] as const;
