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

/** A clock that only moves when told to: tests, and any local stack given one. */
export class ManualClock implements Clock {
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
