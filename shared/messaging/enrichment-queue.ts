import * as v from 'valibot';
import type { ChunkQueue, ChunkRef } from '../domain/enrichment/ports';
import { type SqsSender, sendJsonMessages } from './sqs';

/** An enrichment message: one chunk of a job (its items hold the prospects), in short field names. */
const EnrichmentMessage = v.object({
  j: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  l: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  c: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
});

export const toChunkMessage = (ref: ChunkRef) => ({ j: ref.jobId, l: ref.listId, c: ref.chunk });

/** The chunk a message names; undefined for a message that is not one (a poison message). */
export function chunkOf(body: string): ChunkRef | undefined {
  try {
    const parsed = v.safeParse(EnrichmentMessage, JSON.parse(body));
    return parsed.success ? { jobId: parsed.output.j, listId: parsed.output.l, chunk: parsed.output.c } : undefined;
  } catch {
    return undefined;
  }
}

const PARALLEL_CALLS = 8;

export function sqsChunkQueue(sqs: SqsSender, queueUrl: string): ChunkQueue {
  return {
    async send(refs) {
      const calls: ChunkRef[][] = [];
      for (let i = 0; i < refs.length; i += 10) calls.push(refs.slice(i, i + 10));
      for (let i = 0; i < calls.length; i += PARALLEL_CALLS) {
        await Promise.all(calls.slice(i, i + PARALLEL_CALLS).map((chunk) => sendJsonMessages(sqs, queueUrl, chunk.map(toChunkMessage))));
      }
    },
  };
}
