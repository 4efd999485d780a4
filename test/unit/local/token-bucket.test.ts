import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../../infra/local/token-bucket';
import { ManualClock } from '../../../shared/time/clock';

/** The per-key defaults: a burst of 10, refilled at 50 a minute (one token every 1.2 s). */
const PER_KEY = { capacity: 10, refillTokens: 50, refillMs: 60_000 };

describe('local token buckets', () => {
  it('allows the burst at once, refuses the next with the wait rounded up, and refills one token every 1.2 s', () => {
    const clock = new ManualClock(0);
    const buckets = new TokenBuckets(() => PER_KEY, clock);
    for (let i = 0; i < 10; i += 1) expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    clock.advance(1_199);
    // 1 ms short of a token: still refused, and the answer is the 1 ms left, rounded up.
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(1);
    expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    // However long it rests, it holds the burst and no more.
    clock.advance(60 * 60_000);
    for (let i = 0; i < 10; i += 1) expect(buckets.take('a').allowed).toBe(true);
    expect(buckets.take('a').allowed).toBe(false);
  });

  it('lets at most burst + 50 through in any 60 s and 50 a minute sustained', () => {
    const clock = new ManualClock(0);
    const buckets = new TokenBuckets(() => PER_KEY, clock);
    const passed: number[] = [];
    // A client asking every 100 ms for 10 minutes.
    for (let at = 0; at < 10 * 60_000; at += 100) {
      clock.set(new Date(at));
      if (buckets.take('a').allowed) passed.push(at);
    }
    const within = (from: number, to: number) => passed.filter((at) => at >= from && at < to).length;
    // The first minute: the 10 of the burst, then one every 1.2 s (at 1.2 s, 2.4 s, ... 58.8 s).
    expect(within(0, 60_000)).toBe(59);
    // The most in any 60 s window: the window from 0 to 60 s inclusive holds the 60th, due at exactly 60 s.
    const most = Math.max(...passed.map((start) => passed.filter((at) => at >= start && at <= start + 60_000).length));
    expect(most).toBe(60);
    // After the first minute: 50 a minute.
    for (let minute = 1; minute < 10; minute += 1) expect(within(minute * 60_000, (minute + 1) * 60_000), `minute ${minute}`).toBe(50);
  });

  it('answers a Retry-After no shorter than the real wait, and less than a second longer', () => {
    for (let offset = 0; offset < 1_200; offset += 7) {
      const clock = new ManualClock(0);
      const buckets = new TokenBuckets(() => PER_KEY, clock);
      for (let i = 0; i < 10; i += 1) buckets.take('a');
      clock.advance(offset);
      const refused = buckets.take('a');
      if (refused.allowed) throw new Error(`allowed at ${offset} ms`);
      // A refused request takes nothing, so stepping a millisecond at a time finds the real wait.
      let waitedMs = 0;
      while (!buckets.take('a').allowed) {
        clock.advance(1);
        waitedMs += 1;
      }
      expect(refused.retryAfterSeconds * 1000, `at ${offset} ms`).toBeGreaterThanOrEqual(waitedMs);
      expect(refused.retryAfterSeconds * 1000 - waitedMs, `at ${offset} ms`).toBeLessThan(1000);
    }
  });

  it('keeps one bucket per key and applies per-key settings', () => {
    const buckets = new TokenBuckets(
      (key) => ({ capacity: key === 'big' ? 3 : 1, refillTokens: key === 'big' ? 3 : 1, refillMs: 60_000 }),
      new ManualClock(0),
    );
    expect(buckets.take('small').allowed).toBe(true);
    expect(buckets.take('small').allowed).toBe(false);
    expect(buckets.take('other').allowed).toBe(true);
    expect([1, 2, 3].map(() => buckets.take('big').allowed)).toEqual([true, true, true]);
    expect(buckets.take('big')).toEqual({ allowed: false, retryAfterSeconds: 20 });
  });
});
