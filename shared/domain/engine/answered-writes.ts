import { setTimeout as pause } from 'node:timers/promises';

/**
 * Waits before the 2nd and 3rd try of the outcome record of a send the provider has answered. The
 * SDK has already retried each try; these outlast a table's few-second hiccup.
 */
export const OUTCOME_RETRY_BACKOFF_MS: readonly number[] = [250, 1_000];

/**
 * Runs `write` again after each wait of `backoffMs` while it fails, then lets its last error go.
 * For the outcome record of an answered send: once stored, a crash after it is settled from it
 * (SENT, SKIPPED, FAILED); without it the crash rule can only call an email UNCERTAIN, though the
 * provider's answer was known (docs/engine.md, "Exactly once, and the crash rule"). The record is
 * a conditional put (with its counters, in one transaction), so a repeat records it once.
 */
export async function tryAgainOnFailure<T>(write: () => Promise<T>, backoffMs: readonly number[], wait: (ms: number) => Promise<unknown> = pause): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      const delay = backoffMs[attempt];
      if (delay === undefined) throw error;
      await wait(delay);
    }
  }
}
