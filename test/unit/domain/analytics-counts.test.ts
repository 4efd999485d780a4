import { describe, expect, it } from 'vitest';
import { dayLabel, daysOf, parseRange, percent, replyTime } from '../../../shared/domain/analytics/counts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('analytics counting rules (docs/analytics.md)', () => {
  it('average reply time: rounded down, minutes under an hour, hours under a day, else days, singular for 1', () => {
    expect(replyTime(0, 0)).toBe('N/A');
    expect(replyTime(30_000, 1)).toBe('0 minutes');
    expect(replyTime(MINUTE, 1)).toBe('1 minute');
    expect(replyTime(45 * MINUTE + 59_999, 1)).toBe('45 minutes');
    expect(replyTime(HOUR - 1, 1)).toBe('59 minutes');
    expect(replyTime(HOUR, 1)).toBe('1 hour');
    expect(replyTime(2 * HOUR + 59 * MINUTE, 1)).toBe('2 hours');
    expect(replyTime(DAY - 1, 1)).toBe('23 hours');
    expect(replyTime(DAY, 1)).toBe('1 day');
    expect(replyTime(2 * DAY + 23 * HOUR, 1)).toBe('2 days');
    // The mean of 6 h and 25 h.
    expect(replyTime(31 * HOUR, 2)).toBe('15 hours');
  });

  it('percentages: two decimals, 0 when the divisor is 0', () => {
    expect(percent(1, 3)).toBe(33.33);
    expect(percent(2, 3)).toBe(66.67);
    expect(percent(1, 8)).toBe(12.5);
    expect(percent(5, 0)).toBe(0);
    expect(percent(4, 4)).toBe(100);
  });

  it('days: DD MMM labels, every day of a range in order across months and years', () => {
    expect(dayLabel('2026-11-05')).toBe('05 Nov');
    expect(dayLabel('2027-01-31')).toBe('31 Jan');
    expect(daysOf({ from: '2026-12-30', to: '2027-01-02' })).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
    expect(daysOf({ from: '2026-03-28', to: '2026-03-30' })).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
  });

  it('ranges: both or neither, real dates, in order, at most 366 days counting both ends', () => {
    expect(parseRange(undefined, undefined)).toBeUndefined();
    expect(parseRange('', ' ')).toBeUndefined();
    expect(parseRange('2024-01-01', '2024-12-31')).toEqual({ from: '2024-01-01', to: '2024-12-31' });
    expect(parseRange('2026-11-05', '2026-11-05')).toEqual({ from: '2026-11-05', to: '2026-11-05' });
    const refused = (start: string | undefined, end: string | undefined) => {
      try {
        parseRange(start, end);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refused('2026-11-05', undefined)).toBe('start_date and end_date must be given together');
    expect(refused(undefined, '2026-11-05')).toBe('start_date and end_date must be given together');
    expect(refused('2026-13-01', undefined)).toBe('start_date must be a date as YYYY-MM-DD');
    expect(refused(undefined, '5 Nov')).toBe('end_date must be a date as YYYY-MM-DD');
    expect(refused('2026-2-05', '2026-11-05')).toBe('start_date must be a date as YYYY-MM-DD');
    expect(refused('2025-02-29', '2026-11-05')).toBe('start_date must be a date as YYYY-MM-DD');
    expect(refused('2026-11-05', '2026-13-01')).toBe('end_date must be a date as YYYY-MM-DD');
    expect(refused('2026-11-05', '2026-11-04')).toBe('end_date must not be before start_date');
    expect(refused('2025-01-01', '2026-01-01')).toBe('accepted');
    expect(refused('2025-01-01', '2026-01-02')).toBe('A date range covers at most 366 days');
  });
});
