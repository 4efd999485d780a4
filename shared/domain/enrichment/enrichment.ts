/**
 * Enrichment: finding the email or phone of a list's prospects through providers, paid for with
 * credits up front and refunded by policy (docs/enrichment.md).
 */
import type { Prospect } from '../leads/lead';
import { isPhoneNumber } from '../leads/normalize';

export const ENRICHMENT_TYPES = ['FIND_EMAIL', 'FIND_EMAIL_WATERFALL', 'FIND_PHONE'] as const;
export type EnrichmentType = (typeof ENRICHMENT_TYPES)[number];
export const ENRICHMENT_TYPE_MESSAGE = 'enrichment_type must be FIND_EMAIL, FIND_EMAIL_WATERFALL, or FIND_PHONE';
export const PEOPLE_ONLY_MESSAGE = 'Email/phone enrichment is only available for people lists';

/** Spec, Limits: credits per lead. */
export const COST_PER_LEAD: Record<EnrichmentType, number> = { FIND_EMAIL: 3, FIND_EMAIL_WATERFALL: 6, FIND_PHONE: 30 };

export const ENRICHMENT_LIMITS = {
  defaultAsyncLimit: 100,
  maxAsyncLimit: 10_000,
  defaultSyncLimit: 25,
  maxSyncLimit: 25,
  /** Prospects of one queue message (one chunk): searched, written and resolved together. */
  chunkSize: 50,
} as const;

export { LOADING_STATUS } from '../leads/lead';

export type Field = 'email' | 'phone';
export const fieldOf = (type: EnrichmentType): Field => (type === 'FIND_PHONE' ? 'phone' : 'email');

/**
 * Whether a prospect's stored text is a valid value of the field, which no job searches again: any
 * email (imports and finds are checked as addresses), a phone only when it is a number ("n/a" is
 * none; docs/enrichment.md, "Valid values").
 */
export const holdsValidValue = (field: Field, text: string | undefined): boolean =>
  field === 'email' ? Boolean(text) : text !== undefined && isPhoneNumber(text);

/** The prospect attribute a job searching this field leaves its mark on (docs/enrichment.md, "Exactly once"). */
export const MARK_ATTRIBUTE = { email: 'emailEnrichment', phone: 'phoneEnrichment' } as const satisfies Record<Field, keyof Prospect>;

/** How a provider answered for one prospect. */
export type FinderOutcome =
  | { kind: 'found'; value: string; verification: 'verified' | 'risky' }
  | { kind: 'not_found' }
  /**
   * The provider could not answer (down, rate limited, refused our key) after its retries.
   * `final`: trying again changes nothing (it was not asked at all, nothing to search by; or it
   * refused our key, our plan or our request). `retryAfterMs`: how long the provider asked us to
   * wait before the next try (its `Retry-After`).
   */
  | { kind: 'error'; message: string; final?: true; retryAfterMs?: number };

/** What a finder is given about a prospect. */
export interface FinderInput {
  firstName: string;
  lastName: string;
  /** The company's website domain, without `www.`. */
  domain?: string;
  companyName?: string;
  networkProfileUrl?: string;
}

/** An email or phone finder (a provider adapter). */
export interface Finder {
  readonly name: string;
  find(input: FinderInput): Promise<FinderOutcome>;
}

export interface Finders {
  /** FIND_EMAIL uses the first; FIND_EMAIL_WATERFALL all of them in this order. */
  email: readonly Finder[];
  phone: Finder;
}

/**
 * The outcome of one prospect. `skipped`: not for this job to charge (it got an email or phone, left
 * the workspace or was archived, or another job running at the same time searched it and wrote
 * first); never sent to a provider, unless the other job wrote while this one asked.
 */
export type ProspectOutcome = 'found' | 'not_found' | 'duplicate' | 'failed' | 'skipped';

export interface ProspectResult {
  prospectId: number;
  outcome: ProspectOutcome;
  value?: string;
  verification?: 'verified' | 'risky';
  provider?: string;
  /** The prospect of the workspace that already has the found email. */
  duplicateOf?: number;
  firstName?: string;
  lastName?: string;
}

/**
 * Refund policy: FIND_EMAIL keeps the charge of a lead that was searched (not found, duplicate);
 * FIND_EMAIL_WATERFALL and FIND_PHONE charge only found leads; every type refunds a lead that
 * could not be processed at all (failed, skipped).
 */
