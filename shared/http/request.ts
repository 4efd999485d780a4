import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as v from 'valibot';
import { notFound, validationError } from '../domain/errors';

/** Header lookup regardless of case: API Gateway does not promise how it cases names. */
export function header(headers: Record<string, string | undefined> | null | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

/**
 * A cookie's value from the Cookie header. A value whose percent-escapes do not decode is taken as
 * written: it then fails as any wrong credential does (a URIError here made the authorizer fail,
 * a 500, before 2026-11-29: fuzzing probe).
 */
export function cookie(headers: Record<string, string | undefined> | null | undefined, name: string): string | undefined {
  const raw = header(headers, 'cookie');
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  integer: 'an integer',
};

/**
 * One readable sentence for a validation issue: a custom schema message as written, otherwise
 * "<field> is required" (absent or null) / "<field> must be a string" / "<field>: <valibot message>".
 */
export function describeIssue(issue: v.BaseIssue<unknown>, required = false): string {
  const path = v.getDotPath(issue);
  // A required field left out or given null is missing, whatever its schema's own type message says.
  if (path && required && issue.kind === 'schema' && (issue.input === undefined || issue.input === null)) return `${path} is required`;
  if (!issue.message.startsWith('Invalid ')) return issue.message;
  if (!path) return issue.kind === 'schema' ? `Request body must be ${TYPE_NAMES[(issue.expected ?? '').toLowerCase()] ?? 'valid'}` : issue.message;
  // A JSON null names no value: a required field given null is missing, like one left out (an
  // optional one given null has the wrong type: it may be left out, not set to null).
  if (issue.kind === 'schema' && (issue.input === undefined || (issue.input === null && required))) return `${path} is required`;
  if (issue.kind === 'schema') return `${path} must be ${TYPE_NAMES[(issue.expected ?? '').toLowerCase()] ?? issue.expected}`;
  return `${path}: ${issue.message}`;
}

/** Schema types that let a field be left out. */
const OPTIONAL_TYPES = new Set(['optional', 'nullish', 'exact_optional', 'undefinedable']);

/**
 * Whether the field an issue is about must be given: the object schemas along its path are walked
 * to its entry, which is not wrapped in `optional` (or the like). Unknown: not required.
 */
function isRequiredField(schema: v.GenericSchema, issue: v.BaseIssue<unknown>): boolean {
  let current: unknown = schema;
  for (const item of issue.path ?? []) {
    const unwrapped = current as { type?: string; wrapped?: unknown; entries?: Record<string, unknown> };
    const node = (unwrapped.type && OPTIONAL_TYPES.has(unwrapped.type) ? unwrapped.wrapped : unwrapped) as { entries?: Record<string, unknown> };
    const key = (item as { key?: unknown }).key;
    if (!node?.entries || typeof key !== 'string' || !Object.hasOwn(node.entries, key)) return false;
    current = node.entries[key];
  }
  const type = (current as { type?: string }).type;
  return type !== undefined && !OPTIONAL_TYPES.has(type);
}

/** A key that a closed object does not know (`closed` in validation.ts names it in its message). */
const isUnknownKey = (issue: v.BaseIssue<unknown>): boolean => issue.type === 'strict_object' && issue.expected === 'never';

/**
 * Validates a value against a schema; an issue becomes a 400 with a clear `error`: a field the
 * body should not have first (a misspelt `stauts` is named, not answered with `status is required`),
 * else the first issue in the schema's order.
 */
export function parseWith<TSchema extends v.GenericSchema>(schema: TSchema, input: unknown): v.InferOutput<TSchema>;
export function parseWith(schema: v.GenericSchema | undefined, input: unknown): unknown;
export function parseWith(schema: v.GenericSchema | undefined, input: unknown): unknown {
  if (!schema) return input;
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (!result.success) {
    let [first] = result.issues;
    // Unknown keys are checked after the known ones: look for one past the first issue only on failure.
    if (first && !isUnknownKey(first)) {
      const unknownKey = v.safeParse(schema, input).issues?.find(isUnknownKey);
      if (unknownKey) first = unknownKey;
    }
    throw validationError(first ? describeIssue(first, isRequiredField(schema, first)) : 'Invalid request');
  }
  return result.output;
}

/** The JSON body (already parsed by the body parser), validated. A missing body is treated as `{}`. */
export function parseBody<TSchema extends v.GenericSchema>(schema: TSchema | undefined, event: APIGatewayProxyEvent): v.InferOutput<TSchema> {
  const body: unknown = event.body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationError('Request body must be a JSON object');
  return parseWith(schema, body) as v.InferOutput<TSchema>;
}

/**
 * Path parameters, validated. A parameter that fails its schema cannot name a resource of this
 * route, so the answer is a 404 carrying the schema's message (e.g. "Lead list not found").
 */
export function parsePath(schema: v.GenericSchema | undefined, parameters: Record<string, string | undefined> | null): unknown {
  const input = Object.assign(Object.create(null), parameters);
  if (!schema) return input;
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (!result.success) throw notFound(result.issues[0]?.message ?? 'Not found');
  return result.output;
}
