import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { SuppressionStore } from '../domain/suppressions/ports';
import type { Suppression, SuppressionReason, SuppressionType } from '../domain/suppressions/suppression';
import { batchGetAll } from './batch-get';
import { isConditionFailed } from './client';
import { everyValueOf, intAttribute, itemSchema, parseItem } from './item-schema';
import { suppressionIdKey, suppressionKey, suppressionsByWorkspace } from './keys';
import { TABLE } from './table-schema';
import { commitUnits, type TransactItem } from './transactions';

const TYPES = everyValueOf<SuppressionType>({ EMAIL: true, DOMAIN: true });
const REASONS = everyValueOf<SuppressionReason>({ UNSUBSCRIBED: true, HARD_BOUNCE: true, MANUAL: true });

/** A suppression entry as stored (~0.3 KB, one copy in gsi1). */
export const SuppressionItem = itemSchema(
  'Suppression',
  v.object({
    id: intAttribute,
    workspaceId: intAttribute,
    type: v.picklist(TYPES),
    value: v.string(),
    reason: v.picklist(REASONS),
    prospectId: v.optional(v.nullable(intAttribute), null),
    campaignId: v.optional(v.nullable(intAttribute), null),
    createdAt: v.string(),
  }),
);

const ENTITY_TYPE = 'Suppression';

/** An entry's id to its value (keys.ts, suppressionIdKey). */
const SuppressionIdItem = itemSchema('SuppressionId', v.object({ type: v.picklist(TYPES), value: v.string() }));

/**
 * The workspace suppression lists: one item per value, keyed by the value (the check is one
 * BatchGetItem of the address's key and its domain's; a value is on a list at most once, by a
 * conditional Put in a transaction with its id item), with gsi1 keys for the workspace's list in id order.
 */
export class DynamoSuppressionRepository implements SuppressionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async find(workspaceId: number, values: readonly { type: SuppressionType; value: string }[], options: { consistent?: boolean } = {}): Promise<Suppression[]> {
    if (values.length === 0) return [];
    const keys = values.map(({ type, value }) => suppressionKey(workspaceId, type, value));
    const items = await batchGetAll(this.db, this.tableName, keys, { consistent: options.consistent ?? true });
    return items.map((item) => parseItem(SuppressionItem, item));
  }

  async putMany(entries: readonly Suppression[]): Promise<Suppression[]> {
    // Each entry with its id item in one transaction unit: 50 values a transaction, so a bulk add
    // of 1,000 is 20 calls where one Put each took 2,000.
    const units = entries.map((entry) => ({ owner: entry, actions: this.entryWrites(entry) }));
    const refused = [...(await commitUnits(this.db, units, { concurrency: 4 }))];
    if (refused.length === 0) return [];
    // The SDK's own second send after a lost answer fails the conditions of its own entries: ids
    // are unique, so an entry standing with this id is this write's.
    const standing = new Map((await this.find(refused[0]?.workspaceId ?? 0, refused)).map((entry) => [`${entry.type}:${entry.value}`, entry.id]));
    return refused.filter((entry) => standing.get(`${entry.type}:${entry.value}`) !== entry.id);
  }

  /** The id item and the entry, put only if its value is not on the list. */
  private entryWrites(entry: Suppression): TransactItem[] {
    return [
      { Put: { TableName: this.tableName, Item: { ...suppressionIdKey(entry.workspaceId, entry.id), [TABLE.entityType]: 'SuppressionId', type: entry.type, value: entry.value } } },
      {
        Put: {
          TableName: this.tableName,
          Item: { ...suppressionKey(entry.workspaceId, entry.type, entry.value), ...suppressionsByWorkspace(entry.workspaceId, entry.id), [TABLE.entityType]: ENTITY_TYPE, ...entry },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
  }

  async page(workspaceId: number, afterId: number | undefined, limit: number): Promise<{ entries: Suppression[]; more: boolean }> {
    const index = suppressionsByWorkspace(workspaceId, afterId ?? 0);
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: TABLE.gsi1.name,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk > :after',
        ExpressionAttributeValues: { ':pk': index.gsi1pk, ':after': index.gsi1sk },
        // One more than the page tells whether another page follows.
        Limit: limit + 1,
      }),
    );
    const entries = (Items ?? []).map((item) => parseItem(SuppressionItem, item));
    return { entries: entries.slice(0, limit), more: entries.length > limit };
  }

  async get(workspaceId: number, id: number): Promise<Suppression | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: suppressionIdKey(workspaceId, id), ConsistentRead: true }));
    if (Item) {
      const { type, value } = parseItem(SuppressionIdItem, Item);
      const [entry] = await this.find(workspaceId, [{ type, value }]);
      return entry?.id === id ? entry : undefined;
    }
    // Entries added before 2026-11-27 have no id item: gsi1 finds them (they are long indexed).
    const index = suppressionsByWorkspace(workspaceId, id);
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: TABLE.gsi1.name,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
        ExpressionAttributeValues: { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
      }),
    );
    const [item] = Items ?? [];
    return item ? parseItem(SuppressionItem, item) : undefined;
  }

  async remove(entry: Suppression): Promise<boolean> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: suppressionKey(entry.workspaceId, entry.type, entry.value),
          ConditionExpression: 'id = :id',
          ExpressionAttributeValues: { ':id': entry.id },
        }),
      );
      // Left behind (a failure here), it names an entry that is gone: `get` finds nothing.
      await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: suppressionIdKey(entry.workspaceId, entry.id) })).catch(() => undefined);
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}
