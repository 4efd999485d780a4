/**
 * How the api-keys function calls API Gateway's key management, and the timeout that follows.
 * CreateApiKey and DeleteApiKey are limited to 5 calls per second per account and region, shared
 * by every caller (docs/operations.md, "Scaling limits"), so a burst of key creation meets
 * TooManyRequestsException: each call is retried with backoff, within a bound the function's
 * timeout leaves room for, so a key created on API Gateway is always either stored or deleted
 * before the function can time out.
 */
export interface KeyCallRetry {
  /** Attempts of one call, the first included. */
  readonly attempts: number;
  /** Before attempt n+2 the call waits between half of `backoffCeilingsMs[n]` and all of it (random). */
  readonly backoffCeilingsMs: readonly number[];
  /** Bound on one attempt: connecting, sending and the answer (the attempt is aborted past it). */
  readonly attemptTimeoutMs: number;
}

export const KEY_CALL_RETRY: KeyCallRetry = { attempts: 4, backoffCeilingsMs: [250, 500, 1_000], attemptTimeoutMs: 1_500 };

/** The longest one key call can take: every attempt running to its bound, every wait at its ceiling (7.75 s). */
export const longestKeyCallMs = (retry: KeyCallRetry = KEY_CALL_RETRY): number =>
  retry.attempts * retry.attemptTimeoutMs + retry.backoffCeilingsMs.slice(0, retry.attempts - 1).reduce((sum, ms) => sum + ms, 0);

/**
 * Key calls one request makes at most, one after another: creating a key makes the gateway key,
 * attaches it to the usage plan and, if either that or storing the key fails, deletes it again;
 * rotating makes and attaches the new one, then deletes the old one (or the new one).
 */
export const KEY_CALLS_PER_REQUEST = 3;

/** The table's share of a request (a count, an id, one transaction): a few milliseconds each, bounded generously. */
export const KEY_REQUEST_TABLE_BUDGET_MS = 2_000;

/**
 * The api-keys function's timeout: 3 × 7.75 s + 2 s = 25.25 s, rounded up, plus a second for the
 * answer: 27 s, within API Gateway's 29 s integration timeout.
 */
export const API_KEYS_TIMEOUT_SECONDS = Math.ceil((KEY_CALLS_PER_REQUEST * longestKeyCallMs() + KEY_REQUEST_TABLE_BUDGET_MS) / 1_000) + 1;
