import type { Clock } from '../../time/clock';
import type { ActionRef } from './action';
import type { ActionQueue, DispatchLeases, DueIndex } from './ports';

/**
 * The scheduler: every run (each minute in AWS, every few seconds locally, at once when the local
 * clock is moved) sends the actions that have come due to the sender queue. It writes nothing per
 * action: per shard of the due-time index it takes a lease (so two runs never dispatch one shard
 * at once), reads what came due since the shard's high-water mark (minus an overlap that catches
 * entries written a moment late), sends them in messages of ACTIONS_PER_MESSAGE, and moves the
 * mark. Every FULL_SWEEP_MINUTES a run reads the shard from its start instead, which picks up any
 * action whose message was lost or dead-lettered and any claim left by a crash (a claim moves
 * nothing in the index; the sender settles an expired one). The sender dedups: an entry that is
 * stale by the time it is read changes nothing.
 */

export const ACTIONS_PER_MESSAGE = 10;
/** Entries read back behind the shard's mark on every run. */
export const OVERLAP_MS = 2 * 60_000;
export const FULL_SWEEP_MINUTES = 15;
/** A run's lease: longer than any run takes, short enough that a crashed run delays the shard by little. */
export const LEASE_MS = 60_000;
/** Entries read per Query page. */
const PAGE = 1000;

export interface SchedulerDeps {
  index: DueIndex;
  leases: DispatchLeases;
  queue: ActionQueue;
  clock: Clock;
  /** Identifies this run's leases. */
  holder: () => string;
}

export interface DispatchReport {
  dispatched: number;
  shardsSkipped: number;
}

export function createScheduler(deps: SchedulerDeps) {
  async function dispatchShard(shard: number, now: Date, holder: string): Promise<number | undefined> {
    const at = now.toISOString();
    const lease = await deps.leases.take(shard, at, new Date(now.getTime() + LEASE_MS).toISOString(), holder);
    if (!lease) return undefined;
    const full = !lease.fullSweepAt || now.getTime() - new Date(lease.fullSweepAt).getTime() >= FULL_SWEEP_MINUTES * 60_000;
    const mark = lease.through === undefined ? undefined : new Date(lease.through).getTime() - OVERLAP_MS;
    // A mark ahead of this run (the clock was set back: a local runtime restarted before it kept
    // its offset) would be an empty range, which DynamoDB refuses: the run reads the whole shard.
    const after = full || mark === undefined || mark >= now.getTime() ? undefined : new Date(mark).toISOString();
    let dispatched = 0;
    let done = false;
    try {
      let startKey: unknown;
      do {
        const page = await deps.index.due(shard, at, after, PAGE, startKey);
        startKey = page.next;
        const messages: ActionRef[][] = [];
        for (let i = 0; i < page.refs.length; i += ACTIONS_PER_MESSAGE) messages.push(page.refs.slice(i, i + ACTIONS_PER_MESSAGE));
        await deps.queue.send(messages);
        dispatched += page.refs.length;
      } while (startKey !== undefined);
      done = true;
    } finally {
      // A failed run moves nothing: the next one reads the same entries again.
      const moved = { through: at, fullSweepAt: full ? at : lease.fullSweepAt };
      const kept = { through: lease.through ?? new Date(0).toISOString(), fullSweepAt: lease.fullSweepAt };
      await deps.leases.release(shard, holder, done ? moved : kept);
    }
    return dispatched;
  }

  return {
    async run(): Promise<DispatchReport> {
      const now = deps.clock.now();
      const holder = deps.holder();
      const results = await Promise.all(Array.from({ length: deps.index.shards }, (_, shard) => dispatchShard(shard, now, holder)));
      return {
        dispatched: results.reduce<number>((sum, n) => sum + (n ?? 0), 0),
        shardsSkipped: results.filter((n) => n === undefined).length,
      };
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
