import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { MalformedItemError, idSet, intAttribute, itemSchema, nullableString, parseItem } from '../../../shared/db/item-schema';

const Thing = itemSchema(
  'Thing',
  v.object({
    name: v.string(),
    count: intAttribute,
    kind: v.picklist(['A', 'B']),
    ids: idSet,
    note: nullableString,
  }),
);

const KEY = { pk: 'THING#0000000000000012', sk: 'THING' };

/** The error parseItem throws for `item`, or a failure when it throws none. */
function malformed(item: Record<string, unknown>, key?: { pk: string; sk: string }): MalformedItemError {
  try {
    parseItem(Thing, item, key);
  } catch (error) {
    if (error instanceof MalformedItemError) return error;
    throw error;
  }
  throw new Error('expected a MalformedItemError');
}

describe('parseItem', () => {
  it('maps a valid item to exactly the schema’s output, dropping keys and attributes it does not read', () => {
    const item = { ...KEY, entityType: 'Thing', name: 'n', count: 3, kind: 'B', ids: new Set([30, 4]), note: null, extra: 'x' };
    expect(parseItem(Thing, item)).toEqual({ name: 'n', count: 3, kind: 'B', ids: [4, 30], note: null });
  });

  it('reads an absent number set as empty and an absent nullable attribute as null', () => {
    expect(parseItem(Thing, { ...KEY, name: 'n', count: 0, kind: 'A' })).toEqual({ name: 'n', count: 0, kind: 'A', ids: [], note: null });
  });

  it('throws a MalformedItemError naming the item type, its key and the first bad attribute', () => {
    const error = malformed({ ...KEY, entityType: 'Thing', name: 42, count: 'three', kind: 'A' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('MalformedItemError');
    expect(error.message).toBe('Malformed Thing item (pk=THING#0000000000000012, sk=THING): name: expected string');
    expect(error.itemType).toBe('Thing');
    expect(error.key).toEqual({ ...KEY, entityType: 'Thing' });
    expect(error.attribute).toBe('name');
  });

  it('says what each kind of attribute expected', () => {
    const valid = { ...KEY, name: 'n', count: 1, kind: 'A' };
    expect(malformed({ ...KEY, count: 1, kind: 'A' }).message).toBe('Malformed Thing item (pk=THING#0000000000000012, sk=THING): name: missing');
    expect(malformed({ ...valid, count: 1.5 }).message).toBe('Malformed Thing item (pk=THING#0000000000000012, sk=THING): count: expected integer');
    expect(malformed({ ...valid, kind: 'C' }).message).toBe('Malformed Thing item (pk=THING#0000000000000012, sk=THING): kind: expected ("A" | "B")');
    expect(malformed({ ...valid, ids: new Set(['7']) }).message).toBe('Malformed Thing item (pk=THING#0000000000000012, sk=THING): ids[]: expected number');
    expect(malformed({ ...valid, ids: [7] }).message).toBe('Malformed Thing item (pk=THING#0000000000000012, sk=THING): ids: expected Set');
    expect(malformed({ ...valid, note: 5 }).message).toBe('Malformed Thing item (pk=THING#0000000000000012, sk=THING): note: expected string');
  });

  it('names the entityType when the item is of another type than the one read', () => {
    expect(malformed({ ...KEY, entityType: 'Other', count: 1, kind: 'A' }).message).toBe(
      'Malformed Thing item (pk=THING#0000000000000012, sk=THING, entityType=Other): name: missing',
    );
  });

  it('takes the key from the caller when a projection left it out, and never quotes the stored value', () => {
    const error = malformed({ name: 'alice@example.com', count: 'secret-ish', kind: 'A' }, KEY);
    expect(error.message).toBe('Malformed Thing item (pk=THING#0000000000000012, sk=THING): count: expected number');
    expect(error.message).not.toContain('secret-ish');
    expect(malformed({ name: 'n', count: 1, kind: 'Z' }).message).toBe('Malformed Thing item (pk=?, sk=?): kind: expected ("A" | "B")');
  });
});
