import { wellFormed } from '../domain/validation';

/**
 * JSON may spell a lone UTF-16 surrogate (`"\ud800"`), which is no Unicode text: it has no UTF-8
 * form, and an answer that echoes it is refused whole by strict parsers (jq, Python's encoder), so
 * one such campaign name made every list of its workspace unreadable to them (a probe,
 * 2026-11-28). The spec's bodies are UTF-8 JSON: the API refuses such a body (400), and the
 * provider's webhooks, which must never be refused for their text, get U+FFFD in its place.
 */

/** With the `u` flag a surrogate pair is one code point; only an unpaired surrogate is `Cs`. */
const UNPAIRED = /\p{Cs}/u;

export const UNPAIRED_SURROGATE_MESSAGE = 'Request body must be valid UTF-8 JSON: a string holds an unpaired surrogate (\\ud800-\\udfff)';

/**
 * Whether a raw body may spell a surrogate at all: a `\uD800`–`\uDFFF` escape, or a surrogate code
 * unit (an emoji's half). Most bodies hold neither, and their parsed value need not be walked.
 */
export const maySpellSurrogates = (raw: string): boolean => /\\u[dD][89a-fA-F]|[\uD800-\uDFFF]/.test(raw);

/**
 * Whether any string of a parsed JSON value, or any key of its objects, holds an unpaired
 * surrogate. A loop over a stack, not recursion: JSON.parse takes bodies thousands of levels deep,
 * and a recursive walk ran out of call stack on them (a 500, found by a probe the same day).
 */
export function holdsUnpairedSurrogate(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (UNPAIRED.test(next)) return true;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (next !== null && typeof next === 'object') {
      for (const [key, item] of Object.entries(next)) {
        if (UNPAIRED.test(key)) return true;
        pending.push(item);
      }
    }
  }
  return false;
}

/**
 * The value with every unpaired surrogate of its strings and keys replaced by U+FFFD: a freshly
 * parsed body, changed in place, in a loop (as above). A renamed key moves to the end of its object.
 */
export function replaceUnpairedSurrogates<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const container = pending.pop();
    if (Array.isArray(container)) {
      container.forEach((item, index) => {
        if (typeof item === 'string') container[index] = wellFormed(item);
        else if (item !== null && typeof item === 'object') pending.push(item);
      });
    } else if (container !== null && typeof container === 'object') {
      const record = container as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const item = record[key];
        const fixed = typeof item === 'string' ? wellFormed(item) : item;
        if (item !== null && typeof item === 'object') pending.push(item);
        const fixedKey = wellFormed(key);
        if (fixedKey !== key) {
          delete record[key];
          Object.defineProperty(record, fixedKey, { value: fixed, enumerable: true, writable: true, configurable: true });
        } else if (fixed !== item) record[key] = fixed;
      }
    }
  }
  return value;
}
