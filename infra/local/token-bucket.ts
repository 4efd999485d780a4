import type { Clock } from '../../shared/time/clock';

/**
 * The local gateway's rate limiter: one token bucket per usage identifier, like an API Gateway
 * usage plan. A bucket holds `capacity` tokens, starts full, and refills continuously at
 * `capacity` tokens per `windowMs`; each request takes one. With the default 50 per minute:
 * 50 requests at once pass, the 51st is refused, and one more token comes back every 1.2 s.
 */
export interface BucketSettings {
  capacity: number;
  windowMs: number;
}

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settingsFor: (key: string) => BucketSettings,
    private readonly clock: Clock,
  ) {}

  take(key: string): TakeResult {
    const { capacity, windowMs } = this.settingsFor(key);
    const refillPerMs = capacity / windowMs;
    const now = this.clock.now().getTime();
    const bucket = this.buckets.get(key) ?? { tokens: capacity, updatedAt: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.updatedAt) * refillPerMs);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000)) };
  }
}
