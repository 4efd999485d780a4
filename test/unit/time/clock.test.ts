import { describe, expect, it } from 'vitest';
import { ManualClock, type MovableClock, OffsetClock, isMovableClock, systemClock } from '../../../shared/time/clock';

describe('clocks', () => {
  it("OffsetClock runs with its base clock's time plus an offset that only grows", () => {
    const base = new ManualClock('2025-03-01T08:00:00.000Z');
    const clock = new OffsetClock(base);
    expect(clock.now().toISOString()).toBe('2025-03-01T08:00:00.000Z');
    base.advance(1_000);
    expect(clock.now().toISOString()).toBe('2025-03-01T08:00:01.000Z');

    clock.advance(36 * 3_600_000);
    expect(clock.now().toISOString()).toBe('2025-03-02T20:00:01.000Z');
    base.advance(500);
    expect(clock.now().toISOString()).toBe('2025-03-02T20:00:01.500Z');

    clock.set(new Date('2025-03-10T00:00:00.000Z'));
    expect(clock.now().toISOString()).toBe('2025-03-10T00:00:00.000Z');
    // Setting it to now is no move; the base keeps running under the offset.
    clock.set(new Date('2025-03-10T00:00:00.000Z'));
    base.advance(2_000);
    expect(clock.now().toISOString()).toBe('2025-03-10T00:00:02.000Z');
  });

  it('OffsetClock refuses to go back, and changes nothing when it refuses', () => {
    const base = new ManualClock('2025-03-01T08:00:00.000Z');
    const clock = new OffsetClock(base);
    clock.advance(3_600_000);
    expect(() => clock.set(new Date('2025-03-01T08:59:59.999Z'))).toThrow('The clock only moves forward');
    expect(() => clock.set(new Date('not a time'))).toThrow('The clock only moves forward');
    expect(() => clock.advance(-1)).toThrow('The clock only moves forward');
    expect(() => clock.advance(Number.NaN)).toThrow('The clock only moves forward');
    expect(() => clock.advance(Number.POSITIVE_INFINITY)).toThrow('The clock only moves forward');
    expect(clock.now().toISOString()).toBe('2025-03-01T09:00:00.000Z');
  });

  it('OffsetClock resumes from a kept offset and reports each move, not a refused one', () => {
    const base = new ManualClock('2025-03-01T08:00:00.000Z');
    const kept: number[] = [];
    const clock = new OffsetClock(base, { offsetMs: 48 * 3_600_000, onMove: (offset) => kept.push(offset) });
    expect(clock.now().toISOString()).toBe('2025-03-03T08:00:00.000Z');
    expect(clock.offsetMs).toBe(48 * 3_600_000);
    clock.advance(3_600_000);
    clock.set(new Date('2025-03-04T00:00:00.000Z'));
    expect(() => clock.set(new Date('2025-03-01T00:00:00.000Z'))).toThrow('The clock only moves forward');
    expect(kept).toEqual([49 * 3_600_000, 64 * 3_600_000]);
    expect(() => new OffsetClock(base, { offsetMs: -1 })).toThrow('The clock only moves forward');
  });

  it('OffsetClock starts at the system time', () => {
    const before = systemClock.now().getTime();
    const now = new OffsetClock().now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now - before).toBeLessThan(1_000);
  });

  it('tells movable clocks (ManualClock, OffsetClock) from one that can only be read', () => {
    const movable: MovableClock[] = [new ManualClock(0), new OffsetClock()];
    for (const clock of movable) expect(isMovableClock(clock)).toBe(true);
    expect(isMovableClock(systemClock)).toBe(false);
    expect(isMovableClock({ now: () => new Date(0) })).toBe(false);
  });
});
