import { describe, expect, it } from 'vitest';
import type { ActionRef } from '../../../shared/domain/engine/action';
import type { ActionQueue, DispatchLeases, DueIndex } from '../../../shared/domain/engine/ports';
import { createScheduler } from '../../../shared/domain/engine/scheduler';
import { ManualClock } from '../../../shared/time/clock';

interface LeaseState {
  through?: string;
  fullSweepAt?: string | undefined;
}

/** The due-time index in memory: entries per shard, read in pages of `pageSize` (smaller than asked, as DynamoDB's 1 MB pages are). */
class FakeDueIndex implements DueIndex {
  readonly entries: ActionRef[][];
  readonly reads: { shard: number; upTo: string; after: string | undefined; limit: number; startKey: unknown }[] = [];

  constructor(
    readonly shards: number,
    private readonly pageSize = 1000,
  ) {
    this.entries = Array.from({ length: shards }, () => []);
  }

  async due(shard: number, upTo: string, after: string | undefined, limit: number, startKey?: unknown) {
    this.reads.push({ shard, upTo, after, limit, startKey });
    const due = (this.entries[shard] ?? []).filter((ref) => ref.dueAt <= upTo && (after === undefined || ref.dueAt > after));
    const from = (startKey as number | undefined) ?? 0;
    const to = from + Math.min(limit, this.pageSize);
    return to < due.length ? { refs: due.slice(from, to), next: to } : { refs: due.slice(from) };
  }
}

/** Leases in memory: shards in `held` belong to another run. */
class FakeLeases implements DispatchLeases {
  readonly state = new Map<number, LeaseState>();
  readonly held = new Set<number>();
  readonly takes: { shard: number; now: string; until: string; holder: string }[] = [];
  readonly releases: { shard: number; holder: string; state: LeaseState }[] = [];

  async take(shard: number, now: string, until: string, holder: string) {
    this.takes.push({ shard, now, until, holder });
    if (this.held.has(shard)) return undefined;
    return { ...this.state.get(shard) };
  }

  async release(shard: number, holder: string, state: { through: string; fullSweepAt?: string | undefined }) {
    this.releases.push({ shard, holder, state });
    this.state.set(shard, state);
  }
}

/** The queue in memory: every send's messages, as the prospect ids of each; fails while `failing`. */
class FakeQueue implements ActionQueue {
  readonly sends: number[][][] = [];
  failing = false;

  async send(batches: ActionRef[][]) {
    if (this.failing) throw new Error('SQS is down');
    this.sends.push(batches.map((refs) => refs.map((ref) => ref.prospectId)));
  }
}

const ref = (prospectId: number, dueAt: string): ActionRef => ({ campaignId: 1, prospectId, workspaceId: 1, dueAt });
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

function setUp(shards: number, pageSize?: number) {
  const index = new FakeDueIndex(shards, pageSize);
  const leases = new FakeLeases();
  const queue = new FakeQueue();
  const clock = new ManualClock('2027-03-22T10:00:00.000Z');
  let runs = 0;
  const scheduler = createScheduler({ index, leases, queue, clock, holder: () => `run-${++runs}` });
  return { index, leases, queue, clock, scheduler };
}

