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

/**
 * Local secondary indexes (alternative sort keys within one partition). They can only be created
 * with the table, so add them before the first deploy. Each sorts on a string attribute.
 */
export const LOCAL_INDEXES: readonly { name: string; sortKey: string }[] = [];
