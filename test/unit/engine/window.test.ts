import { describe, expect, it } from 'vitest';
import type { SendingWindow } from '../../../shared/domain/campaigns/campaign';
import {
  DEFAULT_WINDOW,
  type OpenSpan,
  localDay,
  nextOpenMoment,
  nextUtcDay,
  openSpanAfterDays,
  openSpanFrom,
  slotTime,
  utcDay,
} from '../../../shared/domain/engine/window';

const AMSTERDAM = 'Europe/Amsterdam';
const NEW_YORK = 'America/New_York';
const NINE_TO_FIVE = { enabled: true, start: '09:00', end: '17:00' };

/** A span as ISO strings, so a failure shows readable instants. */
const iso = (span: OpenSpan | undefined) => span && { start: span.start.toISOString(), end: span.end.toISOString(), day: span.day };
const spanFrom = (at: string, window: SendingWindow = {}, timezone = AMSTERDAM) => iso(openSpanFrom(new Date(at), window, timezone));
const openAt = (at: string, window: SendingWindow = {}, timezone = AMSTERDAM) => nextOpenMoment(new Date(at), window, timezone)?.toISOString();
const afterDays = (at: string, days: number, window: SendingWindow = {}, timezone = AMSTERDAM) =>
  iso(openSpanAfterDays(new Date(at), days, window, timezone));

