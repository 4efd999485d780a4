import type { Clock } from '../../shared/time/clock';

/**
 * The local gateway's rate limiter, one per usage identifier.
 *
 * - A token bucket, like an API Gateway usage plan: it holds `capacity` tokens (the burst), starts
 *   full, and refills continuously at `refillTokens` tokens per `refillMs`; each request takes one.
 * - For the per-key plan also a sliding window (`window`): at most `limit` requests in any `ms`.
 *   A bucket alone lets `capacity` + a minute's refill through in a key's first minute (100 with
 *   the defaults, a burst of 50 and 50 a minute); the window makes "50 requests per minute" exact:
 *   the 51st request within 60 s of the first is refused, however fast or slow they came.
 *
 * A request passes only when both allow it, and then takes from both; a refused one takes nothing.
 */
export interface BucketSettings {
  /** Tokens the bucket holds: the burst. */
  capacity: number;
  /** The refill rate, as whole tokens per whole milliseconds (50 per 60,000 ms), so the arithmetic is exact. */
  refillTokens: number;
  refillMs: number;
  /** At most `limit` requests pass in any `ms` milliseconds. */
  window?: { limit: number; ms: number };
}

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** What the local gateway asks of its limiter. */
export interface RateLimiter {
  take(key: string): TakeResult;
}

interface Bucket {
  /** The level in 1/refillMs of a token: one millisecond adds `refillTokens` of them, a request takes `refillMs`. */
  units: number;
  updatedAt: number;
  /** When the requests still inside the window passed, oldest first, from `first` on. */
  passedAt: number[];
  first: number;
}

export class TokenBuckets implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settingsFor: (key: string) => BucketSettings,
    private readonly clock: Clock,
  ) {}

  take(key: string): TakeResult {
    const { capacity, refillTokens, refillMs, window } = this.settingsFor(key);
    const full = capacity * refillMs;
    const now = this.clock.now().getTime();
    const bucket = this.buckets.get(key) ?? { units: full, updatedAt: now, passedAt: [], first: 0 };
    bucket.units = Math.min(full, bucket.units + Math.max(0, now - bucket.updatedAt) * refillTokens);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (window) forgetBefore(bucket, now - window.ms);

    const waits: number[] = [];
    // The milliseconds until one whole token is back.
    if (bucket.units < refillMs) waits.push(Math.ceil((refillMs - bucket.units) / refillTokens));
    // The milliseconds until the oldest request in the window leaves it (at exactly `ms` after it).
    const inWindow = bucket.passedAt.length - bucket.first;
    if (window && inWindow >= window.limit) waits.push((bucket.passedAt[bucket.first] ?? now) + window.ms - now);
    if (waits.length > 0) {
      // Rounded up to whole seconds: never shorter than the real wait, so a client that waits
      // Retry-After is let through.
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(Math.max(...waits) / 1000)) };
    }
    bucket.units -= refillMs;
    if (window) bucket.passedAt.push(now);
    return { allowed: true };
  }
}

/** Drops the requests that passed at or before `cutoff`, keeping the array from growing without end. */
function forgetBefore(bucket: Bucket, cutoff: number): void {
  while (bucket.first < bucket.passedAt.length && (bucket.passedAt[bucket.first] ?? 0) <= cutoff) bucket.first += 1;
  if (bucket.first > 1024 && bucket.first * 2 > bucket.passedAt.length) {
    bucket.passedAt = bucket.passedAt.slice(bucket.first);
    bucket.first = 0;
  }
}
