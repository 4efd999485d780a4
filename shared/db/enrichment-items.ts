import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import * as v from 'valibot';
import { ENRICHMENT_TYPES, type ProspectResult, fieldOf } from '../domain/enrichment/enrichment';
import type { EnrichmentChunk, EnrichmentJob } from '../domain/enrichment/ports';
import { idSet, intAttribute, itemSchema, parseItem } from './item-schema';
import { enrichmentChunkKey, enrichmentCompletedKey, enrichmentJobKey, enrichmentJobRunning, enrichmentRunningKey } from './keys';

/** The enrichment job and chunk items: their schemas, and the conversions to and from the domain's records. */

const FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };
export const pack = (value: unknown) => brotliCompressSync(JSON.stringify(value), FAST);
const unpack = (bytes: Uint8Array<ArrayBuffer>) => JSON.parse(brotliDecompressSync(bytes).toString('utf8')) as unknown;

const bytesOf = <T>(schema: v.GenericSchema<unknown, T>) =>
  v.pipe(
    v.instance(Uint8Array),
    v.transform(unpack),
    schema,
  );

const Result = v.object({
  prospectId: intAttribute,
  outcome: v.picklist(['found', 'not_found', 'duplicate', 'failed', 'skipped']),
  value: v.optional(v.string()),
  verification: v.optional(v.picklist(['verified', 'risky'])),
  provider: v.optional(v.string()),
  duplicateOf: v.optional(intAttribute),
  firstName: v.optional(v.string()),
  lastName: v.optional(v.string()),
});

export const EnrichmentJobItem = itemSchema(
  'EnrichmentJob',
  v.object({
    id: intAttribute,
    workspaceId: intAttribute,
    userId: intAttribute,
    listId: intAttribute,
    type: v.picklist(ENRICHMENT_TYPES),
    mode: v.picklist(['async', 'sync']),
    status: v.picklist(['RUNNING', 'COMPLETED']),
    total: intAttribute,
    chunks: intAttribute,
    chunksWritten: v.boolean(),
    doneChunks: v.optional(idSet, new Set<number>()),
    found: intAttribute,
    notFound: intAttribute,
    duplicate: intAttribute,
    failed: intAttribute,
    skipped: intAttribute,
    charged: intAttribute,
    refunded: intAttribute,
    webhookUrl: v.optional(v.string()),
    createdAt: v.string(),
    updatedAt: v.string(),
    completedAt: v.optional(v.string()),
    selection: bytesOf(v.array(intAttribute)),
  }),
);

export const EnrichmentChunkItem = itemSchema(
  'EnrichmentChunk',
  v.object({
    jobId: intAttribute,
    listId: intAttribute,
    chunk: intAttribute,
    workspaceId: intAttribute,
    type: v.picklist(ENRICHMENT_TYPES),
    prospectIds: v.array(intAttribute),
    status: v.picklist(['PENDING', 'RESOLVED']),
    results: v.optional(bytesOf(v.array(Result))),
  }),
);

export const toJob = (item: Record<string, unknown>): EnrichmentJob => {
  const parsed = parseItem(EnrichmentJobItem, item);
  const { doneChunks, ...rest } = parsed;
  const job: EnrichmentJob = { ...rest, doneChunks: [...(doneChunks as unknown as Iterable<number>)] } as EnrichmentJob;
  if (job.webhookUrl === undefined) delete job.webhookUrl;
  if (job.completedAt === undefined) delete job.completedAt;
  return job;
};

export const toChunk = (item: Record<string, unknown>): EnrichmentChunk => {
  const parsed = parseItem(EnrichmentChunkItem, item);
  const { results, ...rest } = parsed;
  return { ...rest, ...(results ? { results: results as ProspectResult[] } : {}) };
};

/** A running job in its workspace's partition (deleted when the job completes). */
export function runningItem(job: EnrichmentJob) {
  return {
    ...enrichmentRunningKey(job.workspaceId, job.id),
    entityType: 'EnrichmentRunning',
    jobId: job.id,
    listId: job.listId,
    field: fieldOf(job.type),
    createdAt: job.createdAt,
  };
}

/** How long a completed job keeps its prospects out of the starts that waited while it ran. */
export const COMPLETED_JOB_KEPT_SECONDS = 15 * 60;

/** A job that completed at `at`, in its workspace's partition until its TTL (its selection stays on the job). */
export function completedItem(job: EnrichmentJob, at: string) {
  return {
    ...enrichmentCompletedKey(job.workspaceId, at, job.id),
    entityType: 'EnrichmentCompleted',
    jobId: job.id,
    field: fieldOf(job.type),
    ttl: Math.floor(Date.parse(at) / 1000) + COMPLETED_JOB_KEPT_SECONDS,
  };
}

export function jobItem(job: EnrichmentJob) {
  const { doneChunks: _done, selection, webhookUrl, completedAt, ...rest } = job;
  return {
    ...enrichmentJobKey(job.id),
    ...(job.status === 'RUNNING' ? enrichmentJobRunning(job.createdAt, job.id) : {}),
    entityType: 'EnrichmentJob',
    ...rest,
    ...(webhookUrl ? { webhookUrl } : {}),
    ...(completedAt ? { completedAt } : {}),
    selection: pack(selection),
  };
}

export const chunkItem = (chunk: EnrichmentChunk) => ({
  ...enrichmentChunkKey(chunk.listId, chunk.jobId, chunk.chunk),
  entityType: 'EnrichmentChunk',
  jobId: chunk.jobId,
  listId: chunk.listId,
  chunk: chunk.chunk,
  workspaceId: chunk.workspaceId,
  type: chunk.type,
  prospectIds: chunk.prospectIds,
  status: chunk.status,
});