describe('sending windows', () => {
  it('reads {} as Monday to Friday, 09:00-17:00', () => {
    expect(DEFAULT_WINDOW).toEqual({
      monday: NINE_TO_FIVE,
      tuesday: NINE_TO_FIVE,
      wednesday: NINE_TO_FIVE,
      thursday: NINE_TO_FIVE,
      friday: NINE_TO_FIVE,
      saturday: undefined,
      sunday: undefined,
    });
    // Monday 22 March 2027, 07:00 in Amsterdam (UTC+1).
    expect(spanFrom('2027-03-22T06:00:00.000Z')).toEqual({ start: '2027-03-22T08:00:00.000Z', end: '2027-03-22T16:00:00.000Z', day: '2027-03-22' });
    // Saturday: the next open day is Monday.
    expect(spanFrom('2027-03-20T10:00:00.000Z')).toEqual({ start: '2027-03-22T08:00:00.000Z', end: '2027-03-22T16:00:00.000Z', day: '2027-03-22' });
  });

  it('sends only on the days given once any day is given', () => {
    const window: SendingWindow = { wednesday: { enabled: true, start: '10:00', end: '12:00' } };
    expect(spanFrom('2027-03-22T06:00:00.000Z', window)).toEqual({ start: '2027-03-24T09:00:00.000Z', end: '2027-03-24T11:00:00.000Z', day: '2027-03-24' });
    // Wednesday after its window: a week later.
    expect(spanFrom('2027-03-24T11:00:00.000Z', window)).toEqual({ start: '2027-03-31T08:00:00.000Z', end: '2027-03-31T10:00:00.000Z', day: '2027-03-31' });
  });

  it('skips disabled days and days whose end is not after their start', () => {
    const window: SendingWindow = {
      monday: { enabled: false, start: '09:00', end: '17:00' },
      tuesday: { enabled: true, start: '17:00', end: '09:00' },
      wednesday: { enabled: true, start: '12:00', end: '12:00' },
      thursday: { enabled: true, start: '08:00', end: '09:30' },
    };
    expect(spanFrom('2027-03-22T06:00:00.000Z', window)).toEqual({ start: '2027-03-25T07:00:00.000Z', end: '2027-03-25T08:30:00.000Z', day: '2027-03-25' });
  });

  it('answers undefined for a window with no open day', () => {
    const closed: SendingWindow = { monday: { enabled: false, start: '09:00', end: '17:00' }, friday: { enabled: true, start: '17:00', end: '09:00' } };
    expect(openSpanFrom(new Date('2027-03-22T06:00:00.000Z'), closed, AMSTERDAM)).toBeUndefined();
    expect(nextOpenMoment(new Date('2027-03-22T06:00:00.000Z'), closed, AMSTERDAM)).toBeUndefined();
    expect(openSpanAfterDays(new Date('2027-03-22T06:00:00.000Z'), 0, closed, AMSTERDAM)).toBeUndefined();
    expect(openSpanAfterDays(new Date('2027-03-22T06:00:00.000Z'), 3, closed, AMSTERDAM)).toBeUndefined();
  });

  it('answers the moment itself inside a span, the start before it and the next sending day after it', () => {
    const monday = { start: '2027-03-22T08:00:00.000Z', end: '2027-03-22T16:00:00.000Z', day: '2027-03-22' };
    // Inside: the span of the day, and `at` itself as the moment.
    expect(spanFrom('2027-03-22T11:17:23.456Z')).toEqual(monday);
    expect(openAt('2027-03-22T11:17:23.456Z')).toBe('2027-03-22T11:17:23.456Z');
    expect(openAt('2027-03-22T08:00:00.000Z')).toBe('2027-03-22T08:00:00.000Z');
    expect(openAt('2027-03-22T15:59:59.999Z')).toBe('2027-03-22T15:59:59.999Z');
    // Before: the start.
    expect(spanFrom('2027-03-22T07:59:59.999Z')).toEqual(monday);
    expect(openAt('2027-03-22T07:59:59.999Z')).toBe('2027-03-22T08:00:00.000Z');
    // At or after the end: the next sending day.
    expect(openAt('2027-03-22T16:00:00.000Z')).toBe('2027-03-23T08:00:00.000Z');
    expect(spanFrom('2027-03-22T16:00:00.000Z')).toEqual({ start: '2027-03-23T08:00:00.000Z', end: '2027-03-23T16:00:00.000Z', day: '2027-03-23' });
    // Friday evening: Monday, over the weekend.
    expect(openAt('2027-03-19T16:30:00.000Z')).toBe('2027-03-22T08:00:00.000Z');
    expect(spanFrom('2027-03-19T16:30:00.000Z')).toEqual(monday);
  });

  describe('across DST changes in Europe/Amsterdam', () => {
    it('keeps 09:00-17:00 local when summer time starts (Sunday 28 March 2027, 02:00 -> 03:00)', () => {
      // Friday before: UTC+1.
      expect(spanFrom('2027-03-26T06:00:00.000Z')).toEqual({ start: '2027-03-26T08:00:00.000Z', end: '2027-03-26T16:00:00.000Z', day: '2027-03-26' });
      // From Friday evening the next span is Monday, in UTC+2.
      expect(spanFrom('2027-03-26T16:00:00.000Z')).toEqual({ start: '2027-03-29T07:00:00.000Z', end: '2027-03-29T15:00:00.000Z', day: '2027-03-29' });
      expect(openAt('2027-03-26T16:00:00.000Z')).toBe('2027-03-29T07:00:00.000Z');
    });

    it('moves a start inside the skipped hour to 03:00 local, the first time that exists', () => {
      const window: SendingWindow = { sunday: { enabled: true, start: '02:30', end: '05:00' } };
      expect(spanFrom('2027-03-27T12:00:00.000Z', window)).toEqual({ start: '2027-03-28T01:00:00.000Z', end: '2027-03-28T03:00:00.000Z', day: '2027-03-28' });
      // The Sunday before and after: 02:30 exists, in UTC+1 and UTC+2.
      expect(spanFrom('2027-03-20T12:00:00.000Z', window)).toEqual({ start: '2027-03-21T01:30:00.000Z', end: '2027-03-21T04:00:00.000Z', day: '2027-03-21' });
      expect(spanFrom('2027-03-28T03:00:00.000Z', window)).toEqual({ start: '2027-04-04T00:30:00.000Z', end: '2027-04-04T03:00:00.000Z', day: '2027-04-04' });
    });

    it('keeps 09:00-17:00 local when summer time ends (Sunday 25 October 2026, 03:00 -> 02:00)', () => {
      // Friday before: UTC+2.
      expect(spanFrom('2026-10-23T05:00:00.000Z')).toEqual({ start: '2026-10-23T07:00:00.000Z', end: '2026-10-23T15:00:00.000Z', day: '2026-10-23' });
      // From Friday evening the next span is Monday, in UTC+1.
      expect(spanFrom('2026-10-23T15:00:00.000Z')).toEqual({ start: '2026-10-26T08:00:00.000Z', end: '2026-10-26T16:00:00.000Z', day: '2026-10-26' });
      // The day of the change itself, after it: UTC+1.
      const sunday: SendingWindow = { sunday: NINE_TO_FIVE };
      expect(spanFrom('2026-10-24T12:00:00.000Z', sunday)).toEqual({ start: '2026-10-25T08:00:00.000Z', end: '2026-10-25T16:00:00.000Z', day: '2026-10-25' });
    });
  });

  it('opens a window whose start the fall-back change repeats at its second occurrence, so nothing before the start is open', () => {
    // New York, Sunday 7 November 2027: 02:00 EDT becomes 01:00 EST; 01:30 is 05:30 and 06:30 UTC.
    const sunday = (start: string, end: string): SendingWindow => ({ sunday: { enabled: true, start, end } });
    expect(spanFrom('2027-11-06T12:00:00.000Z', sunday('01:30', '03:00'), NEW_YORK)).toEqual({
      start: '2027-11-07T06:30:00.000Z',
      end: '2027-11-07T08:00:00.000Z',
      day: '2027-11-07',
    });
    // Start and end both repeated, the end's first occurrence before the start's second: the first hour.
    expect(spanFrom('2027-11-06T12:00:00.000Z', sunday('01:10', '01:50'), NEW_YORK)).toEqual({
      start: '2027-11-07T05:10:00.000Z',
      end: '2027-11-07T05:50:00.000Z',
      day: '2027-11-07',
    });
    // Lord Howe goes back 30 minutes (02:00 +11 becomes 01:30 +10:30, 4 April 2027); Auckland an hour.
    expect(spanFrom('2027-04-03T00:00:00.000Z', sunday('01:45', '03:00'), 'Australia/Lord_Howe')).toEqual({
      start: '2027-04-03T15:15:00.000Z',
      end: '2027-04-03T16:30:00.000Z',
      day: '2027-04-04',
    });
    expect(spanFrom('2027-04-03T00:00:00.000Z', sunday('02:30', '04:00'), 'Pacific/Auckland')).toEqual({
      start: '2027-04-03T14:30:00.000Z',
      end: '2027-04-03T16:00:00.000Z',
      day: '2027-04-04',
    });
    // A start that is not repeated is where it was (the Sunday before).
    expect(spanFrom('2027-10-30T12:00:00.000Z', sunday('01:30', '03:00'), NEW_YORK)?.start).toBe('2027-10-31T05:30:00.000Z');
  });

  it('finds the week after one whose only open day a DST change took', () => {
    // New York, Sundays 02:00-03:00: Sunday 12 March 2028 has no 02:00-03:00 (02:00 EST becomes 03:00 EDT).
    const window: SendingWindow = { sunday: { enabled: true, start: '02:00', end: '03:00' } };
    expect(spanFrom('2028-03-05T08:00:00.000Z', window, NEW_YORK)).toEqual({ start: '2028-03-19T06:00:00.000Z', end: '2028-03-19T07:00:00.000Z', day: '2028-03-19' });
    expect([0, 1, 2, 3, 20].map((n) => afterDays('2028-03-05T07:30:00.000Z', n, window, NEW_YORK)?.day)).toEqual([
      '2028-03-05',
      '2028-03-19',
      '2028-03-26',
      '2028-04-02',
      '2028-07-30',
    ]);
    // Counted day by day for eight weeks: from 6 February the fourth Sunday is 5 March, the fifth 19 March.
    expect([4, 5, 6].map((n) => afterDays('2028-02-06T12:00:00.000Z', n, window, NEW_YORK)?.day)).toEqual(['2028-03-05', '2028-03-19', '2028-03-26']);
  });

  it('follows the DST dates of another zone (America/New_York changes on 14 March 2027 and 1 November 2026)', () => {
    // Friday 12 March 2027: EST (UTC-5).
    expect(spanFrom('2027-03-12T12:00:00.000Z', {}, NEW_YORK)).toEqual({ start: '2027-03-12T14:00:00.000Z', end: '2027-03-12T22:00:00.000Z', day: '2027-03-12' });
    // Monday 15 March 2027: EDT (UTC-4), while Amsterdam is still on UTC+1.
    expect(spanFrom('2027-03-12T22:00:00.000Z', {}, NEW_YORK)).toEqual({ start: '2027-03-15T13:00:00.000Z', end: '2027-03-15T21:00:00.000Z', day: '2027-03-15' });
    expect(spanFrom('2027-03-15T06:00:00.000Z')).toEqual({ start: '2027-03-15T08:00:00.000Z', end: '2027-03-15T16:00:00.000Z', day: '2027-03-15' });
    // Friday 30 October 2026: still EDT, while Amsterdam is already back on UTC+1; Monday 2 November: EST.
    expect(spanFrom('2026-10-30T12:00:00.000Z', {}, NEW_YORK)).toEqual({ start: '2026-10-30T13:00:00.000Z', end: '2026-10-30T21:00:00.000Z', day: '2026-10-30' });
    expect(spanFrom('2026-10-30T21:00:00.000Z', {}, NEW_YORK)).toEqual({ start: '2026-11-02T14:00:00.000Z', end: '2026-11-02T22:00:00.000Z', day: '2026-11-02' });
    // 02:30 is skipped there too, on its own date: 03:00 EDT.
    const sunday: SendingWindow = { sunday: { enabled: true, start: '02:30', end: '05:00' } };
    expect(spanFrom('2027-03-13T12:00:00.000Z', sunday, NEW_YORK)).toEqual({ start: '2027-03-14T07:00:00.000Z', end: '2027-03-14T09:00:00.000Z', day: '2027-03-14' });
    // Monday 20:30 UTC is 16:30 in New York: inside its window.
    expect(openAt('2027-03-15T20:30:00.000Z', {}, NEW_YORK)).toBe('2027-03-15T20:30:00.000Z');
  });

  it('tells local and UTC days, and the start of the next UTC day', () => {
    const lateFriday = new Date('2027-03-26T23:30:00.000Z');
    expect(localDay(lateFriday, AMSTERDAM)).toBe('2027-03-27');
    expect(localDay(lateFriday, NEW_YORK)).toBe('2027-03-26');
    expect(localDay(new Date('2027-03-27T03:59:00.000Z'), NEW_YORK)).toBe('2027-03-26');
    expect(localDay(new Date('2027-03-27T04:00:00.000Z'), NEW_YORK)).toBe('2027-03-27');
    expect(utcDay(lateFriday)).toBe('2027-03-26');
    expect(utcDay(new Date('2027-03-27T00:00:00.000Z'))).toBe('2027-03-27');
    expect(nextUtcDay(lateFriday).toISOString()).toBe('2027-03-27T00:00:00.000Z');
    expect(nextUtcDay(new Date('2027-03-27T00:00:00.000Z')).toISOString()).toBe('2027-03-28T00:00:00.000Z');
    expect(nextUtcDay(new Date('2026-12-31T10:00:00.000Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextUtcDay(new Date('2028-02-28T10:00:00.000Z')).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('finds the span a number of sending days ahead, skipping days the window does not send', () => {
    const thursday = '2027-03-25T10:00:00.000Z';
    const days = (from: string, window: SendingWindow = {}) => [0, 1, 2, 3, 4, 5, 6, 11].map((n) => afterDays(from, n, window)?.day);
    // 0: the day itself (any time on it); then Friday, and Monday after the weekend (and the DST change).
    expect(afterDays(thursday, 0)).toEqual({ start: '2027-03-25T08:00:00.000Z', end: '2027-03-25T16:00:00.000Z', day: '2027-03-25' });
    expect(afterDays(thursday, 2)).toEqual({ start: '2027-03-29T07:00:00.000Z', end: '2027-03-29T15:00:00.000Z', day: '2027-03-29' });
    expect(days(thursday)).toEqual(['2027-03-25', '2027-03-26', '2027-03-29', '2027-03-30', '2027-03-31', '2027-04-01', '2027-04-02', '2027-04-09']);
    // From Friday: Monday, Tuesday, ...
    expect(days('2027-03-26T18:00:00.000Z')).toEqual(['2027-03-26', '2027-03-29', '2027-03-30', '2027-03-31', '2027-04-01', '2027-04-02', '2027-04-05', '2027-04-12']);
    // From a Saturday, day 0 is the next sending day.
    expect(days('2027-03-27T10:00:00.000Z')).toEqual(['2027-03-29', '2027-03-29', '2027-03-30', '2027-03-31', '2027-04-01', '2027-04-02', '2027-04-05', '2027-04-12']);
    // Two sending days a week.
    const tuesdayThursday: SendingWindow = { tuesday: NINE_TO_FIVE, thursday: NINE_TO_FIVE };
    expect(days('2027-03-23T10:00:00.000Z', tuesdayThursday)).toEqual([
      '2027-03-23',
      '2027-03-25',
      '2027-03-30',
      '2027-04-01',
      '2027-04-06',
      '2027-04-08',
      '2027-04-13',
      '2027-04-29',
    ]);
  });

  describe('slots of a daily cap', () => {
    const span: OpenSpan = { start: new Date('2027-03-22T08:00:00.000Z'), end: new Date('2027-03-22T16:00:00.000Z'), day: '2027-03-22' };
    const slots = (cap: number, ks: number[]) => ks.map((k) => slotTime(span, k, cap).toISOString());

    it('cuts the span into cap equal slots, the k-th send at the start of the k-th', () => {
      expect(slots(4, [1, 2, 3, 4])).toEqual(['2027-03-22T08:00:00.000Z', '2027-03-22T10:00:00.000Z', '2027-03-22T12:00:00.000Z', '2027-03-22T14:00:00.000Z']);
      expect(slots(3, [1, 2, 3])).toEqual(['2027-03-22T08:00:00.000Z', '2027-03-22T10:40:00.000Z', '2027-03-22T13:20:00.000Z']);
      expect(slots(1, [1])).toEqual(['2027-03-22T08:00:00.000Z']);
      expect(slots(7, [2])).toEqual(['2027-03-22T09:08:34.285Z']);
    });

    it('puts no slot later than 90 s before the span ends: the scheduler, once a minute, must see it while the window is open', () => {
      const short: OpenSpan = { start: new Date('2027-03-22T12:00:00.000Z'), end: new Date('2027-03-22T12:02:00.000Z'), day: '2027-03-22' };
      expect([1, 2, 3, 4, 5].map((k) => slotTime(short, k, 5).toISOString())).toEqual([
        '2027-03-22T12:00:00.000Z',
        '2027-03-22T12:00:24.000Z',
        '2027-03-22T12:00:30.000Z',
        '2027-03-22T12:00:30.000Z',
        '2027-03-22T12:00:30.000Z',
      ]);
      // A span shorter than the margin: its start.
      const minute: OpenSpan = { start: new Date('2027-03-22T12:00:00.000Z'), end: new Date('2027-03-22T12:01:00.000Z'), day: '2027-03-22' };
      expect(slotTime(minute, 2, 2).toISOString()).toBe('2027-03-22T12:00:00.000Z');
      // 8 hours at 500 a day: only the last slot (15:59:02.4) moves back, to 15:58:30.
      expect([499, 500].map((k) => slotTime(span, k, 500).toISOString())).toEqual(['2027-03-22T15:58:04.800Z', '2027-03-22T15:58:30.000Z']);
    });

    it('puts a position beyond the cap at the last slot, and one below 1 at the first', () => {
      expect(slots(4, [5, 9, 100])).toEqual(['2027-03-22T14:00:00.000Z', '2027-03-22T14:00:00.000Z', '2027-03-22T14:00:00.000Z']);
      expect(slots(4, [0])).toEqual(['2027-03-22T08:00:00.000Z']);
    });
  });
});
