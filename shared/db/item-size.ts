import { GLOBAL_INDEXES, LOCAL_INDEXES } from './table-schema';

/**
 * DynamoDB's size of an item as the document client would write it: attribute names plus values
 * (strings and binaries by their bytes, numbers by about one byte per two digits plus one, sets and
 * lists by their elements, maps and lists with 3 bytes of their own and 1 per element). Used to
 * compute the write cost of what DynamoDB Local under-reports (transactions).
 */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace(/[.-]/g, '').replace(/^0+/, '').length / 2) + 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value as Record<string, unknown>).reduce((sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + valueSize(element), 0);
  }
  return 0;
}

/** The attribute that puts an item in each index: a global index's partition key, a local index's sort key. */
const GLOBAL_INDEX_KEYS = GLOBAL_INDEXES.map((index) => index.partitionKey);
const LOCAL_INDEX_KEYS = LOCAL_INDEXES.map((index) => index.sortKey);

/** How many copies of an item DynamoDB writes when it is new: the table's and one per index it has keys for. */
export const itemCopies = (item: Record<string, unknown>): number => 1 + [...GLOBAL_INDEX_KEYS, ...LOCAL_INDEX_KEYS].filter((key) => item[key] !== undefined).length;

/**
 * Write units of putting an item, outside a transaction: 1 per KB (rounded up) on the table and on
 * each global index it has keys for (they project ALL), and 1 per local index it has keys for
 * (they hold keys only, under 1 KB: shared/db/table-schema.ts). An upper bound for a Put that
 * replaces an item without moving its LSI keys, which DynamoDB bills on the table alone there.
 */
export const putUnits = (item: Record<string, unknown>): number =>
  Math.max(1, Math.ceil(itemSize(item) / 1024)) * (1 + GLOBAL_INDEX_KEYS.filter((key) => item[key] !== undefined).length) +
  LOCAL_INDEX_KEYS.filter((key) => item[key] !== undefined).length;