export function refunded(type: EnrichmentType, outcome: ProspectOutcome): boolean {
  if (outcome === 'found') return false;
  if (outcome === 'failed' || outcome === 'skipped') return true;
  return type !== 'FIND_EMAIL';
}

export const refundOf = (type: EnrichmentType, results: readonly ProspectResult[]): number =>
  results.filter((result) => refunded(type, result.outcome)).length * COST_PER_LEAD[type];

/** Calls of one provider for one prospect before it counts as down. */
const ATTEMPTS = 3;

/**
 * The waits before a provider's second and third try, when it did not say how long: a rate limit
 * or a fault of its own is rarely over at once (before 2026-11-28 the three tries came back to
 * back). One it asked for (`Retry-After`) is waited, up to MAX_RETRY_PAUSE_MS.
 */
export const RETRY_PAUSES_MS = [250, 1_000] as const;
export const MAX_RETRY_PAUSE_MS = 5_000;

/** Waits `ms` (the processor's is a timer; a test's records the wait and returns). */
export type Pause = (ms: number) => Promise<void>;

/** Whether a provider call may start now: the caller's time left covers one call and its writes. */
export type MayCall = () => boolean;

/** Why a prospect's search ended without a provider's answer when its time ran out. */
export const OUT_OF_TIME = 'not asked: the time to ask the providers ran out';

async function ask(finder: Finder, input: FinderInput, mayCall: MayCall, pause: Pause): Promise<FinderOutcome> {
  let last: FinderOutcome = { kind: 'error', message: 'not called' };
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    if (attempt > 0) {
      const asked = last.kind === 'error' ? last.retryAfterMs : undefined;
      await pause(Math.min(asked ?? RETRY_PAUSES_MS[attempt - 1] ?? MAX_RETRY_PAUSE_MS, MAX_RETRY_PAUSE_MS));
    }
    // Out of time before its tries are done (the wait counts): not asked through (a failed first
    // try is no answer).
    if (!mayCall()) return { kind: 'error', message: OUT_OF_TIME };
    try {
      last = await finder.find(input);
    } catch (error) {
      last = { kind: 'error', message: String(error) };
    }
    if (last.kind !== 'error' || last.final) return settledOutcome(last);
  }
  return settledOutcome(last);
}

/** An outcome as the job keeps it: the wait a provider asked for concerned only its next try. */
function settledOutcome(outcome: FinderOutcome): FinderOutcome {
  if (outcome.kind !== 'error' || outcome.retryAfterMs === undefined) return outcome;
  const { retryAfterMs: _wait, ...rest } = outcome;
  return rest;
}

/**
 * Runs one prospect through the finders of its type: FIND_EMAIL and FIND_PHONE ask one provider;
 * the waterfall asks each in order and stops at the first verified email, keeping the first risky
 * one as a fallback. Not found when a provider answered and none found; failed when none answered.
 * No call starts once `mayCall` says no (the function's time is short): what was answered by then
 * decides, and a prospect no provider answered is failed (refunded). `pause` waits between a
 * provider's tries (RETRY_PAUSES_MS): the processor's is a timer, and none waits by default.
 */
export async function findFor(
  type: EnrichmentType,
  finders: Finders,
  input: FinderInput,
  mayCall: MayCall = () => true,
  pause: Pause = async () => {},
): Promise<{ outcome: FinderOutcome; provider?: string }> {
  const chain = type === 'FIND_PHONE' ? [finders.phone] : type === 'FIND_EMAIL' ? finders.email.slice(0, 1) : finders.email;
  let fallback: { outcome: FinderOutcome; provider: string } | undefined;
  let answered = false;
  let lastError: FinderOutcome | undefined;
  let outOfTime = false;
  for (const finder of chain) {
    const outcome = await ask(finder, input, mayCall, pause);
    if (outcome.kind === 'error') {
      lastError = outcome;
      if (outcome.message === OUT_OF_TIME) outOfTime = true;
      continue;
    }
    answered = true;
    if (outcome.kind === 'found' && outcome.verification === 'verified') return { outcome, provider: finder.name };
    if (outcome.kind === 'found') fallback ??= { outcome, provider: finder.name };
  }
  if (fallback) return fallback;
  // A finder the time left no call for was not asked: not searched through, so not "not found".
  if (outOfTime) return { outcome: { kind: 'error', message: OUT_OF_TIME } };
  if (answered) return { outcome: { kind: 'not_found' } };
  return { outcome: lastError ?? { kind: 'error', message: 'no provider configured' } };
}
