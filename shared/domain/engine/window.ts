import { DateTime } from 'luxon';
import { type DayWindow, type SendingWindow, WEEKDAYS, type Weekday } from '../campaigns/campaign';

/**
 * Sending windows and days in a campaign's timezone. Pure; luxon does the zone arithmetic, so a
 * window is the same wall-clock hours on either side of a DST change (a 09:00 start is 09:00 local
 * in winter and in summer) and a local time a DST jump skips is moved to the first one that exists.
 */

/** `{}`: Monday to Friday, 09:00-17:00 (docs/campaigns.md). */
export const DEFAULT_WINDOW: Readonly<Record<Weekday, DayWindow | undefined>> = {
  monday: { enabled: true, start: '09:00', end: '17:00' },
  tuesday: { enabled: true, start: '09:00', end: '17:00' },
  wednesday: { enabled: true, start: '09:00', end: '17:00' },
  thursday: { enabled: true, start: '09:00', end: '17:00' },
  friday: { enabled: true, start: '09:00', end: '17:00' },
  saturday: undefined,
  sunday: undefined,
};

/** The open hours of one local day, as instants. */
export interface OpenSpan {
  start: Date;
  end: Date;
  /** The local date, `YYYY-MM-DD`: the day daily caps count in. */
  day: string;
}

/** Days a search for the next open moment looks ahead: a week covers every window with an open day. */
const SEARCH_DAYS = 8;

const dayWindowsOf = (window: SendingWindow): Readonly<Partial<Record<Weekday, DayWindow | undefined>>> =>
  Object.keys(window).length === 0 ? DEFAULT_WINDOW : window;

const minutesOf = (hhmm: string): { hour: number; minute: number } => {
  const [hour, minute] = hhmm.split(':').map(Number);
  return { hour: hour ?? 0, minute: minute ?? 0 };
};

/** The open span of the local day `date` (any time on it), or undefined when the day does not send. */
function spanOfDay(date: DateTime, window: SendingWindow): OpenSpan | undefined {
  const weekday = WEEKDAYS[date.weekday - 1] as Weekday;
  const hours = dayWindowsOf(window)[weekday];
  if (!hours?.enabled) return undefined;
  const start = date.set({ ...minutesOf(hours.start), second: 0, millisecond: 0 });
  const end = date.set({ ...minutesOf(hours.end), second: 0, millisecond: 0 });
  if (end <= start) return undefined;
  return { start: start.toJSDate(), end: end.toJSDate(), day: date.toISODate() as string };
}

/** The local date of an instant in a zone, `YYYY-MM-DD`. */
export const localDay = (at: Date, timezone: string): string => DateTime.fromJSDate(at, { zone: timezone }).toISODate() as string;

/** The UTC date of an instant, `YYYY-MM-DD` (sender accounts count their limits in UTC days). */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The start of the next UTC day after `at`. */
export const nextUtcDay = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));

/**
 * The open span that contains `at`, or the next one after it; undefined when the window has no
 * open day at all. `at` itself is returned as the moment when it is inside a span.
 */
export function openSpanFrom(at: Date, window: SendingWindow, timezone: string): OpenSpan | undefined {
  const local = DateTime.fromJSDate(at, { zone: timezone });
  for (let offset = 0; offset < SEARCH_DAYS; offset += 1) {
    const span = spanOfDay(local.plus({ days: offset }).startOf('day'), window);
    if (span && span.end.getTime() > at.getTime()) return span;
  }
  return undefined;
}

/** The first moment at or after `at` when the window is open; undefined when it never opens. */
export function nextOpenMoment(at: Date, window: SendingWindow, timezone: string): Date | undefined {
  const span = openSpanFrom(at, window, timezone);
  if (!span) return undefined;
  return span.start.getTime() > at.getTime() ? span.start : at;
}

/** The open span of the local day `days` after the one `at` falls on (that day itself or later, if it does not send). */
export function openSpanAfterDays(at: Date, days: number, window: SendingWindow, timezone: string): OpenSpan | undefined {
  const from = DateTime.fromJSDate(at, { zone: timezone }).startOf('day').plus({ days });
  return openSpanFrom(from.toJSDate(), window, timezone);
}

/**
 * Where the k-th send (1-based) of a day with `cap` sends goes inside the day's open span: the
 * span cut into `cap` equal slots, so a day's sends that fit the cap all go out before it closes.
 */
export function slotTime(span: OpenSpan, k: number, cap: number): Date {
  const length = span.end.getTime() - span.start.getTime();
  const index = Math.max(0, Math.min(k - 1, cap - 1));
  return new Date(span.start.getTime() + Math.floor((index * length) / Math.max(cap, 1)));
}
