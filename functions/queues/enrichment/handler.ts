import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { SettingsOf } from '../../../shared/config/settings';
import type { ChunkRef } from '../../../shared/domain/enrichment/ports';
import { chunkOf } from '../../../shared/messaging/enrichment-queue';
import type { ENRICHMENT } from '../../../shared/runtime/catalog';
import { enrichmentProcessorFrom } from '../../../shared/runtime/enrichment';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';

/**
 * The enrichment worker (consumer of the enrichment queue): works the batch's chunks together
 * (shared/domain/enrichment/processor.ts), so results, counts and refunds are written once per
 * batch. Provider failures are results (refunded); only a storage error fails the batch, whose
 * redelivery charges and writes nothing twice: what was written carries the job's mark and is taken
 * from it, a recorded chunk is only finished (docs/enrichment.md, "Exactly once").
 */
export function buildEnrichmentWorkerHandler(config: SettingsOf<typeof ENRICHMENT.settings>, deps: FunctionDeps) {
  const logger = loggerFor('enrichment-worker', deps);
  const processor = enrichmentProcessorFrom(config, tableAccess(config, deps), deps.clock, logger);
  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    if (context) logger.addContext(context);
    const refs: ChunkRef[] = [];
    const owners: string[] = [];
    for (const record of event.Records) {
      const ref = chunkOf(record.body);
      // Unreadable: the sweeper finds the job's chunks from the table, so dropping it loses nothing.
      if (!ref) {
        logger.warn('Unreadable enrichment message dropped', { messageId: record.messageId });
        continue;
      }
      refs.push(ref);
      owners.push(record.messageId);
    }
    try {
      // Within the function's time: no provider call starts that the time left cannot hold, and a
      // chunk with a prospect left unasked stays PENDING; its message is delivered again (what the
      // chunk wrote is taken from the job's marks then), instead of the whole batch timing out.
      const later = new Set<string>();
      const keyOf = (ref: ChunkRef) => `${ref.jobId}:${ref.listId}:${ref.chunk}`;
      await processor.processChunks(refs, context ? () => context.getRemainingTimeInMillis() : undefined, (ref) => later.add(keyOf(ref)));
      return { batchItemFailures: refs.flatMap((ref, i) => (later.has(keyOf(ref)) ? [{ itemIdentifier: owners[i] as string }] : [])) };
    } catch (error) {
      logger.error('Enrichment batch failed; its messages will be retried', { error: String(error), chunks: refs.length });
      return { batchItemFailures: owners.map((itemIdentifier) => ({ itemIdentifier })) };
    }
  };
}
