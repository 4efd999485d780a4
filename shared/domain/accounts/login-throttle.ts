import { isDomainError, rateLimited } from '../errors';
import type { Clock } from '../ports';

/**
 * Login throttling (docs/rate-limits.md, "Login"). Two limits, both held in the table so they apply
 * across Lambda instances, both answered `429 {"error":"Too many login attempts"}` with Retry-After:
 *
 * - per (email, IP address): from the `failuresBeforeDelay`th failed attempt on, the next attempt
 *   must wait 2^(failures - failuresBeforeDelay) seconds, at most `maxDelaySeconds`. A success
 *   starts over. Per pair rather than per account: a lockout per account would let anyone lock
 *   any user out by failing on purpose; here a stranger's failures only slow the stranger.
 * - per IP address: at most `failuresPerIpPerHour` failed attempts in each clock hour, whatever
 *   the emails (one address trying many accounts).
 *
 * Both are checked, and the attempt counted, before the password is verified, so a refused attempt
 * costs no password hash. The count and the wait after it are written together, before the check,
 * as if it fails: of attempts sent at once, each takes a count of its own until one sets a wait, and
 * the rest are refused, so a burst gets the free attempts and one more. A success gives its counts back.
 */
export const TOO_MANY_LOGIN_ATTEMPTS = 'Too many login attempts';

/**
 * A pair's count is forgotten a day after its last attempt (longer than the longest delay, so a
 * patient attacker still climbs to it; short enough that a user who mistyped yesterday starts over).
 */
export const LOGIN_ATTEMPTS_MEMORY_SECONDS = 24 * 60 * 60;

export interface LoginThrottlePolicy {
  /** Failed attempts of one (email, IP) pair allowed before any delay. */
  failuresBeforeDelay: number;
  /** The longest delay of one pair, in seconds. */
  maxDelaySeconds: number;
  /** Failed attempts one IP address may make in a clock hour. */
  failuresPerIpPerHour: number;
}

/** How long after its `attempts`th unsuccessful attempt a pair must wait, in milliseconds. */
export function loginDelayMs(attempts: number, policy: LoginThrottlePolicy): number {
  if (attempts < policy.failuresBeforeDelay) return 0;
  // 2^k overflows to Infinity long after the cap, so the cap always applies.
  return Math.min(2 ** (attempts - policy.failuresBeforeDelay), policy.maxDelaySeconds) * 1000;
}

/** The (email, IP) counts: attempts since the pair's last success, and until when the pair waits. */
export interface LoginAttemptStore {
  /**
   * Counts one attempt unless the pair must still wait, and in the same write makes the pair wait
   * `waitAfterMs(attempts)` after it: the attempt's number since the last success, or the time the
   * pair may try again.
   */
  claim(
    normalizedEmail: string,
    ip: string,
    now: Date,
    waitAfterMs: (attempts: number) => number,
  ): Promise<{ claimed: true; attempts: number } | { claimed: false; until: Date }>;
  /** Forgets the pair's attempts (a success). */
  clear(normalizedEmail: string, ip: string): Promise<void>;
}

/** The per-IP count of failed attempts in fixed windows (the table's request counters). */
export interface AttemptWindow {
  take(ip: string, now: Date): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  giveBack(ip: string, takenAt: Date): Promise<void>;
}

export interface LoginThrottleDeps {
  pairs: LoginAttemptStore;
  perIp: AttemptWindow;
  clock: Clock;
  policy: LoginThrottlePolicy;
}

export function createLoginThrottle(deps: LoginThrottleDeps) {
  return {
    /**
     * Runs `attempt` (the password check and what follows) under both limits. An `unauthenticated`
     * error from it is a failure and stays counted; anything else (a success, or an error after the
     * password matched, such as an account without a workspace) gives the counts back.
     */
    async guard<T>(normalizedEmail: string, ip: string, attempt: () => Promise<T>): Promise<T> {
      const now = deps.clock.now();
      const perIp = await deps.perIp.take(ip, now);
      if (!perIp.allowed) throw rateLimited(TOO_MANY_LOGIN_ATTEMPTS, perIp.retryAfterSeconds);

      // The wait is held before the check, as if it fails: a parallel attempt cannot slip in while it runs.
      const pair = await deps.pairs.claim(normalizedEmail, ip, now, (attempts) => loginDelayMs(attempts, deps.policy));
      if (!pair.claimed) {
        // Refused before any password check: not a failed attempt of this address.
        await deps.perIp.giveBack(ip, now);
        throw rateLimited(TOO_MANY_LOGIN_ATTEMPTS, Math.max(1, Math.ceil((pair.until.getTime() - now.getTime()) / 1000)));
      }

      try {
        const result = await attempt();
        await Promise.all([deps.pairs.clear(normalizedEmail, ip), deps.perIp.giveBack(ip, now)]);
        return result;
      } catch (error) {
        if (!(isDomainError(error) && error.kind === 'unauthenticated')) {
          await Promise.all([deps.pairs.clear(normalizedEmail, ip), deps.perIp.giveBack(ip, now)]);
        }
        throw error;
      }
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
