import { describe, expect, it } from 'vitest';
import { OUTCOME_RETRY_BACKOFF_MS, tryAgainOnFailure } from '../../../shared/domain/engine/answered-writes';

describe('the outcome record of an answered send, tried again', () => {
  /** A write that fails `failures` times, then answers; the waits it was given. */
  function flaky(failures: number) {
    const waits: number[] = [];
    let calls = 0;
    const write = async () => {
      calls += 1;
      if (calls <= failures) throw new Error(`table down (${calls})`);
      return 'recorded';
    };
    return { write, waits, wait: async (ms: number) => void waits.push(ms), calls: () => calls };
  }

  it('is written at once when the table answers', async () => {
    const { write, waits, wait, calls } = flaky(0);
    expect(await tryAgainOnFailure(write, OUTCOME_RETRY_BACKOFF_MS, wait)).toBe('recorded');
    expect([calls(), waits]).toEqual([1, []]);
  });

  it('goes through after failures, waiting 250 ms, then 1 s', async () => {
    const { write, waits, wait, calls } = flaky(2);
    expect(await tryAgainOnFailure(write, OUTCOME_RETRY_BACKOFF_MS, wait)).toBe('recorded');
    expect([calls(), waits]).toEqual([3, [250, 1_000]]);
  });

  it('fails with the last error after the third try, so the delivery fails and the crash rule settles it', async () => {
    const { write, waits, wait, calls } = flaky(3);
    await expect(tryAgainOnFailure(write, OUTCOME_RETRY_BACKOFF_MS, wait)).rejects.toThrow('table down (3)');
    expect([calls(), waits]).toEqual([3, [250, 1_000]]);
  });
});
