import { randomUUID } from 'node:crypto';
import { conflict } from './errors';
import type { Clock } from './ports';

/** Leases that make requests on one thing take turns (shared/db/request-leases.ts). */
export interface RequestLeases {
  /** Takes the lease named `name` for `holder` until `term().until`, trying `attempts` times (with a short wait between); false when still held. */
  take(name: string, holder: string, term: () => { now: string; until: string }, attempts: number): Promise<boolean>;
  /** Gives it back (unless it expired and another holder took it). */
  release(name: string, holder: string): Promise<void>;
}

export interface LeaseRules {
  /** How long a lease holds: longer than the work may run, so it only runs out for a holder that crashed. */
  termMs: number;
  /** Tries at a lease another request holds before answering 409 `busy`. */
  attempts: number;
  busy: string;
}

/**
 * Runs `work` while holding the lease `name` (409 `rules.busy` when it stays taken), and gives it
 * back after. A release that fails leaves the lease to lapse at its term: the work is done (or its
 * own error is the answer), so it must not turn a change that was made into a 500 the client would
 * send again.
 */
export async function whileHolding<T>(leases: RequestLeases, clock: Clock, name: string, rules: LeaseRules, work: () => Promise<T>): Promise<T> {
  const holder = randomUUID();
  const term = () => {
    const now = clock.now();
    return { now: now.toISOString(), until: new Date(now.getTime() + rules.termMs).toISOString() };
  };
  if (!(await leases.take(name, holder, term, rules.attempts))) throw conflict(rules.busy);
  try {
    return await work();
  } finally {
    await leases.release(name, holder).catch(() => undefined);
  }
}
