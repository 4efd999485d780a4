import { type DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { LedgerEntry } from '../domain/credits/credits';
import { type Field, MARK_ATTRIBUTE, fieldOf } from '../domain/enrichment/enrichment';
import type { ChunkRef, EnrichmentChunk, EnrichmentJob, EnrichmentRepository, JobCounts, ResolvedChunk } from '../domain/enrichment/ports';
import type { EnrichmentMark } from '../domain/leads/lead';
import { batchGetAll } from './batch-get';
import { type WriteRequest, batchWriteAll } from './batch-write';
import { cancellationReasons, isConditionFailed, queryAll } from './client';
import { balanceMove, ledgerPut } from './credit-repository';
import { DynamoRequestLeases } from './request-leases';
import { chunkItem, completedItem, jobItem, pack, runningItem, toChunk, toJob } from './enrichment-items';
import { ENRICHMENT_CHUNK_PREFIX, enrichmentChunkKey, enrichmentCompletedKey, enrichmentJobKey, enrichmentJobRunning, enrichmentRunningKey, enrichmentStartKey, padId, prospectKey } from './keys';

/** What a chunk item tells of the prospects it holds: its job (in its key), its ids, its type. */
const HELD_PROJECTION = { expression: 'sk, prospectIds, #type', names: { '#type': 'type' } };

/** Single conditional updates (marks, releases) in flight at once. */
const UPDATES_IN_FLIGHT = 16;

export class DynamoEnrichmentRepository implements EnrichmentRepository {
  /** One start at a time chooses prospects in a workspace (its lease is named by the workspace id). */
  private readonly startLeases: DynamoRequestLeases;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.startLeases = new DynamoRequestLeases(db, tableName, {
      key: (workspaceId) => enrichmentStartKey(Number(workspaceId)),
      entityType: 'EnrichmentStartLease',
      waitCeilingMs: 500,
    });
  }

  async createJob(job: EnrichmentJob, debit: LedgerEntry): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            balanceMove(this.tableName, job.workspaceId, debit.amount),
            ledgerPut(this.tableName, debit),
            { Put: { TableName: this.tableName, Item: jobItem(job), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: this.tableName, Item: runningItem(job) } },
          ],
        }),
      );
      return true;
    } catch (error) {
      // First: did it land? The job's id is new, so a job item under it is this transaction's (its
      // answer lost, or the SDK's own second send refused by the first's writes: the balance
      // lowered, the job there), and the credits were taken with it.
      const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: enrichmentJobKey(job.id), ConsistentRead: true, ProjectionExpression: 'id' }));
      if (Item) return true;
      if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  async writeChunks(_job: EnrichmentJob, chunks: EnrichmentChunk[]): Promise<void> {
    const requests: WriteRequest[][] = chunks.map((chunk) => [{ PutRequest: { Item: chunkItem(chunk) } }]);
    await batchWriteAll(this.db, this.tableName, requests);
  }

  async markChunksWritten(job: Pick<EnrichmentJob, 'id' | 'workspaceId' | 'chunks'>): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: enrichmentJobKey(job.id),
        UpdateExpression: 'SET chunksWritten = :yes',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':yes': true },
      }),
    );
    // The running item says so too, with how many, so that a start need not read the job to know
    // its chunks are all there (busyInWorkspace). Gone already (the job completed): nothing to say.
    // Not written (a failure): a start reads the job, which says it.
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: enrichmentRunningKey(job.workspaceId, job.id),
          UpdateExpression: 'SET chunksWritten = :yes, chunks = :chunks',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':yes': true, ':chunks': job.chunks },
        }),
      )
      .catch(() => undefined);
  }

  async takeStartLease(workspaceId: number, holder: number, term: () => { now: string; until: string }, attempts: number): Promise<boolean> {
    return this.startLeases.take(String(workspaceId), holder, term, attempts);
  }

  async releaseStartLease(workspaceId: number, holder: number): Promise<void> {
    await this.startLeases.release(String(workspaceId), holder);
  }

  async busyInWorkspace(workspaceId: number, only: { listIds?: readonly number[]; field?: Field; list?: number; since?: string; selecting?: boolean } = {}): Promise<Set<number>> {
    const wanted = (listId: number, field: Field) =>
      (only.listIds === undefined || only.listIds.includes(listId)) && (only.field === undefined || field === only.field);
    const chunksOf = (listId: number, jobId?: number) => this.chunkItems(listId, jobId, HELD_PROJECTION);
    // `list`'s chunks are read whole: every job there, those started before the running-job items too.
    const ownList = only.list !== undefined && (only.listIds === undefined || only.listIds.includes(only.list));
    const [running, listChunks] = await Promise.all([
      queryAll(this.db, {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': enrichmentRunningKey(workspaceId, 0).pk },
        ConsistentRead: true,
      }),
      ownList ? chunksOf(only.list as number) : Promise.resolve([]),
    ]);
    const jobOfChunk = (item: Record<string, unknown>) => Number(String(item.sk).split('#')[1]);
    const inList = new Set(listChunks.map(jobOfChunk));
    const held = await Promise.all(
      running
        .map((item) => ({
          id: item.jobId as number,
          listId: item.listId as number,
          field: item.field as Field,
          chunksWritten: item.chunksWritten === true,
          chunks: typeof item.chunks === 'number' ? item.chunks : undefined,
        }))
        .filter((job) => wanted(job.listId, job.field))
        .map(async (job) => {
          // Chunks of this list's jobs are in listChunks already.
          const own = job.listId === only.list || inList.has(job.id);
          const chunks = own ? [] : await chunksOf(job.listId, job.id);
          // A job whose chunk items are not all written (a start that stopped between its debit and
          // its chunks, or part-way through writing them: the sweeper writes the rest later) holds
          // its whole selection, not only the chunks there are.
          if (!job.chunksWritten) return [...chunks, ...(await this.selectionWhileRunning(job.id, { unwrittenOnly: !only.selecting }))];
          // For a selection (a start, a count), so does one with chunks finished (their items
          // deleted) before it completed: those prospects were searched and charged by it, and until
          // its completion item says so they would look free (a start then charged them again, and
          // refunded them as skipped). A running item without `chunks` (written before 2026-11-27)
          // cannot say: its job is read. A page shows a finished chunk's prospects as done.
          if (!only.selecting) return chunks;
          const present = own ? listChunks.filter((item) => jobOfChunk(item) === job.id).length : chunks.length;
          return job.chunks === undefined || present < job.chunks ? [...chunks, ...(await this.selectionWhileRunning(job.id))] : chunks;
        }),
    );
    held.push(listChunks);
    if (only.since !== undefined) held.push(await this.completedSince(workspaceId, only.since, only.field));
    const busy = new Set<number>();
    for (const items of held) {
      for (const item of items) {
        if (only.field !== undefined && typeof item.type === 'string' && fieldOf(item.type as EnrichmentJob['type']) !== only.field) continue;
        for (const id of (item.prospectIds as number[] | undefined) ?? []) busy.add(id);
      }
    }
    return busy;
  }

  /**
   * The selections of the workspace's jobs (searching `field`, if given) that completed at or after
   * `since`, as pseudo chunks: a Query on the completion time, usually of nothing.
   */
  private async completedSince(workspaceId: number, since: string, field: Field | undefined): Promise<Record<string, unknown>[]> {
    const completed = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk >= :since',
      ExpressionAttributeValues: { ':pk': enrichmentCompletedKey(workspaceId, since, 0).pk, ':since': since },
      ConsistentRead: true,
    });
    const jobs = await Promise.all(completed.filter((item) => field === undefined || item.field === field).map((item) => this.getJob(item.jobId as number)));
    return jobs.flatMap((job) => (job ? [{ prospectIds: job.selection, type: job.type }] : []));
  }

  /** A running job's selection as one pseudo chunk (with `unwrittenOnly`, only when its chunk items were never all written). */
  private async selectionWhileRunning(jobId: number, options: { unwrittenOnly?: boolean } = {}): Promise<Record<string, unknown>[]> {
    const job = await this.getJob(jobId);
    if (job?.status !== 'RUNNING' || (options.unwrittenOnly && job.chunksWritten)) return [];
    return [{ prospectIds: job.selection, type: job.type }];
  }

  async getChunks(refs: ChunkRef[]): Promise<EnrichmentChunk[]> {
    if (refs.length === 0) return [];
    const items = await batchGetAll(this.db, this.tableName, refs.map((ref) => enrichmentChunkKey(ref.listId, ref.jobId, ref.chunk)), { consistent: true });
    return items.map(toChunk);
  }

  async chunksOfJob(job: Pick<EnrichmentJob, 'id' | 'listId'>): Promise<EnrichmentChunk[]> {
    return (await this.chunkItems(job.listId, job.id)).map(toChunk);
  }

  /** The chunk items in a list (strongly consistent): of one job, or of every job there. */
  private chunkItems(listId: number, jobId?: number, projection?: { expression: string; names: Record<string, string> }) {
    return queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': enrichmentChunkKey(listId, 0, 0).pk, ':prefix': `${ENRICHMENT_CHUNK_PREFIX}${jobId === undefined ? '' : `${padId(jobId)}#`}` },
      ...(projection ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names } : {}),
      ConsistentRead: true,
    });
  }

  async getJob(jobId: number): Promise<EnrichmentJob | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: enrichmentJobKey(jobId), ConsistentRead: true }));
    return Item ? toJob(Item) : undefined;
  }

  async mark(field: Field, prospects: { id: number; version: number; mark: EnrichmentMark }[]): Promise<Set<number>> {
    // One UpdateItem each (1 WCU a KB on the table and on gsi1): no transaction, since each mark
    // stands alone and a transaction would double its price.
    return this.conditionalUpdates(
      prospects.map(({ id, version, mark }) => ({
        id,
        input: {
          TableName: this.tableName,
          Key: prospectKey(id),
          UpdateExpression: 'SET #mark = :mark, #version = :next REMOVE enrichJob',
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#version': 'version', '#mark': MARK_ATTRIBUTE[field] },
          ExpressionAttributeValues: { ':mark': mark, ':version': version, ':next': version + 1 },
        },
      })),
    );
  }

  /** Single conditional UpdateItems, a few in flight; the ids whose condition was refused. */
  private async conditionalUpdates(updates: { id: number; input: UpdateCommandInput }[]): Promise<Set<number>> {
    const refused = new Set<number>();
    let next = 0;
    const worker = async () => {
      while (next < updates.length) {
        const { id, input } = updates[next++] as (typeof updates)[number];
        try {
          await this.db.send(new UpdateCommand(input));
        } catch (error) {
          if (!isConditionFailed(error)) throw error;
          refused.add(id);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(UPDATES_IN_FLIGHT, updates.length) }, worker));
    return refused;
  }

  async touch(jobId: number, at: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: enrichmentJobKey(jobId),
        UpdateExpression: 'SET updatedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  }

  async resolve(job: EnrichmentJob, chunks: ResolvedChunk[], counts: JobCounts, refund: LedgerEntry | undefined, at: string): Promise<boolean> {
    const now = at;
    try {
      await this.db.send(new TransactWriteCommand({
        TransactItems: [
          ...chunks.map(({ chunk, results }) => ({
            Update: {
              TableName: this.tableName,
              Key: enrichmentChunkKey(chunk.listId, chunk.jobId, chunk.chunk),
              UpdateExpression: 'SET #status = :resolved, results = :results',
              ConditionExpression: '#status = :pending',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':resolved': 'RESOLVED', ':pending': 'PENDING', ':results': pack(results) },
            },
          })),
          {
            Update: {
              TableName: this.tableName,
              Key: enrichmentJobKey(job.id),
              UpdateExpression:
                'ADD #found :found, notFound :notFound, #duplicate :duplicate, #failed :failed, skipped :skipped, refunded :refunded' +
                (now ? ' SET updatedAt = :now' : ''),
              ExpressionAttributeNames: { '#duplicate': 'duplicate', '#found': 'found', '#failed': 'failed' },
              ExpressionAttributeValues: {
                ':found': counts.found,
                ':notFound': counts.notFound,
                ':duplicate': counts.duplicate,
                ':failed': counts.failed,
                ':skipped': counts.skipped,
                ':refunded': counts.refunded,
                ...(now ? { ':now': now } : {}),
              },
            },
          },
          ...(refund ? [balanceMove(this.tableName, job.workspaceId, refund.amount), ledgerPut(this.tableName, refund)] : []),
        ],
        }));
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.some((reason) => reason.Code === 'ConditionalCheckFailed')) return false;
      throw error;
    }
  }

  async release(jobId: number, prospectIds: number[]): Promise<void> {
    // A refused one was released before (a redelivered message), or never claimed.
    await this.conditionalUpdates(
      prospectIds.map((id) => ({
        id,
        input: {
        TableName: this.tableName,
        Key: prospectKey(id),
        // A new version: a writer that read the prospect while it was held must read it again.
        UpdateExpression: 'REMOVE enrichJob ADD #version :one',
        ConditionExpression: 'enrichJob = :job',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':job': jobId, ':one': 1 },
        },
      })),
    );
  }

  async finishChunks(job: EnrichmentJob, chunks: number[]): Promise<EnrichmentJob | undefined> {
    for (const chunk of chunks) {
      try {
        await this.db.send(new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.tableName,
                Key: enrichmentChunkKey(job.listId, job.id, chunk),
                ConditionExpression: '#status = :resolved',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':resolved': 'RESOLVED' },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: enrichmentJobKey(job.id),
                UpdateExpression: 'ADD doneChunks :chunk',
                ExpressionAttributeValues: { ':chunk': new Set([chunk]) },
              },
            },
          ],
        }));
      } catch (error) {
        // Finished by another delivery of the same message.
        if (!cancellationReasons(error)?.some((reason) => reason.Code === 'ConditionalCheckFailed')) throw error;
      }
    }
    return this.getJob(job.id);
  }

  async complete(job: EnrichmentJob, at: string): Promise<boolean> {
    try {
      // Two deliveries finishing a job's last chunks both complete it: a conflict is tried again
      // (then the condition answers for the one that comes second).
      await this.db.send(new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: this.tableName,
              Key: enrichmentJobKey(job.id),
              UpdateExpression: 'SET #status = :completed, completedAt = :at, updatedAt = :at REMOVE gsi2pk, gsi2sk',
              ConditionExpression: '#status = :running AND size(doneChunks) = chunks',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':completed': 'COMPLETED', ':running': 'RUNNING', ':at': at },
            },
          },
          // Its prospects are free in every list of the workspace from now on, except for the starts
          // that were waiting while it ran (busyInWorkspace `since`).
          { Delete: { TableName: this.tableName, Key: enrichmentRunningKey(job.workspaceId, job.id) } },
          { Put: { TableName: this.tableName, Item: completedItem(job, at) } },
        ],
      }));
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  async runningJobs(limit: number): Promise<EnrichmentJob[]> {
    const result = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': enrichmentJobRunning('', 0).gsi2pk },
        Limit: limit,
      }),
    );
    return (result.Items ?? []).map(toJob);
  }
}
