import type { StepType } from '../campaigns/flow';
import { validationError } from '../errors';

/**
 * The counters of the daily aggregates (docs/analytics.md). Each countable event adds to them once,
 * in the same transaction that records it.
 */
export const COUNTERS = ['emails', 'invites', 'accepted', 'messages', 'contacted', 'replies', 'interested', 'meetings', 'replyMs', 'timedReplies'] as const;
export type Counter = (typeof COUNTERS)[number];
export type Counts = Record<Counter, number>;

export const zeroCounts = (): Counts => Object.fromEntries(COUNTERS.map((name) => [name, 0])) as Counts;

export function addCounts(into: Counts, more: Partial<Counts>): Counts {
  for (const name of COUNTERS) into[name] += more[name] ?? 0;
  return into;
}

/** The counter a send of a step type adds to. */
export const sendCounter = (stepType: StepType): Counter =>
  stepType === 'EMAIL' ? 'emails' : stepType === 'NETWORK_INVITE' ? 'invites' : 'messages';

/** Per step and variant (all-time): sends and the replies attributed to them. Keyed by `stepKey`. */
export type StepCounts = Record<string, { sent: number; replied: number }>;
export const stepKey = (nodeId: number, variant: 'A' | 'B' | null): string => `${nodeId}_${variant ?? 'A'}`;

/** A percentage rounded to 2 decimals; 0 when the divisor is 0. */
export const percent = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** Mean reply time, rounded down: minutes under an hour, hours under a day, else days; "N/A" without replies. */
export function replyTime(totalMs: number, replies: number): string {
  if (replies === 0) return 'N/A';
  const minutes = Math.floor(totalMs / replies / 60_000);
  if (minutes < 60) return plural(minutes, 'minute');
  if (minutes < 24 * 60) return plural(Math.floor(minutes / 60), 'hour');
  return plural(Math.floor(minutes / (24 * 60)), 'day');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** `2026-11-05` as `05 Nov`. */
export const dayLabel = (day: string): string => `${day.slice(8, 10)} ${MONTHS[Number(day.slice(5, 7)) - 1]}`;

export interface DayRange {
  from: string;
  to: string;
}

/** The most days a range may cover, counting both ends. */
export const MAX_RANGE_DAYS = 366;

export const RANGE_ERRORS = {
  together: 'start_date and end_date must be given together',
  startDate: 'start_date must be a date as YYYY-MM-DD',
  endDate: 'end_date must be a date as YYYY-MM-DD',
  order: 'end_date must not be before start_date',
  tooLong: `A date range covers at most ${MAX_RANGE_DAYS} days`,
} as const;

const dayNumber = (day: string): number | undefined => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const at = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== day ? undefined : at / 86_400_000;
};

/**
 * The range of `start_date` and `end_date`, or undefined when neither is given (all-time). An
 * empty value counts as not given, as it does for the list parameters (`campaigns=`).
 */
export function parseRange(rawStart: string | undefined, rawEnd: string | undefined): DayRange | undefined {
  const start = rawStart?.trim() === '' ? undefined : rawStart;
  const end = rawEnd?.trim() === '' ? undefined : rawEnd;
  if (start === undefined && end === undefined) return undefined;
  // A malformed date is named as such, even alone (then the other one is asked for).
  const from = start === undefined ? undefined : dayNumber(start);
  if (start !== undefined && from === undefined) throw validationError(RANGE_ERRORS.startDate);
  const to = end === undefined ? undefined : dayNumber(end);
  if (end !== undefined && to === undefined) throw validationError(RANGE_ERRORS.endDate);
  if (start === undefined || end === undefined || from === undefined || to === undefined) throw validationError(RANGE_ERRORS.together);
  if (to < from) throw validationError(RANGE_ERRORS.order);
  if (to - from + 1 > MAX_RANGE_DAYS) throw validationError(RANGE_ERRORS.tooLong);
  return { from: start, to: end };
}

/** Every day of the range, in order. */
export function daysOf(range: DayRange): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${range.from}T00:00:00Z`), end = Date.parse(`${range.to}T00:00:00Z`); at <= end; at += 86_400_000) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

/** One day of `daily_metrics`. */
export const dailyMetric = (day: string, counts: Counts) => ({
  date: dayLabel(day),
  emails_sent: counts.emails,
  network_messages_sent: counts.messages,
  invites_sent: counts.invites,
  invites_accepted: counts.accepted,
  replies: counts.replies,
  interested: counts.interested,
});

/** The nine campaign analytics fields. */
export const campaignFields = (prospects: number, counts: Counts) => ({
  amount_of_prospects: prospects,
  amount_of_emails_sent: counts.emails,
  amount_of_invites_sent: counts.invites,
  amount_of_invites_accepted: counts.accepted,
  amount_of_network_messages_sent: counts.messages,
  amount_of_prospects_contacted: counts.contacted,
  amount_of_replies: counts.replies,
  amount_of_interested: counts.interested,
  average_reply_time: replyTime(counts.replyMs, counts.timedReplies),
});
