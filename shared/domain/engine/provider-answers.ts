import { ACCOUNT_NOT_FOUND } from '../providers/account-check';
import { type ProviderFailure, isProviderFailure } from '../providers/provider';

/**
 * How the engine sorts a failed provider call (providers.md 1.2, reliability.md 5). Pure.
 * - `transient`: 5xx, 429, timeouts, unreachable: retried with backoff (a due time, not SQS).
 * - `account`: the sender account cannot send (disconnected, credentials, restricted, a quota):
 *   the account's sends pause; the action waits and is tried again later (another account may
 *   take it if the prospect was not contacted on that channel yet).
 * - `prospect`: this prospect cannot be reached (not found, invitation refused, hard bounce): its
 *   sequence ends with the reason recorded.
 * - `already_connected`: an invitation to a first-degree connection: skipped, the flow goes on.
 * - `already_invited`: an invitation already pending: counts as sent.
 * - `not_connected`: a network message to someone who is not a first-degree connection: skipped.
 */
export type FailureClass =
  | { kind: 'transient'; reason: string }
  | { kind: 'account'; reason: string; quota: boolean }
  | { kind: 'prospect'; reason: string; bounce: boolean }
  | { kind: 'already_connected'; reason: string }
  | { kind: 'already_invited'; reason: string }
  | { kind: 'not_connected'; reason: string };

const QUOTA_TYPES = new Set(['errors/limit_exceeded', 'errors/cannot_resend_yet', 'errors/insufficient_credits', 'errors/not_allowed_inmail']);
const ACCOUNT_TYPES = new Set([
  'errors/account_restricted',
  'errors/feature_not_subscribed',
  'errors/invalid_account',
  'errors/sender_rejected',
  'errors/send_as_denied',
  // A 404 through an account the provider does not know either (account-check.ts).
  ACCOUNT_NOT_FOUND,
]);
const PROSPECT_TYPES = new Set(['errors/invalid_recipient', 'errors/cannot_invite_attendee', 'errors/blocked_recipient']);
const BOUNCE_TYPES = new Set(['errors/recipient_rejected']);

/** The provider's answer to an invitation to someone already connected (skipped; a later ACCEPTED_INVITE is YES). */
export const ALREADY_PERFORMED = 'errors/action_already_performed';

export function classifyFailure(error: unknown): FailureClass {
  if (!isProviderFailure(error)) return { kind: 'transient', reason: 'unexpected error calling the provider' };
  const failure: ProviderFailure = error;
  const type = failure.type ?? '';
  const reason = type || (failure.kind === 'http' ? `HTTP ${failure.status}` : failure.kind);
  if (failure.kind !== 'http') return { kind: 'transient', reason };
  const status = failure.status ?? 0;
  if (type === ALREADY_PERFORMED) return { kind: 'already_connected', reason };
  if (type === 'errors/already_invited_recently') return { kind: 'already_invited', reason };
  if (type === 'errors/no_connection_with_recipient') return { kind: 'not_connected', reason };
  if (BOUNCE_TYPES.has(type)) return { kind: 'prospect', reason, bounce: true };
  if (PROSPECT_TYPES.has(type)) return { kind: 'prospect', reason, bounce: false };
  if (QUOTA_TYPES.has(type)) return { kind: 'account', reason, quota: true };
  if (ACCOUNT_TYPES.has(type) || status === 401 || status === 403) return { kind: 'account', reason, quota: false };
  if (status === 404) return { kind: 'prospect', reason: type || 'profile not found', bounce: false };
  if (status === 429 || status >= 500 || status === 408) return { kind: 'transient', reason };
  // Any other 4xx is our request the provider will refuse again: end this prospect's sequence
  // with the reason rather than retrying it forever.
  return { kind: 'prospect', reason, bounce: false };
}

/**
 * Whether the provider named this prospect as the reason a send did not happen (not a connection,
 * already one, an invitation it refuses, an address it rejects): a reason that holds for this
 * prospect only. A 404 without such a type or any other 4xx may be ours (a template, a base URL, an
 * account) and hold for every prospect alike. Only the first kind pulls a wait past the cap forward
 * into the position given back (slot-returns.ts); the second would fail the pulled one too, and the
 * next, through the backlog.
 */
export function namesTheProspect(error: unknown): boolean {
  if (!isProviderFailure(error) || error.kind !== 'http') return false;
  const type = error.type ?? '';
  return type === ALREADY_PERFORMED || type === 'errors/no_connection_with_recipient' || PROSPECT_TYPES.has(type) || BOUNCE_TYPES.has(type);
}

/**
 * Whether a failed call may still have been carried out (docs/engine.md, "A timeout is ambiguous"):
 * no answer in time, a connection lost (or never made: the two look alike), or a gateway in front
 * of the provider that answered for it (502, 504).
 */
export const isLostAnswer = (error: unknown): boolean =>
  isProviderFailure(error) && (error.kind === 'timeout' || error.kind === 'network' || (error.kind === 'http' && (error.status === 502 || error.status === 504)));

/** Whether a failed email send was a hard bounce (the address goes on the suppression list). */
export function isHardBounce(error: unknown): boolean {
  const failure = classifyFailure(error);
  return failure.kind === 'prospect' && failure.bounce;
}

/** Backoff of transient failures: 1, 5, 15, 60 minutes, then every 3 hours; after 8 tries the action ends as failed. */
export const RETRY_DELAYS_MINUTES = [1, 5, 15, 60, 180, 180, 180, 180] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MINUTES.length;

/** How long an account problem holds the account's sends before it is tried again, when the provider gives no end. */
export const ACCOUNT_RETRY_MINUTES = 60;
