import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../../infra/local/token-bucket';
import { ManualClock } from '../../../shared/time/clock';

describe('local token buckets', () => {
  it('allows the capacity at once, refuses the next, and refills continuously', () => {
    const clock = new ManualClock(0);
    const buckets = new TokenBuckets(() => ({ capacity: 50, windowMs: 60_000 }), clock);
    for (let i = 0; i < 50; i += 1) expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    clock.advance(1_199);
    expect(buckets.take('a').allowed).toBe(false);
    clock.advance(1);
    expect(buckets.take('a').allowed).toBe(true);
    clock.advance(60 * 60_000);
    for (let i = 0; i < 50; i += 1) expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a').allowed).toBe(false);
  });

  it('keeps one bucket per key and applies per-key settings', () => {
    const buckets = new TokenBuckets((key) => ({ capacity: key === 'big' ? 3 : 1, windowMs: 60_000 }), new ManualClock(0));
    expect(buckets.take('small').allowed).toBe(true);
    expect(buckets.take('small').allowed).toBe(false);
    expect(buckets.take('other').allowed).toBe(true);
    expect([1, 2, 3].map(() => buckets.take('big').allowed)).toEqual([true, true, true]);
    expect(buckets.take('big')).toEqual({ allowed: false, retryAfterSeconds: 20 });
  });
});
