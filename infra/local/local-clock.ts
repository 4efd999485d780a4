/**
 * `/_local/clock`: the local runtime's clock, read and moved over HTTP (`npm start` only; the
 * deployed stack has no such path, it is not in the route table). Moving it forward lets a person
 * see what the service does a day or a week later without waiting.
 */
export const LOCAL_CLOCK_PATH = '/_local/clock';

/** The most one POST may move the clock by: a year. */
export const MAX_ADVANCE_HOURS = 8760;

/**
 * The most due times one POST steps through before it jumps to its target: a campaign's sends are
 * spread through its window (a slot every few minutes), so a week of a busy campaign is a few hundred.
 */
export const MAX_CLOCK_STEPS = 2000;

/**
 * How long one POST steps a minute at a time past an action still due after its moment was played
 * before passing over it: a crashed claim expires after 10 minutes and the scheduler's full sweep
 * comes every 15, so within 30 minutes anything that can move has moved.
 */
export const STUCK_STEP_MINUTES = 30;

export const LOCAL_CLOCK_ERRORS = {
  advanceHours: `advance_hours must be a positive number of hours (at most ${MAX_ADVANCE_HOURS})`,
  now: 'now must be an ISO time with its zone, e.g. 2030-01-06T09:00:00Z',
  earlier: 'now must not be earlier than the current clock: it only moves forward',
  neither: 'give advance_hours or now',
  both: 'give advance_hours or now, not both',
  notMovable: "This stack's clock cannot be moved",
} as const;

/** An ISO 8601 time with its zone (`Z` or an offset): a time without one would be read as this machine's. */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** The time an ISO text names, or undefined; a day the month does not have (02-30) is no time, not a roll-over. */
function isoTime(text: unknown): Date | undefined {
  const match = typeof text === 'string' ? ISO_TIME.exec(text) : null;
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return undefined;
  const time = new Date(text as string);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

/**
 * Where a POST body moves the clock from `now`: `{advance_hours}` (positive, fractions allowed, at
 * most a year) or `{now}` (an ISO time not earlier than the clock). The new time, or the 400's text.
 */
export function clockTarget(body: unknown, now: Date): { to: Date } | { error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: LOCAL_CLOCK_ERRORS.neither };
  const { advance_hours: hours, now: time } = body as Record<string, unknown>;
  if (hours !== undefined && time !== undefined) return { error: LOCAL_CLOCK_ERRORS.both };
  if (hours !== undefined) {
    if (typeof hours !== 'number' || !Number.isFinite(hours) || hours <= 0 || hours > MAX_ADVANCE_HOURS) {
      return { error: LOCAL_CLOCK_ERRORS.advanceHours };
    }
    return { to: new Date(now.getTime() + Math.round(hours * 3_600_000)) };
  }
  if (time !== undefined) {
    const to = isoTime(time);
    if (!to) return { error: LOCAL_CLOCK_ERRORS.now };
    if (to.getTime() < now.getTime()) return { error: LOCAL_CLOCK_ERRORS.earlier };
    return { to };
  }
  return { error: LOCAL_CLOCK_ERRORS.neither };
}
