import * as v from 'valibot';

/**
 * Reading stored items through a schema per item type. An item that does not have the shape its
 * type needs (a bad migration, a hand edit, a bug in a writer) must fail loudly, naming the item,
 * instead of turning into a plausible but wrong response. Nothing catches the error: the HTTP
 * layer answers a bare 500 and logs it.
 */

/** An item type's name (as in the error message) and the schema mapping it to its domain object. */
export interface ItemSchema<TOutput> {
  readonly itemType: string;
  readonly schema: v.GenericSchema<unknown, TOutput>;
}

export const itemSchema = <TOutput>(itemType: string, schema: v.GenericSchema<unknown, TOutput>): ItemSchema<TOutput> => ({
  itemType,
  schema,
});

/** Where an item lives; reads that project attributes away pass it explicitly. */
export interface ItemKey {
  pk?: unknown;
  sk?: unknown;
}

/** A stored item that does not match its schema. Its message names the item and the first bad attribute. */
export class MalformedItemError extends Error {
  constructor(
    readonly itemType: string,
    readonly key: { pk: string; sk: string; entityType?: string },
    readonly attribute: string,
    readonly problem: string,
  ) {
    // entityType only when it says something the type name does not (an item of another type).
    const entityType = key.entityType !== undefined && key.entityType !== itemType ? `, entityType=${key.entityType}` : '';
    super(`Malformed ${itemType} item (pk=${key.pk}, sk=${key.sk}${entityType}): ${attribute}: ${problem}`);
    this.name = 'MalformedItemError';
  }
}

const keyPart = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '?');

/** `a.b`, `listIds[]` for a set element; `(item)` when the item itself is not an object. */
function attributePath(issue: v.BaseIssue<unknown>): string {
  let path = '';
  for (const segment of issue.path ?? []) {
    const key = (segment as { key: unknown }).key;
    path += typeof key === 'string' || typeof key === 'number' ? `${path ? '.' : ''}${key}` : '[]';
  }
  return path || '(item)';
}

/**
 * The domain object an item stands for, or a MalformedItemError. The problem text says what was
 * expected, never the stored value (items hold emails, names and secret hashes that logs must not).
 */
export function parseItem<TOutput>(definition: ItemSchema<TOutput>, item: Record<string, unknown>, key?: ItemKey): TOutput {
  const result = v.safeParse(definition.schema, item, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const entityType = typeof item.entityType === 'string' ? item.entityType : undefined;
  throw new MalformedItemError(
    definition.itemType,
    { pk: keyPart(key?.pk ?? item.pk), sk: keyPart(key?.sk ?? item.sk), ...(entityType === undefined ? {} : { entityType }) },
    attributePath(issue),
    // DynamoDB never returns an undefined attribute: undefined is one the item lacks.
    issue.received === 'undefined' ? 'missing' : `expected ${issue.expected ?? issue.type}`,
  );
}

// Attribute schemas the item schemas share.

/** Ids, versions and counters: written as numbers, always whole. */
export const intAttribute = v.pipe(v.number(), v.integer());

/**
 * Every value of a domain union, for a picklist: listing them as keys of a `Record<T, true>`
 * makes a value added to the union a type error here, instead of a stored item that reads as
 * malformed (a 500).
 */
export const everyValueOf = <T extends string>(values: Record<T, true>): T[] => Object.keys(values) as T[];

/** An attribute written as a string or null, or not written at all: null when not a string. */
export const nullableString = v.optional(v.nullable(v.string()), null);

/** A number set (DynamoDB does not store empty sets, so absent means empty), as ascending numbers. */
export const idSet = v.pipe(
  v.optional(v.set(intAttribute), () => new Set<number>()),
  v.transform((ids) => [...ids].sort((a, b) => a - b)),
);
