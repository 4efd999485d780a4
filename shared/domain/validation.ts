import * as v from 'valibot';
import { validationError } from './errors';

/**
 * Helpers shared by the lead schemas. Every schema and action of those schemas carries its
 * documented message, so the first issue's message is the answer as it stands.
 */

/**
 * A JSON object that is not an array. valibot's object and record schemas take arrays too, and
 * record drops the keys `__proto__`, `constructor` and `prototype` without a word, so request
 * data whose keys matter is checked with this instead.
 */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON object as it was sent (every own key kept); `message` for anything else. */
export function jsonObject<T extends Record<string, unknown> = Record<string, unknown>>(message: string) {
  return v.pipe(v.custom<T>(isPlainObject, message), v.metadata({ type: 'object' }));
}

/** An object without a prototype, so that no key (`__proto__`, `constructor`) means anything but itself. */
export const bareObject = <T = unknown>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** The own entries of `source` whose value is defined, in a prototype-less object. */
export function ownDefined(source: object): Record<string, unknown> {
  const copy = bareObject();
  for (const [key, value] of Object.entries(source)) if (value !== undefined) copy[key] = value;
  return copy;
}

/**
 * The first problem of an object's keys in the order the caller sent them: a key with no schema
 * (`unknownMessage`), or the first issue of a key's own schema; undefined when there is none.
 * valibot's object schemas check their known keys in their own order and unknown keys last; this
 * keeps the answer to a request with several problems the one the service has always given.
 * `skip` names keys checked elsewhere.
 */
export function firstProblemInInputOrder(
  input: object,
  schemas: ReadonlyMap<string, v.GenericSchema>,
  unknownMessage: (key: string) => string,
  skip: ReadonlySet<string> = new Set(),
): string | undefined {
  for (const [key, value] of Object.entries(input)) {
    if (skip.has(key)) continue;
    const schema = schemas.get(key);
    if (!schema) return unknownMessage(key);
    const result = v.safeParse(schema, value, { abortEarly: true });
    if (!result.success) return result.issues[0].message;
  }
  return undefined;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** Runs a schema and stops at the first issue. */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown): Checked<v.InferOutput<S>> {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return { ok: true, value: result.output };
  return { ok: false, message: result.issues[0].message };
}

/** The schema's output, or a validation error (a 400) with the first issue's message. */
export function parseOrThrow<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = validate(schema, input);
  if (!result.ok) throw validationError(result.message);
  return result.value;
}

/**
 * An id list: a JSON array of positive integers. Numeric strings and a comma-separated string
 * (as some no-code tools send) are accepted too. Undefined when absent.
 */
export function idList(value: unknown, field: string): number[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = typeof value === 'string' ? value.split(',').map((part) => part.trim()).filter((part) => part !== '') : value;
  if (!Array.isArray(items)) throw validationError(`${field} must be an array of integer ids`);
  return items.map((item) => {
    const id = typeof item === 'string' && /^\d{1,16}$/.test(item.trim()) ? Number(item.trim()) : item;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) throw validationError(`${field} must be an array of integer ids`);
    return id;
  });
}

/**
 * A typed name without the control characters nobody means in one (a pasted NUL or bell breaks CSV
 * exports and terminals); tabs and line breaks become spaces. It goes after the JSON Schema's checks
 * (the OpenAPI document stops at a transformation) and before the empty check again; it trims the
 * ends as it goes (white space and invisible characters, `trimInvisible`), so a name of nothing else
 * is empty. Before 2026-11-28 names kept them (api.md, "Names").
 */
export const withoutControls = v.transform((text: string) => stripControls(text));

/**
 * The first `max` UTF-16 units of `text`, one fewer where the cut would fall inside a surrogate
 * pair (an emoji), whose half is no Unicode text and makes strict JSON readers refuse the answer.
 */
export function firstUnits(text: string, max: number): string {
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * The text with each unpaired UTF-16 surrogate (no Unicode text: strict JSON readers refuse an
 * answer that echoes one) made U+FFFD, as the provider's text is taken wherever it comes in.
 */
export const wellFormed = (text: string): string => text.replace(/\p{Cs}/gu, '\uFFFD');

/**
 * Invisible format characters (a zero-width space, a direction mark, a BOM) and white space at
 * either end of a text: nothing a reader sees, so a name of nothing else is empty. Inside a text
 * they stay (a joiner in an emoji, a mark in right-to-left text). Before 2026-11-29 a name of a
 * zero-width space alone was taken (a probe).
 */
export const trimInvisible = (text: string): string => text.replace(/^[\s\p{Cf}]+|[\s\p{Cf}]+$/gu, '');

/** `withoutControls` on a plain string (a name the provider gives, not a request's), trimmed of invisible ends. */
export function stripControls(text: string): string {
  return trimInvisible(text.replace(/[\t\n\r]+/g, ' ').replace(/\p{Cc}/gu, ''));
}

/**
 * A required name: a string (`notString`, else the type's default text, which a null also gets as
 * `<field> is required`), trimmed, not empty (`empty`), at most `max` characters (`tooLong`), and
 * `withoutControls`.
 */
export function typedName(max: number, messages: { empty: string; tooLong: string; notString?: string }) {
  return v.pipe(
    messages.notString === undefined ? v.string() : v.string(messages.notString),
    v.trim(),
    v.nonEmpty(messages.empty),
    v.maxLength(max, messages.tooLong),
    withoutControls,
    v.nonEmpty(messages.empty),
  );
}

/**
 * An object schema that answers a field it does not know with a 400 naming it. Strict, not loose
 * plus a check of the output: a loose object leaves `__proto__`, `constructor` and `prototype` out of
 * what it outputs, so a check after it never saw them and let them pass unnamed.
 */
export function closed<const Entries extends v.ObjectEntries>(entries: Entries, unknownField: (field: string, fields: string[]) => string) {
  const fields = Object.keys(entries);
  // Other issues of the object itself (not an object, a required key missing) keep valibot's
  // "Invalid ..." form, which describeIssue turns into "<field> is required" and the like.
  return v.strictObject(entries, (issue) => (issue.expected === 'never' ? unknownField(String(issue.input), fields) : `Invalid ${issue.kind}`));
}

/** `closed`'s answer to a field it does not know, for the body named `body` ("a lead list"). */
export const unknownFieldOf = (body: string) => (field: string, fields: string[]) => `${field} is not a field of ${body} (fields: ${fields.join(', ')})`;

/**
 * A body field taken as sent, so that its reader can answer the contract's own 400 text (the
 * schema itself accepts anything). `documented` is the JSON Schema of what the reader accepts:
 * the OpenAPI document shows it, so the document stays as strict as the reader.
 */
export const readLater = (documented: Record<string, unknown>, description: string) =>
  v.optional(v.pipe(v.unknown(), v.metadata(documented), v.description(description)));

/**
 * The JSON Schema keywords of an object that its reader checks itself (`required` when every field
 * is optional in the schema so that a missing one gets the contract's text), for the OpenAPI document.
 */
export const documentedAs = <S extends v.GenericSchema>(schema: S, documented: Record<string, unknown>) => v.pipe(schema, v.metadata(documented));
