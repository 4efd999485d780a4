import type { SendOutcome } from './send-outcome';

/**
 * Delivery rules for user webhooks (see docs/integrations.md, "Retries").
 *
 * Attempt 1 is immediate; after a failed attempt n the next one waits RETRY_DELAYS_SECONDS[n-1]
 * with ±20% jitter: 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 12 h, so 8 attempts over about 30 hours
 * (29.4 h nominal, 23.7–32.8 h with jitter). The worker waits by the message's visibility, at most
 * 11 h 50 min (MAX_DELAY_SECONDS: the 12 h steps are capped there). Then the message goes to the
 * dead-letter queue.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [60, 300, 1_800, 7_200, 18_000, 36_000, 43_200];

/**
 * The longest wait the worker asks for: SQS's 12-hour ceiling on a message's visibility counts from
 * when it was received, so a longer ChangeMessageVisibility is refused, and the message would come
 * back after the queue's own 3-minute timeout instead. Ten minutes less than the ceiling leaves
 * room for the time it has been in flight (the consumer's timeout is 30 s).
 */
export const MAX_DELAY_SECONDS = 43_200 - 600;

/** SQS's ceiling on a message's visibility, from when it was received. */
export const SQS_VISIBILITY_CEILING_SECONDS = 43_200;

export const JITTER = 0.2;

export const maxAttemptsFor = (schedule: readonly number[]): number => schedule.length + 1;

/**
 * Seconds to wait after failed attempt `attempt` (1-based), jittered by `random()` in [0, 1);
 * undefined when that was the last attempt.
 */
export function retryDelaySeconds(schedule: readonly number[], attempt: number, random: () => number): number | undefined {
  const base = schedule[attempt - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return Math.min(MAX_DELAY_SECONDS, Math.max(0, jittered));
}

/**
 * Seconds a receiver asked us to wait by its `Retry-After` header (delta-seconds, or an HTTP date
 * counted from `now`), capped at MAX_DELAY_SECONDS; undefined when absent or unreadable.
 */
export function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  // An HTTP date starts with its day's name in all three of its formats (RFC 9110, 5.6.7), and is
  // GMT: the asctime format does not say so, and would be read in the machine's zone.
  const date = /^[A-Za-z]{3,9},? /.test(text) ? Date.parse(/ GMT$/.test(text) ? text : `${text} GMT`) : Number.NaN;
  // Delta-seconds of any length (a wait longer than the cap is the cap).
  const seconds = /^\d+$/.test(text) ? (text.length > 10 ? MAX_DELAY_SECONDS : Number(text)) : Math.ceil((date - now.getTime()) / 1000);
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(MAX_DELAY_SECONDS, Math.max(0, seconds));
}

/** Parses a schedule like "60,300,1800" (seconds); undefined for anything malformed. */
export function parseSchedule(raw: string): number[] | undefined {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 20 || parts.some((part) => !/^\d+$/.test(part))) return undefined;
  const values = parts.map(Number);
  // Up to SQS's ceiling, as the default's 12 h step; each wait is then capped at MAX_DELAY_SECONDS.
  return values.every((value) => value <= SQS_VISIBILITY_CEILING_SECONDS) ? values : undefined;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'SKIPPED';

/**
 * How one attempt ended. `skipped`: a retry found nothing to deliver to (the webhook URL removed,
 * or the user no longer a member of the event's workspace): nothing was sent, and no retry follows.
 */
export type AttemptOutcome = 'delivered' | 'http_error' | 'timeout' | 'blocked' | 'network_error' | 'skipped';

/** One line of the delivery log. Response bodies are never stored. */
export interface DeliveryAttempt {
  userId: number;
  eventId: string;
  eventType: string;
  attempt: number;
  at: string;
  outcome: AttemptOutcome;
  statusCode: number | null;
  /** A short reason for failures (our words, never the receiver's body). */
  error: string | null;
  durationMs: number;
  nextAttemptAt: string | null;
  test: boolean;
}

/** What the worker does with the queue message afterwards. */
export type DeliveryDecision =
  | { action: 'ack' }
  /** Leave the message in the queue, visible again after the delay. */
  | { action: 'retry'; delaySeconds: number }
  /** Give up: the message goes on to the dead-letter queue. */
  | { action: 'dead-letter' };

export const isSuccessStatus = (status: number): boolean => status >= 200 && status < 300;

/** How a send outcome reads in the delivery log. */
export function describeOutcome(outcome: SendOutcome): { outcome: AttemptOutcome; statusCode: number | null; error: string | null } {
  switch (outcome.kind) {
    case 'response':
      return isSuccessStatus(outcome.status)
        ? { outcome: 'delivered', statusCode: outcome.status, error: null }
        : { outcome: 'http_error', statusCode: outcome.status, error: `HTTP ${outcome.status}` };
    case 'timeout':
      return { outcome: 'timeout', statusCode: null, error: 'No answer in time' };
    case 'blocked':
      return { outcome: 'blocked', statusCode: null, error: outcome.reason };
    case 'network':
      return { outcome: 'network_error', statusCode: null, error: outcome.reason };
  }
}

export const toDeliveryAttemptView = (attempt: DeliveryAttempt) => ({
  event_id: attempt.eventId,
  event_type: attempt.eventType,
  attempt: attempt.attempt,
  outcome: attempt.outcome,
  status_code: attempt.statusCode,
  error: attempt.error,
  duration_ms: attempt.durationMs,
  attempted_at: attempt.at,
  next_attempt_at: attempt.nextAttemptAt,
  test: attempt.test,
});
