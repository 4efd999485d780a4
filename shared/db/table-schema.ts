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
 * with the table, so they never change on a deployed table. Each sorts on a string attribute and
 * projects ALL: an item with an `lsiNsk` attribute is copied whole into that index.
 *
 * Five generic slots (DynamoDB's maximum): an entity gives `lsiNsk` whatever meaning it needs
 * inside its own partitions. Only lead-list member views carry them (the list's sortable fields,
 * see shared/db/lead-items.ts), so that a page in any order is one strongly consistent Query
 * returning the views. A table with LSIs caps every partition (table and indexes together) at
 * 10 GB: a member view is kept under ~3.3 KB (its view at most 2 KB), so a full list of 100,000
 * members stays under ~2 GB of copies plus its digest (docs/data-model.md, "The item-collection
 * cap"). Campaign prospects use lsi1 (by status) and lsi2 (waiting to be scheduled) inside their
 * campaign's partition: ~0.5 KB each in at most three copies, 150 MB for 100,000 prospects. The
 * engine's actions use lsi2 only while parked by a pause (`PARKED#`). Nothing else carries LSI keys.
 */
export const LOCAL_INDEXES: readonly { name: string; sortKey: string }[] = [
  { name: 'lsi1', sortKey: 'lsi1sk' },
  { name: 'lsi2', sortKey: 'lsi2sk' },
  { name: 'lsi3', sortKey: 'lsi3sk' },
  { name: 'lsi4', sortKey: 'lsi4sk' },
  { name: 'lsi5', sortKey: 'lsi5sk' },
];
