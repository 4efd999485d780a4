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
 *
 * Five generic slots (DynamoDB's maximum): an entity gives `lsiNsk` whatever meaning it needs
 * inside its own partitions. Lead-list members use them for the list's sortable fields (see
 * shared/db/lead-items.ts); they support strongly consistent reads, unlike GSIs. A partition
 * holding items with LSI keys is limited to 10 GB, so only bounded partitions may use them.
 */
export const LOCAL_INDEXES: readonly { name: string; sortKey: string }[] = [
  { name: 'lsi1', sortKey: 'lsi1sk' },
  { name: 'lsi2', sortKey: 'lsi2sk' },
  { name: 'lsi3', sortKey: 'lsi3sk' },
  { name: 'lsi4', sortKey: 'lsi4sk' },
  { name: 'lsi5', sortKey: 'lsi5sk' },
];
