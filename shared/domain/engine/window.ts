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

/**
 * Days a search for the next open moment looks ahead: two weeks and a day, so a window whose only
 * open day a DST change takes in one week (a Sunday 02:00-03:00 on spring-forward day) still finds
 * the week after it.
 */
const SEARCH_DAYS = 15;

/**
 * How long before its window closes a send must be due to go out that day: the scheduler runs once
 * a minute (the local clock steps at least a minute), and the sender takes a few seconds more. A
 * slot later than this in its span is moved back to it.
 */
export const SLOT_END_MARGIN_MS = 90_000;

/** Weeks openSpanAfterDays counts day by day before it jumps whole weeks. */
const WALKED_WEEKS = 8;

const dayWindowsOf = (window: SendingWindow): Readonly<Partial<Record<Weekday, DayWindow | undefined>>> =>
  Object.keys(window).length === 0 ? DEFAULT_WINDOW : window;

const minutesOf = (hhmm: string): { hour: number; minute: number } => {
  const [hour, minute] = hhmm.split(':').map(Number);
  return { hour: hour ?? 0, minute: minute ?? 0 };
};

/** Longest DST jump searched back over (the largest in use is 2 hours). */
const MAX_JUMP_MINUTES = 180;

/**
 * `HH:MM` on the local day `date`. luxon moves a time a DST jump skips forward by the length of
 * the jump (02:30 becomes 03:30); the first time that exists is the moment of the jump (03:00).
 * A time the fall-back change repeats (01:30 twice in New York) is its first occurrence, or with
 * `repeated: 'last'` its second: a window's start, so that the repeated part before the start
 * (01:00-01:30 the second time) is not taken for part of the window.
 */
function atLocalTime(date: DateTime, hhmm: string, repeated: 'first' | 'last' = 'first'): DateTime {
  const { hour, minute } = minutesOf(hhmm);
  const moment = date.set({ hour, minute, second: 0, millisecond: 0 });
  if (moment.hour === hour && moment.minute === minute) {
    if (repeated === 'first') return moment;
    // DST changes are 30, 60 or 120 minutes: the same wall-clock time that long later, if any.
    const again = [120, 60, 30].map((minutes) => moment.plus({ minutes })).find((later) => later.hour === hour && later.minute === minute && later.offset !== moment.offset);
    return again ?? moment;
  }
  let first = moment;
  for (let step = 0; step < MAX_JUMP_MINUTES; step += 1) {
    const earlier = first.minus({ minutes: 1 });
    if (earlier.offset !== moment.offset) break;
    first = earlier;
  }
  return first;
}

/** The open span of the local day `date` (any time on it), or undefined when the day does not send. */
function spanOfDay(date: DateTime, window: SendingWindow): OpenSpan | undefined {
  const weekday = WEEKDAYS[date.weekday - 1] as Weekday;
  const hours = dayWindowsOf(window)[weekday];
  if (!hours?.enabled) return undefined;
  const end = atLocalTime(date, hours.end);
  // A start the fall-back change repeats opens at its second occurrence (the wall clock shows the
  // window's hours from then on); the first, if the end comes before the second (both repeated).
  const last = atLocalTime(date, hours.start, 'last');
  const start = last < end ? last : atLocalTime(date, hours.start);
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

/**
 * The open span of the `days`-th sending day after the local day `at` falls on, counting only days
 * the window sends (Friday plus 1 is Monday with the default window, plus 2 Tuesday); `days` 0:
 * that day's span, or the next sending day's if it does not send. Undefined when the window has no
 * open day.
 */
export function openSpanAfterDays(at: Date, days: number, window: SendingWindow, timezone: string): OpenSpan | undefined {
  const day = DateTime.fromJSDate(at, { zone: timezone }).startOf('day');
  if (days <= 0) return openSpanFrom(day.toJSDate(), window, timezone);
  // The next eight weeks day by day: a DST change may take a day from a week (a window inside the
  // skipped hour), and a wait is mostly for the next few days.
  let left = days;
  const perWeekSeen = Array.from({ length: WALKED_WEEKS }, () => 0);
  for (let offset = 1; offset <= WALKED_WEEKS * 7; offset += 1) {
    const span = spanOfDay(day.plus({ days: offset }), window);
    if (!span) continue;
    left -= 1;
    if (left === 0) return span;
    const week = Math.floor((offset - 1) / 7);
    perWeekSeen[week] = (perWeekSeen[week] ?? 0) + 1;
  }
  // Further on every week has the same sending days (the most any of those weeks had): whole weeks
  // are jumped at once, the rest counted day by day. Only there can a day a DST change takes put a
  // wait a sending day off, months ahead.
  const perWeek = Math.max(...perWeekSeen);
  if (perWeek === 0) return undefined;
  const weeks = Math.floor((left - 1) / perWeek);
  left -= weeks * perWeek;
  for (let offset = WALKED_WEEKS * 7 + 1; offset <= (WALKED_WEEKS + 2) * 7; offset += 1) {
    const span = spanOfDay(day.plus({ weeks, days: offset }), window);
    if (span) left -= 1;
    if (span && left === 0) return span;
  }
  return undefined;
}

/**
 * Where the k-th send (1-based) of a day with `cap` sends goes inside the day's open span: the
 * span cut into `cap` equal slots, so a day's sends that fit the cap all go out before it closes.
 * None later than SLOT_END_MARGIN_MS before the end (nor before the start): a slot in a window's
 * last minute was first seen by the scheduler after the window had closed, and went the next day.
 */
export function slotTime(span: OpenSpan, k: number, cap: number): Date {
  const length = span.end.getTime() - span.start.getTime();
  const index = Math.max(0, Math.min(k - 1, cap - 1));
  const slot = span.start.getTime() + Math.floor((index * length) / Math.max(cap, 1));
  return new Date(Math.max(span.start.getTime(), Math.min(slot, span.end.getTime() - SLOT_END_MARGIN_MS)));
}
