import * as v from 'valibot';
import { bareObject, isPlainObject, jsonObject } from '../validation';

/**
 * A prospect's `custom_fields`: a JSON object the user owns, stored as a DynamoDB map and shown
 * back as sent. The rules (docs/lead-lists.md, "Custom fields") keep every accepted value
 * storable and every key a plain name.
 */
export const CUSTOM_FIELD_LIMITS = {
  /** Characters of one key, at any depth. */
  maxKeyLength: 100,
  /** Objects and arrays nested inside each other, custom_fields itself being level 1 (DynamoDB stops at 32). */
  maxDepth: 10,
  /** Characters of custom_fields as JSON: keeps a prospect item far below DynamoDB's 400 KB. */
  maxJsonLength: 10_000,
} as const;

/**
 * Keys that are no plain names: `__proto__` is dropped or turned into a prototype by every
 * ordinary object it is copied into (the DynamoDB document client's included); the DynamoDB
 * marshaller refuses an object whose `constructor` is not Object's; valibot's object and record
 * schemas drop all three without a word.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** DynamoDB numbers reach 1e-130 at the small end; past 2^53 JavaScript loses digits and the marshaller refuses them. */
const MIN_MAGNITUDE = 1e-130;

export const CUSTOM_FIELD_MESSAGES = {
  notObject: 'custom_fields must be an object',
  emptyKey: 'custom_fields keys must not be empty',
  longKey: `custom_fields keys must be at most ${CUSTOM_FIELD_LIMITS.maxKeyLength} characters`,
  controlKey: 'custom_fields keys must not contain control characters',
  reservedKey: (key: string) => `custom_fields key '${key}' is reserved`,
  tooDeep: `custom_fields must not nest deeper than ${CUSTOM_FIELD_LIMITS.maxDepth} levels`,
  number: `custom_fields numbers must be 0 or between ${MIN_MAGNITUDE} and ${Number.MAX_SAFE_INTEGER} in magnitude`,
  value: 'custom_fields values must be text, numbers, booleans, null, arrays or objects',
  tooLong: `custom_fields must be at most ${CUSTOM_FIELD_LIMITS.maxJsonLength} characters as JSON`,
} as const;

/** Why a key cannot name a custom field; undefined when it can. */
export function customFieldKeyProblem(key: string): string | undefined {
  if (key === '') return CUSTOM_FIELD_MESSAGES.emptyKey;
  if (key.length > CUSTOM_FIELD_LIMITS.maxKeyLength) return CUSTOM_FIELD_MESSAGES.longKey;
  if (CONTROL.test(key)) return CUSTOM_FIELD_MESSAGES.controlKey;
  if (RESERVED_KEYS.has(key)) return CUSTOM_FIELD_MESSAGES.reservedKey(key);
  return undefined;
}

const storableNumber = (value: number): boolean =>
  Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER && (value === 0 || Math.abs(value) >= MIN_MAGNITUDE);

/** The first problem of a value at `depth`; the walk never goes below maxDepth, however deep the input. */
function problemOf(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return storableNumber(value) ? undefined : CUSTOM_FIELD_MESSAGES.number;
  if (typeof value !== 'object') return CUSTOM_FIELD_MESSAGES.value;
  if (depth > CUSTOM_FIELD_LIMITS.maxDepth) return CUSTOM_FIELD_MESSAGES.tooDeep;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = problemOf(item, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const problem = customFieldKeyProblem(key) ?? problemOf(item, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

function customFieldsProblem(fields: unknown): string | undefined {
  const problem = problemOf(fields, 1);
  if (problem) return problem;
  return JSON.stringify(fields).length > CUSTOM_FIELD_LIMITS.maxJsonLength ? CUSTOM_FIELD_MESSAGES.tooLong : undefined;
}

/** A copy whose objects have no prototype, so no key can reach one while it is merged or stored. */
function bareCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(bareCopy);
  if (!isPlainObject(value)) return value;
  const copy = bareObject();
  for (const [key, item] of Object.entries(value)) copy[key] = bareCopy(item);
  return copy;
}

/**
 * `custom_fields` of an import row: an object whose keys (at any depth) are 1–100 characters
 * without control characters and not `__proto__`, `constructor` or `prototype`; values are JSON
 * values with storable numbers, nested at most 10 levels; at most 10,000 characters as JSON.
 * The output is a prototype-less copy, or undefined when the object is empty.
 */
export const CustomFields = v.pipe(
  jsonObject(CUSTOM_FIELD_MESSAGES.notObject),
  v.description('Your own fields of the lead, shown back as sent.'),
  // One check: the size is measured only once the depth is known to be small.
  v.check(
    (fields) => customFieldsProblem(fields) === undefined,
    (issue) => customFieldsProblem(issue.input) ?? CUSTOM_FIELD_MESSAGES.notObject,
  ),
  v.transform((fields) => (Object.keys(fields).length > 0 ? (bareCopy(fields) as Record<string, unknown>) : undefined)),
);

/** A lead's custom fields after an import row's were merged into the stored ones (the row's win). */
export function mergeCustomFields(stored: Record<string, unknown> | undefined, incoming: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(bareObject(), stored, incoming);
}
