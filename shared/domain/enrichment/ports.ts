import type { LedgerEntry } from '../credits/credits';
import type { EnrichmentMark } from '../leads/lead';
import type { EnrichmentType, Field, ProspectResult } from './enrichment';

export type JobStatus = 'RUNNING' | 'COMPLETED';

export interface EnrichmentJob {
  id: number;
  workspaceId: number;
  /** Who started it: the completion webhook is signed with their webhook secret. */
  userId: number;
  listId: number;
  type: EnrichmentType;
  mode: 'async' | 'sync';
  status: JobStatus;
  /** Prospects selected and charged for. */
  total: number;
  /** Chunks the selection is cut into (one queue message each). */
  chunks: number;
  /** Whether every chunk item was written (before that, the sweeper writes them from `selection`). */
  chunksWritten: boolean;
  /** Chunks whose results are applied. */
  doneChunks: number[];
  found: number;
  notFound: number;
  duplicate: number;
  failed: number;
  skipped: number;
  /** Credits debited up front. */
  charged: number;
  refunded: number;
  webhookUrl?: string;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  /** The selected prospect ids, in order. */
  selection: number[];
}

export interface ChunkRef {
  jobId: number;
  listId: number;
  chunk: number;
}

export interface EnrichmentChunk extends ChunkRef {
  workspaceId: number;
  type: EnrichmentType;
  prospectIds: number[];
  status: 'PENDING' | 'RESOLVED';
  /** Once RESOLVED: the outcome of every prospect of the chunk. */
  results?: ProspectResult[];
}

export interface ResolvedChunk {
  chunk: EnrichmentChunk;
  results: ProspectResult[];
}

export interface EnrichmentRepository {
  /** The debit, its ledger entry and the job, in one transaction; false when the balance does not cover it. */
  createJob(job: EnrichmentJob, debit: LedgerEntry): Promise<boolean>;
  /** Puts the job's chunk items (again, for the sweeper: those not done yet). */
  writeChunks(job: EnrichmentJob, chunks: EnrichmentChunk[]): Promise<void>;
  markChunksWritten(job: Pick<EnrichmentJob, 'id' | 'workspaceId' | 'chunks'>): Promise<void>;
  /**
   * Takes the workspace's start lease for `holder` if it is free (or expired): one start at a time
   * chooses prospects in a workspace (a prospect is in several lists), so two never charge for the
   * same ones. A lease held by another start is tried again, `attempts` times in all (about 0.4 s
   * apart); `term` gives the time of each try and the lease's end from it. False when still held.
   */
  takeStartLease(workspaceId: number, holder: number, term: () => { now: string; until: string }, attempts: number): Promise<boolean>;
  releaseStartLease(workspaceId: number, holder: number): Promise<void>;
  /**
   * The prospects that the workspace's running jobs hold (strongly consistent): of jobs of any list
   * and field, or only of jobs of `listIds` and/or searching `field`. `list`: a list whose own
   * chunks are read whole (its jobs from before the running-job items included). `since`: also
   * those of jobs that completed at or after that time (a start leaves out what ran while it waited).
   */
  /** `selecting`: for a start or a count, which also holds what a running job's finished chunks searched. */
  busyInWorkspace(workspaceId: number, only?: { listIds?: readonly number[]; field?: Field; list?: number; since?: string; selecting?: boolean }): Promise<Set<number>>;
  /** Chunk items that still exist (strongly consistent). */
  getChunks(refs: ChunkRef[]): Promise<EnrichmentChunk[]>;
  chunksOfJob(job: Pick<EnrichmentJob, 'id' | 'listId'>): Promise<EnrichmentChunk[]>;
  getJob(jobId: number): Promise<EnrichmentJob | undefined>;
  /**
   * Leaves the job's mark (`emailEnrichment` or `phoneEnrichment`, by the field searched) on
   * prospects it searched and charged for without writing a value (not found, duplicate): each one
   * conditional on the version read, moving it on. Returns the ids
   * whose version had moved (nothing written to them).
   */
  mark(field: Field, prospects: { id: number; version: number; mark: EnrichmentMark }[]): Promise<Set<number>>;
  /**
   * Records the results of a job's chunks, moves the job's counts and refunds what the policy
   * gives back with its ledger entry: one transaction, only for chunks still PENDING. False when
   * one of them was resolved meanwhile (nothing written).
   */
  resolve(job: EnrichmentJob, chunks: ResolvedChunk[], counts: JobCounts, refund: LedgerEntry | undefined, at: string): Promise<boolean>;
  /** Records progress on the job (the sweeper leaves it alone for a while). */
  touch(jobId: number, at: string): Promise<void>;
  /** Lets go of prospects a job of the layout before 2026-11-26 claimed (`enrichJob`) and did not write. */
  release(jobId: number, prospectIds: number[]): Promise<void>;
  /** Deletes applied chunks and counts them done on the job; the job as it is after. */
  finishChunks(job: EnrichmentJob, chunks: number[]): Promise<EnrichmentJob | undefined>;
  /** Marks the job COMPLETED once every chunk is done; true for the one call that did. */
  complete(job: EnrichmentJob, at: string): Promise<boolean>;
  /** Running jobs, oldest first. */
  runningJobs(limit: number): Promise<EnrichmentJob[]>;
}

export interface JobCounts {
  found: number;
  notFound: number;
  duplicate: number;
  failed: number;
  skipped: number;
  refunded: number;
}

export interface ChunkQueue {
  send(refs: ChunkRef[]): Promise<void>;
}

/** The completion event (published on the webhooks queue to the job's webhook_url). */
export interface CompletionNotifier {
  jobCompleted(job: EnrichmentJob): Promise<void>;
}
