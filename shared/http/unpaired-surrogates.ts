/**
 * JSON may spell a lone UTF-16 surrogate (`"\ud800"`), which is no Unicode text: it has no UTF-8
 * form, and an answer that echoes it is refused whole by strict parsers (jq, Python's encoder), so
 * one such campaign name made every list of its workspace unreadable to them (a probe,
 * 2026-11-28). The spec's bodies are UTF-8 JSON: the API refuses such a body (400), and the
 * provider's webhooks, which must never be refused for their text, get U+FFFD in its place.
 */

/** With the `u` flag a surrogate pair is one code point; only an unpaired surrogate is `Cs`. */
const UNPAIRED = /\p{Cs}/u;
const UNPAIRED_ALL = /\p{Cs}/gu;

export const UNPAIRED_SURROGATE_MESSAGE = 'Request body must be valid UTF-8 JSON: a string holds an unpaired surrogate (\\ud800-\\udfff)';

/** Whether any string of a parsed JSON value, or any key of its objects, holds an unpaired surrogate. */
export function holdsUnpairedSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return UNPAIRED.test(value);
  if (Array.isArray(value)) return value.some(holdsUnpairedSurrogate);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([key, item]) => UNPAIRED.test(key) || holdsUnpairedSurrogate(item));
  }
  return false;
}

/** The value with every unpaired surrogate of its strings and keys replaced by U+FFFD. */
export function replaceUnpairedSurrogates<T>(value: T): T {
  if (typeof value === 'string') return value.replace(UNPAIRED_ALL, '\uFFFD') as T;
  if (Array.isArray(value)) return value.map(replaceUnpairedSurrogates) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key.replace(UNPAIRED_ALL, '\uFFFD'), replaceUnpairedSurrogates(item)])) as T;
  }
  return value;
}
