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

/** What a local index copies of an item: `KEYS_ONLY` (this layout) or `ALL` (tables created before 2026-11-26). */
export type LocalIndexProjection = 'KEYS_ONLY' | 'ALL';

/**
 * Local secondary indexes (alternative sort keys within one partition). They can only be created
 * with the table, so they never change on a deployed table. Each sorts on a string attribute and
 * projects keys only: an item with an `lsiNsk` attribute has a small entry (its keys) in that index.
 * Keys only, because with ALL every write of an item that carries LSI keys rewrote its copy in each
 * of them, even when no sort key moved: a member view's status change cost 6 WCU instead of 1
 * (docs/data-model.md, "Local indexes hold keys only"). A Query of an LSI therefore returns keys; a
 * reader that needs the items reads them by key (a list page) or asks for `Select: ALL_ATTRIBUTES`
 * (DynamoDB fetches each from the table). Code written so works on a table created with ALL too.
 *
 * Five generic slots (DynamoDB's maximum): an entity gives `lsiNsk` whatever meaning it needs
 * inside its own partitions. Lead-list member views carry them (the list's sortable fields, see
 * shared/db/lead-items.ts), so that a page in any order is one strongly consistent Query for the
 * page's keys and one read of their views. A table with LSIs caps every partition (table and
 * indexes together) at 10 GB: a member view is kept under ~3.3 KB (its view at most 2 KB), so a
 * full list of 100,000 members stays under ~0.5 GB plus its digest (docs/data-model.md, "The
 * item-collection cap"). Campaign prospects use lsi1 (by status) and lsi2 (waiting to be
 * scheduled) inside their campaign's partition. The engine's actions use lsi2 only while parked by
 * a pause (`PARKED#`). Nothing else carries LSI keys.
 */
export const LOCAL_INDEXES: readonly { name: string; sortKey: string }[] = [
  { name: 'lsi1', sortKey: 'lsi1sk' },
  { name: 'lsi2', sortKey: 'lsi2sk' },
  { name: 'lsi3', sortKey: 'lsi3sk' },
  { name: 'lsi4', sortKey: 'lsi4sk' },
  { name: 'lsi5', sortKey: 'lsi5sk' },
];

/** The name of one of the table's indexes (what an IAM grant of Query on an index names). */
export type IndexName = (typeof GLOBAL_INDEXES)[number]['name'] | `lsi${1 | 2 | 3 | 4 | 5}`;

/** The projection of `LOCAL_INDEXES` in a table created today (the CDK stack's default and DynamoDB Local's). */
export const LOCAL_INDEX_PROJECTION: LocalIndexProjection = 'KEYS_ONLY';
