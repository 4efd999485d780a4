import { describe, expect, it } from 'vitest';
import { type RequestLeases, whileHolding } from '../../../shared/domain/request-leases';
import { ManualClock } from '../../../shared/time/clock';

/** Leases in memory: `taken` says whether a take succeeds; every call is recorded. */
function leasesThat(taken: boolean) {
  const calls: string[] = [];
  const holders: string[] = [];
  const leases: RequestLeases = {
    async take(name, holder, term, attempts) {
      calls.push(`take ${name} until ${term().until} (${attempts} tries)`);
      holders.push(holder);
      return taken;
    },
    async release(name, holder) {
      calls.push(`release ${name}`);
      holders.push(holder);
    },
  };
  return { leases, calls, holders };
}

const rules = { termMs: 30_000, attempts: 45, busy: 'Busy: send it again' };
const clock = new ManualClock('2026-11-27T09:00:00.000Z');

describe('whileHolding', () => {
  it('runs the work between the take and the release, and answers what it answers', async () => {
    const { leases, calls, holders } = leasesThat(true);
    const result = await whileHolding(leases, clock, 'THING#1', rules, async () => {
      calls.push('work');
      return 42;
    });
    expect(result).toBe(42);
    expect(calls).toEqual(['take THING#1 until 2026-11-27T09:00:30.000Z (45 tries)', 'work', 'release THING#1']);
    // Given back by the holder that took it.
    expect(holders[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(holders[1]).toBe(holders[0]);
  });

  it('gives the lease back when the work fails', async () => {
    const { leases, calls } = leasesThat(true);
    await expect(whileHolding(leases, clock, 'THING#2', rules, async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(calls.at(-1)).toBe('release THING#2');
  });

  it('answers the work’s result when the release fails: the lease lapses at its term, and a change made is not a 500', async () => {
    const { leases, calls } = leasesThat(true);
    leases.release = async (name) => {
      calls.push(`release ${name} failed`);
      throw new Error('ProvisionedThroughputExceededException');
    };
    expect(await whileHolding(leases, clock, 'THING#4', rules, async () => 'moved')).toBe('moved');
    expect(calls.at(-1)).toBe('release THING#4 failed');
    await expect(whileHolding(leases, clock, 'THING#5', rules, async () => Promise.reject(new Error('own error')))).rejects.toThrow('own error');
  });

  it('a lease still taken after the tries: 409 with the busy text, no work, no release', async () => {
    const { leases, calls } = leasesThat(false);
    let worked = false;
    const failure = whileHolding(leases, clock, 'THING#3', rules, async () => {
      worked = true;
    });
    await expect(failure).rejects.toMatchObject({ kind: 'conflict', message: 'Busy: send it again' });
    expect(worked).toBe(false);
    expect(calls).toEqual(['take THING#3 until 2026-11-27T09:00:30.000Z (45 tries)']);
  });
});
