/**
 * The one source of the current time. Each Lambda entry (and the local runtime) creates a clock
 * once and its builder passes it down to services and repositories, so code that decides by time
 * is tested by moving a clock, never by sleeping. Nothing else reads the system time.
 */
export interface Clock {
  now(): Date;
}

/** The machine's time: what the Lambda entries and `npm start` use. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that can be moved on purpose: the local runtime's `/_local/clock` moves one. */
export interface MovableClock extends Clock {
  advance(milliseconds: number): void;
  set(to: Date): void;
}

/** Whether the clock can be moved (a ManualClock or an OffsetClock), not just read. */
export const isMovableClock = (clock: Clock): clock is MovableClock =>
  typeof (clock as Partial<MovableClock>).advance === 'function' && typeof (clock as Partial<MovableClock>).set === 'function';

/**
 * The machine's time plus an offset that only grows: `npm start`'s clock. Time runs on as usual
 * and can be moved forward (to see what a day or a week later does), never back, so nothing the
 * service wrote ever lies in its future.
 */
export class OffsetClock implements MovableClock {
  private offset: number;

  /**
   * `offsetMs`: where an earlier run left the offset, so a restart resumes no earlier than the
   * time that run showed (the data it wrote is dated by it). `onMove` gets each new offset, to
   * keep it.
   */
  constructor(
    private readonly base: Clock = systemClock,
    private readonly options: { offsetMs?: number; onMove?: (offsetMs: number) => void } = {},
  ) {
    const offset = options.offsetMs ?? 0;
    if (!Number.isFinite(offset) || offset < 0) throw new RangeError('The clock only moves forward');
    this.offset = offset;
  }

  /** How far ahead of the base clock it is. */
  get offsetMs(): number {
    return this.offset;
  }

  now(): Date {
    return new Date(this.base.now().getTime() + this.offset);
  }

  /** Moves forward by `milliseconds` (a finite number from 0). */
  advance(milliseconds: number): void {
    if (!Number.isFinite(milliseconds) || milliseconds < 0) throw new RangeError('The clock only moves forward');
    this.offset += milliseconds;
    this.options.onMove?.(this.offset);
  }

  /** Moves forward to `to`; an earlier time than now is refused. */
  set(to: Date): void {
    const ahead = to.getTime() - this.now().getTime();
    if (Number.isNaN(ahead) || ahead < 0) throw new RangeError('The clock only moves forward');
    this.offset += ahead;
    this.options.onMove?.(this.offset);
  }
}

/** A clock that only moves when told to: tests, and any local stack given one. */
export class ManualClock implements MovableClock {
  private current: number;

  constructor(start: Date | string | number = systemClock.now()) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(to: Date | string | number): void {
    this.current = new Date(to).getTime();
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}
