/**
 * What one answer may hold of listed items. An answer reaches API Gateway through Lambda, whose
 * limit is 6 MB of the function's result: the JSON body, escaped once more as a string in it. The
 * pages and lists that can hold large items (moved prospects, a campaign's prospects, a
 * conversation's messages) stop before this many bytes of them, and say where to go on; the rest
 * of the answer stays far below the remaining 1.2 MB.
 */
export const MAX_ANSWER_VIEW_BYTES = 5_000_000;

/** What a value adds to a function's result: its JSON, escaped once more as a string. */
export const resultBytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(JSON.stringify(value)), 'utf8');