describe('the scheduler', () => {
  it('sends the due entries of every shard in messages of 10 refs, and leaves what is not due yet', async () => {
    const { index, leases, queue, scheduler } = setUp(2);
    index.entries[0] = range(1, 23).map((id) => ref(id, '2027-03-22T09:00:00.000Z'));
    index.entries[0].push(ref(99, '2027-03-22T10:00:00.001Z'));
    index.entries[1] = range(101, 3).map((id) => ref(id, '2027-03-22T10:00:00.000Z'));
    expect(await scheduler.run()).toEqual({ dispatched: 26, shardsSkipped: 0 });
    expect(queue.sends).toEqual([[range(1, 10), range(11, 10), range(21, 3)], [[101, 102, 103]]]);
    expect(leases.takes).toEqual([
      { shard: 0, now: '2027-03-22T10:00:00.000Z', until: '2027-03-22T10:01:00.000Z', holder: 'run-1' },
      { shard: 1, now: '2027-03-22T10:00:00.000Z', until: '2027-03-22T10:01:00.000Z', holder: 'run-1' },
    ]);
    expect(index.reads.map((read) => [read.shard, read.upTo, read.after, read.limit])).toEqual([
      [0, '2027-03-22T10:00:00.000Z', undefined, 1000],
      [1, '2027-03-22T10:00:00.000Z', undefined, 1000],
    ]);
  });

  it('skips a shard whose lease another run holds', async () => {
    const { index, leases, queue, scheduler } = setUp(3);
    for (const shard of [0, 1, 2]) index.entries[shard] = [ref(shard + 1, '2027-03-22T09:00:00.000Z')];
    leases.held.add(1);
    expect(await scheduler.run()).toEqual({ dispatched: 2, shardsSkipped: 1 });
    expect(queue.sends).toEqual([[[1]], [[3]]]);
    expect(index.reads.map((read) => read.shard)).toEqual([0, 2]);
    expect(leases.releases.map((release) => release.shard)).toEqual([0, 2]);
  });

  it('reads from the shard’s mark minus 2 minutes after a run, and from the start every 15 minutes', async () => {
    const { index, leases, clock, scheduler } = setUp(1);
    // First run: from the start, and the full sweep is recorded.
    await scheduler.run();
    clock.advance(60_000);
    await scheduler.run();
    clock.set('2027-03-22T10:14:59.999Z');
    await scheduler.run();
    clock.set('2027-03-22T10:15:00.000Z');
    await scheduler.run();
    clock.set('2027-03-22T10:16:00.000Z');
    await scheduler.run();
    expect(index.reads.map((read) => [read.upTo, read.after])).toEqual([
      ['2027-03-22T10:00:00.000Z', undefined],
      ['2027-03-22T10:01:00.000Z', '2027-03-22T09:58:00.000Z'],
      ['2027-03-22T10:14:59.999Z', '2027-03-22T09:59:00.000Z'],
      ['2027-03-22T10:15:00.000Z', undefined],
      ['2027-03-22T10:16:00.000Z', '2027-03-22T10:13:00.000Z'],
    ]);
    expect(leases.releases.map((release) => release.state)).toEqual([
      { through: '2027-03-22T10:00:00.000Z', fullSweepAt: '2027-03-22T10:00:00.000Z' },
      { through: '2027-03-22T10:01:00.000Z', fullSweepAt: '2027-03-22T10:00:00.000Z' },
      { through: '2027-03-22T10:14:59.999Z', fullSweepAt: '2027-03-22T10:00:00.000Z' },
      { through: '2027-03-22T10:15:00.000Z', fullSweepAt: '2027-03-22T10:15:00.000Z' },
      { through: '2027-03-22T10:16:00.000Z', fullSweepAt: '2027-03-22T10:15:00.000Z' },
    ]);
  });

  it('sends an entry written a moment late on the next run, through the overlap', async () => {
    const { index, queue, clock, scheduler } = setUp(1);
    await scheduler.run();
    // Due at 09:59:30, but written after the run at 10:00 read the shard.
    index.entries[0] = [ref(7, '2027-03-22T09:59:30.000Z')];
    clock.advance(60_000);
    expect(await scheduler.run()).toEqual({ dispatched: 1, shardsSkipped: 0 });
    expect(queue.sends).toEqual([[], [[7]]]);
  });

  it('leaves the mark where it was when a send fails, so the next run reads the same entries', async () => {
    const { index, leases, queue, clock, scheduler } = setUp(1);
    index.entries[0] = [ref(1, '2027-03-22T09:00:00.000Z')];
    await scheduler.run();
    index.entries[0].push(ref(2, '2027-03-22T10:00:30.000Z'));
    clock.advance(60_000);
    queue.failing = true;
    await expect(scheduler.run()).rejects.toThrow('SQS is down');
    expect(leases.releases.at(-1)).toEqual({
      shard: 0,
      holder: 'run-2',
      state: { through: '2027-03-22T10:00:00.000Z', fullSweepAt: '2027-03-22T10:00:00.000Z' },
    });
    queue.failing = false;
    clock.advance(60_000);
    expect(await scheduler.run()).toEqual({ dispatched: 1, shardsSkipped: 0 });
    expect(index.reads.map((read) => read.after)).toEqual([undefined, '2027-03-22T09:58:00.000Z', '2027-03-22T09:58:00.000Z']);
    expect(queue.sends).toEqual([[[1]], [[2]]]);
  });

  it('keeps no mark when the first run fails: the next one sweeps from the start', async () => {
    const { index, leases, queue, clock, scheduler } = setUp(1);
    index.entries[0] = [ref(1, '2027-03-22T09:00:00.000Z')];
    queue.failing = true;
    await expect(scheduler.run()).rejects.toThrow('SQS is down');
    expect(leases.releases).toEqual([{ shard: 0, holder: 'run-1', state: { through: '1970-01-01T00:00:00.000Z', fullSweepAt: undefined } }]);
    queue.failing = false;
    clock.advance(60_000);
    expect(await scheduler.run()).toEqual({ dispatched: 1, shardsSkipped: 0 });
    expect(index.reads.map((read) => read.after)).toEqual([undefined, undefined]);
  });

  it('pages through the shard with the index’s next key', async () => {
    const { index, queue, leases, scheduler } = setUp(1, 25);
    index.entries[0] = range(1, 60).map((id) => ref(id, '2027-03-22T09:00:00.000Z'));
    expect(await scheduler.run()).toEqual({ dispatched: 60, shardsSkipped: 0 });
    expect(index.reads.map((read) => read.startKey)).toEqual([undefined, 25, 50]);
    expect(queue.sends).toEqual([
      [range(1, 10), range(11, 10), range(21, 5)],
      [range(26, 10), range(36, 10), range(46, 5)],
      [range(51, 10)],
    ]);
    expect(leases.releases.map((release) => release.state.through)).toEqual(['2027-03-22T10:00:00.000Z']);
  });
  it('a mark ahead of the clock (the clock set back) reads the whole shard: what is due now goes out', async () => {
    const { index, leases, queue, clock, scheduler } = setUp(1);
    leases.state.set(0, { through: '2027-03-25T10:00:00.000Z', fullSweepAt: '2027-03-22T09:59:00.000Z' });
    index.entries[0] = [ref(1, '2027-03-22T09:30:00.000Z'), ref(2, '2027-03-22T10:00:00.001Z')];
    expect(await scheduler.run()).toEqual({ dispatched: 1, shardsSkipped: 0 });
    expect(index.reads.map((read) => read.after)).toEqual([undefined]);
    expect(queue.sends).toEqual([[[1]]]);
    // The mark follows the clock again.
    expect(leases.state.get(0)?.through).toBe(clock.now().toISOString());
  });
});
