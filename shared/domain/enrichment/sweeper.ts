import type { Clock } from '../ports';
import { chunksOf } from './enrichment-service';
import { completeJob } from './processor';
import type { ChunkQueue, CompletionNotifier, EnrichmentRepository } from './ports';

export interface SweeperDeps {
  jobs: EnrichmentRepository;
  queue: ChunkQueue;
  notifier: CompletionNotifier;
  clock: Clock;
  /** A running job without progress for this long has lost its messages (or its chunks). */
  staleMs: number;
}

/** Jobs looked at in one run. */
const JOBS_PER_RUN = 100;

/**
 * Resumes enrichment jobs from what DynamoDB holds: a job interrupted between its debit and its
 * chunks gets them written; a job whose messages were lost (a restart of the local runtime, a
 * message that went to the DLQ) gets one message per chunk still there; a job whose chunks are all
 * done is completed. Work is idempotent, so a message sent twice costs a read, never a charge.
 */
export function createEnrichmentSweeper(deps: SweeperDeps) {
  return {
    async sweep(): Promise<{ resumed: number; requeued: number; completed: number }> {
      const now = deps.clock.now();
      let resumed = 0;
      let requeued = 0;
      let completed = 0;
      for (const job of await deps.jobs.runningJobs(JOBS_PER_RUN)) {
        if (now.getTime() - Date.parse(job.updatedAt) < deps.staleMs) continue;
        resumed += 1;
        if (!job.chunksWritten) {
          const done = new Set(job.doneChunks);
          await deps.jobs.writeChunks(
            job,
            chunksOf(job).filter((chunk) => !done.has(chunk.chunk)),
          );
          await deps.jobs.markChunksWritten(job);
        }
        const chunks = await deps.jobs.chunksOfJob(job);
        if (chunks.length === 0 && job.doneChunks.length >= job.chunks) {
          if (await completeJob(deps, job, now.toISOString())) completed += 1;
          continue;
        }
        await deps.jobs.touch(job.id, now.toISOString());
        await deps.queue.send(chunks.map((chunk) => ({ jobId: chunk.jobId, listId: chunk.listId, chunk: chunk.chunk })));
        requeued += chunks.length;
      }
      return { resumed, requeued, completed };
    },
  };
}
