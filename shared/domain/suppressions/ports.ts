import type { Suppression, SuppressionType } from './suppression';

/** The workspace suppression list over the table (shared/db/suppression-repository.ts). */
export interface SuppressionStore {
  /**
   * The entries of these values (one BatchGetItem of at most 100 keys; order not kept). Strongly
   * consistent unless `consistent: false` (the send-time check, see SuppressionService.check).
   */
  find(workspaceId: number, values: readonly { type: SuppressionType; value: string }[], options?: { consistent?: boolean }): Promise<Suppression[]>;
  /**
   * Writes each entry (all of one workspace) unless its value is on the list already (conditional
   * Puts, many a call); returns the entries not written because their value was.
   */
  putMany(entries: readonly Suppression[]): Promise<Suppression[]>;
  /** A page of the workspace's entries in id order, after `afterId`; `more` when another page follows. */
  page(workspaceId: number, afterId: number | undefined, limit: number): Promise<{ entries: Suppression[]; more: boolean }>;
  /** The workspace's entry with this id. */
  get(workspaceId: number, id: number): Promise<Suppression | undefined>;
  /** Deletes the entry if it is still the one with this id; false when it was gone. */
  remove(entry: Suppression): Promise<boolean>;
}

/** Who an unsubscribe link is for. */
export interface UnsubscribeSubject {
  workspaceId: number;
  campaignId: number;
  prospectId: number;
  /** The address the email went to (links signed since 2026-11-28; earlier ones name none). */
  email?: string;
}

/** Signs and checks the token of an unsubscribe link (shared/security/unsubscribe-token.ts). */
export interface UnsubscribeTokens {
  sign(subject: UnsubscribeSubject): string;
  /** The subject of a token we signed; undefined for anything else (malformed, altered, forged). */
  verify(token: string): UnsubscribeSubject | undefined;
}

/** The unsubscribe URL the engine puts in an email (its body link and its one-click header). */
export interface UnsubscribeLinks {
  urlFor(subject: UnsubscribeSubject): string;
}

/** A fixed-window request counter per subject (an IP address): whether one more request is allowed now. */
export interface RequestLimiter {
  take(subject: string, now: Date): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
}
