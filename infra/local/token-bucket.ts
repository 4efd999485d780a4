import type { Clock } from '../../shared/time/clock';

/**
 * The local gateway's rate limiter: one token bucket per usage identifier, like an API Gateway
 * usage plan. A bucket holds `capacity` tokens (the burst), starts full, and refills continuously
 * at `refillTokens` tokens per `refillMs`; each request takes one. With the per-key defaults
 * (burst 10, 50 per minute): 10 requests at once pass, the 11th is refused, and one more token
 * comes back every 1.2 s, so at most 10 + 50 requests pass in any 60 s and 50 a minute after that.
 */
export interface BucketSettings {
  /** Tokens the bucket holds: the burst. */
  capacity: number;
  /** The refill rate, as whole tokens per whole milliseconds (50 per 60,000 ms), so the arithmetic is exact. */
  refillTokens: number;
  refillMs: number;
}

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  /** The level in 1/refillMs of a token: one millisecond adds `refillTokens` of them, a request takes `refillMs`. */
  units: number;
  updatedAt: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settingsFor: (key: string) => BucketSettings,
    private readonly clock: Clock,
  ) {}

  take(key: string): TakeResult {
    const { capacity, refillTokens, refillMs } = this.settingsFor(key);
    const full = capacity * refillMs;
    const now = this.clock.now().getTime();
    const bucket = this.buckets.get(key) ?? { units: full, updatedAt: now };
    bucket.units = Math.min(full, bucket.units + Math.max(0, now - bucket.updatedAt) * refillTokens);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (bucket.units >= refillMs) {
      bucket.units -= refillMs;
      return { allowed: true };
    }
    // The milliseconds until one whole token is back, rounded up to whole seconds: never shorter
    // than the real wait, so a client that waits Retry-After is let through.
    const waitMs = Math.ceil((refillMs - bucket.units) / refillTokens);
    return { allowed: false, retryAfterSeconds: Math.ceil(waitMs / 1000) };
  }
}
