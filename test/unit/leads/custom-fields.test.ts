import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CustomFields, customFieldKeyProblem, mergeCustomFields } from '../../../shared/domain/leads/custom-fields';

/** custom_fields nested `levels` deep, custom_fields itself being level 1. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 'leaf' };
  for (let level = 1; level < levels; level += 1) value = { a: value };
  return value;
}
const nestedArrays = (levels: number): unknown => (levels === 1 ? ['leaf'] : [nestedArrays(levels - 1)]);

const firstMessage = (input: unknown) => {
  const result = v.safeParse(CustomFields, input, { abortEarly: true });
  return result.success ? undefined : result.issues[0].message;
};

const NUMBER = 'custom_fields numbers must be 0 or between 1e-130 and 9007199254740991 in magnitude';
const DEEP = 'custom_fields must not nest deeper than 10 levels';

describe('CustomFields', () => {
  it.each([
    [['x'], 'custom_fields must be an object'],
    ['x', 'custom_fields must be an object'],
    [{ '': 1 }, 'custom_fields keys must not be empty'],
    [{ ok: { '': 1 } }, 'custom_fields keys must not be empty'],
    [JSON.parse('{"__proto__":{"polluted":true}}'), "custom_fields key '__proto__' is reserved"],
    [JSON.parse('{"list":[{"__proto__":1}]}'), "custom_fields key '__proto__' is reserved"],
    [{ constructor: 'x' }, "custom_fields key 'constructor' is reserved"],
    [{ a: { prototype: 1 } }, "custom_fields key 'prototype' is reserved"],
    [{ ['k'.repeat(101)]: 1 }, 'custom_fields keys must be at most 100 characters'],
    [{ 'line\nbreak': 1 }, 'custom_fields keys must not contain control characters'],
    [{ 'del\u007f': 1 }, 'custom_fields keys must not contain control characters'],
    [nested(11), DEEP],
    [nested(31), DEEP],
    [{ a: nestedArrays(10) }, DEEP],
    [{ n: 2 ** 53 }, NUMBER],
    [{ n: -(2 ** 53) }, NUMBER],
    [{ n: 1e-131 }, NUMBER],
    [{ n: [1, 1e300] }, NUMBER],
    [{ n: Number.NaN }, NUMBER],
    [{ f: () => 1 }, 'custom_fields values must be text, numbers, booleans, null, arrays or objects'],
    [{ a: 'x'.repeat(9_993) }, 'custom_fields must be at most 10000 characters as JSON'],
  ])('refuses %#: %s', (input, message) => {
    expect(firstMessage(input)).toBe(message);
  });

  it('stops at the depth limit however deep the input goes, also when every issue is collected', () => {
    expect(firstMessage(nested(100_000))).toBe(DEEP);
    const all = v.safeParse(CustomFields, nested(100_000));
    expect(all.success ? [] : all.issues.map((issue) => issue.message)).toEqual([DEEP]);
  });

  it('accepts the limits themselves and keeps values as sent', () => {
    const accepted = [
      nested(10),
      { a: nestedArrays(9) },
      { ['k'.repeat(100)]: 1 },
      { max: 9007199254740991, min: -9007199254740991, small: 1e-130, zero: 0, fraction: 0.1 },
      { a: 'x'.repeat(9_992) },
      { 'Plan (2024)': 'gold', 'ünïcode ключ': true, nothing: null, list: [1, 'two', { three: 3 }] },
      { Constructor: 'x', __proto: 'y', proto__: 'z' },
    ];
    for (const input of accepted) expect(v.parse(CustomFields, input)).toEqual(input);
  });

  it('gives an empty object as no custom fields', () => {
    expect(v.parse(CustomFields, {})).toBeUndefined();
  });

  it('names what makes a key unusable', () => {
    expect(customFieldKeyProblem('plan')).toBeUndefined();
    expect(customFieldKeyProblem('constructor')).toBe("custom_fields key 'constructor' is reserved");
    expect(customFieldKeyProblem('')).toBe('custom_fields keys must not be empty');
  });
});

describe('mergeCustomFields', () => {
  it('lets the row’s fields win, keeps the others, and builds an object without a prototype', () => {
    const merged = mergeCustomFields({ a: 1, b: 1 }, { b: 2, c: 3 });
    expect(merged).toEqual({ a: 1, b: 2, c: 3 });
    expect(Object.keys(merged)).toEqual(['a', 'b', 'c']);
    expect(Object.getPrototypeOf(merged)).toBeNull();
    expect(mergeCustomFields(undefined, { c: 3 })).toEqual({ c: 3 });
  });
});
