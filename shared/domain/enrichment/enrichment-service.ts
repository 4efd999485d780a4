import type { CreditRepository, LedgerEntry } from '../credits/credits';
import { conflict, notFound, validationError } from '../errors';
import type { LeadList } from '../leads/lead';
import { leadsQueryOfBody } from '../leads/body-query';
import { LIST_NOT_FOUND } from '../leads/lead-list-service';
import { type LeadsQuery, parseLeadsQuery } from '../leads/list-query';
import { type DigestEntry, matchesFilters, orderEntries } from '../leads/member-digest';
import type { LeadListRepository } from '../leads/ports';
import type { Clock, IdGenerator } from '../ports';
import {
  COST_PER_LEAD,
  ENRICHMENT_LIMITS,
  ENRICHMENT_TYPES,
  ENRICHMENT_TYPE_MESSAGE,
  type EnrichmentType,
  PEOPLE_ONLY_MESSAGE,
  type ProspectResult,
  fieldOf,
  holdsValidValue,
} from './enrichment';
import type { EnrichmentProcessor } from './processor';
import type { ChunkQueue, EnrichmentChunk, EnrichmentJob, EnrichmentRepository } from './ports';

export const JOB_NOT_FOUND = 'Enrichment job not found';

export interface EnrichmentServiceDeps {
  lists: Pick<LeadListRepository, 'get'>;
  /** Every member of the list as its digest holds it (projection: filter values, sort keys). */
  members: { entries(listId: number): Promise<DigestEntry[]> };
  credits: CreditRepository;
  jobs: EnrichmentRepository;
  queue: ChunkQueue;
  processor: EnrichmentProcessor;
  /** The SSRF rules of webhook URLs: the URL as stored, or why it is refused. */
  checkWebhookUrl(url: string): { ok: true; url: string } | { ok: false; reason: string };
  ids: IdGenerator;
  clock: Clock;
  /** Told of a step that failed after a start was charged (the start still answers with its job). */
  onAfterCharge?: (jobId: number, error: unknown) => void;
}

export interface StartInput {
  enrichmentType?: unknown;
  prospectLimit?: unknown;
  mode?: unknown;
  webhookUrl?: unknown;
  filters?: unknown;
  sortField?: unknown;
  sortDirection?: unknown;
}

function enrichmentType(value: unknown): EnrichmentType {
  if (value === undefined || value === null) return 'FIND_EMAIL';
  // Exactly as the contract spells them, as search_type is (docs/enrichment.md).
  if (typeof value === 'string' && (ENRICHMENT_TYPES as readonly string[]).includes(value)) return value as EnrichmentType;
  throw validationError(ENRICHMENT_TYPE_MESSAGE);
}

/** The list-leads query (filters, sort) from a count's query parameters or a POST body. */
function selectionQuery(params: Record<string, string[]>): LeadsQuery {
  return parseLeadsQuery('PEOPLE', params);
}

function limitOf(input: StartInput, sync: boolean): number {
  const max = sync ? ENRICHMENT_LIMITS.maxSyncLimit : ENRICHMENT_LIMITS.maxAsyncLimit;
  if (input.prospectLimit === undefined || input.prospectLimit === null) return sync ? ENRICHMENT_LIMITS.defaultSyncLimit : ENRICHMENT_LIMITS.defaultAsyncLimit;
  const limit = input.prospectLimit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) throw validationError('prospect_limit must be a positive integer');
  if (limit > max) throw validationError(sync ? `prospect_limit must be at most ${max} in sync mode` : `prospect_limit must be at most ${max}`);
  return limit;
}

export interface StartOutcome {
  mode: 'async' | 'sync';
  type: EnrichmentType;
  job?: EnrichmentJob;
  selected: number;
  creditsDeducted: number;
  remaining: number;
  webhookUrl: string | null;
  results?: ProspectResult[];
}

/** Enrichment of a list: the estimate, the start (debit, job, chunks) and a job's state. */
/** How long a start may hold its workspace's start lease (a crashed start's lease lapses then). */
const START_LEASE_MS = 60_000;
/**
 * Tries for the start lease while another start holds it (0.1-0.5 s apart): ~10 s either way. A
 * sync start's provider calls then stay within the function's time left (`timeLeft`). Sync waited
 * ~1.5 s (8 tries) before 2026-11-28 night: ten sync starts at once queued longer, and some got a 409.
 */
const START_LEASE_ATTEMPTS = { async: 25, sync: 25 } as const;
export const START_BUSY = 'Another enrichment of this workspace is starting; try again in a few seconds';

export function createEnrichmentService(deps: EnrichmentServiceDeps) {
  async function peopleList(workspaceId: number, listId: number): Promise<LeadList> {
    const list = await deps.lists.get(workspaceId, listId);
    if (!list) throw notFound(LIST_NOT_FOUND);
    if (list.searchType !== 'PEOPLE') throw validationError(PEOPLE_ONLY_MESSAGE);
    return list;
  }

  /**
   * Members without the value, not being enriched, matching the filters, in the requested order.
   * `since`: a start's arrival; what a job searched that completed since then is left out too.
   */
  async function candidates(list: LeadList, type: EnrichmentType, query: LeadsQuery, since?: string): Promise<number[]> {
    // Held by a running job of any list searching the same field: a prospect is in several lists,
    // and each of its fields is searched (and charged) once at a time.
    const field = fieldOf(type);
    const [entries, busy] = await Promise.all([
      deps.members.entries(list.id),
      deps.jobs.busyInWorkspace(list.workspaceId, { field, list: list.id, selecting: true, ...(since === undefined ? {} : { since }) }),
    ]);
    // Without a valid value: imported phone text that is no number ("n/a") is searched for too.
    const key = field === 'email' ? 'email' : 'phone_number';
    const open = entries.filter((entry) => !holdsValidValue(field, entry.filter[key]) && !busy.has(entry.id) && matchesFilters(entry, query.filters));
    return orderEntries(open, query.sortField, query.direction).map((entry) => entry.id);
  }

  const now = () => deps.clock.now().toISOString();

  return {
    async count(workspaceId: number, listId: number, params: Record<string, string[]>) {
      const { enrichment_type: typeParam, ...rest } = params;
      // The list first, as list-leads does: an unknown list is a 404 whatever the query says.
      const list = await peopleList(workspaceId, listId);
      // An empty query value is left out, as any other's is.
      const type = enrichmentType(typeParam?.at(-1) || undefined);
      const ids = await candidates(list, type, selectionQuery(Object.assign(Object.create(null), rest)));
      const balance = await deps.credits.balance(workspaceId);
      const cost = COST_PER_LEAD[type];
      return { type, unenriched: ids.length, costPerLead: cost, totalCost: ids.length * cost, available: balance };
    },

    /** `timeLeft`: the function's time left, which a sync start's provider calls stay within. */
    async start(caller: { workspaceId: number; userId: number }, listId: number, input: StartInput, timeLeft?: () => number): Promise<StartOutcome> {
      // Two requests at once: the second waits for the first's start lease, and may get it only
      // after the first's job completed (a sync one, within half a second). What that job searched
      // is still left out: the same request repeated at once is not charged twice.
      const arrived = now();
      // The list first, as list-leads and the count do: an unknown list is a 404 whatever the body says.
      const list = await peopleList(caller.workspaceId, listId);
      const type = enrichmentType(input.enrichmentType);
      const mode = input.mode === undefined || input.mode === null ? 'async' : input.mode;
      if (mode !== 'async' && mode !== 'sync') throw validationError("mode must be 'async' or 'sync'");
      const sync = mode === 'sync';
      const limit = limitOf(input, sync);
      let webhookUrl: string | null = null;
      if (input.webhookUrl !== undefined && input.webhookUrl !== null && input.webhookUrl !== '') {
        if (sync) throw validationError('webhook_url is only available in async mode');
        if (typeof input.webhookUrl !== 'string') throw validationError('webhook_url must be a string');
        const checked = deps.checkWebhookUrl(input.webhookUrl);
        if (!checked.ok) throw validationError(checked.reason);
        // Signed with the user's webhook secret; one without is given one at the first delivery.
        webhookUrl = checked.url;
      }
      const query = leadsQueryOfBody({ filters: input.filters, sort_field: input.sortField, sort_direction: input.sortDirection });
      // One start at a time chooses prospects in the workspace, until their chunks mark them busy:
      // two concurrent starts (of one list or of two lists sharing prospects) never select and
      // charge for the same prospects. A start waits for the lease (held for well under a second);
      // only one held for long (a start that crashed, until its lease lapses) is a 409.
      const jobId = await deps.ids.next();
      const workspaceId = caller.workspaceId;
      const term = () => {
        const at = deps.clock.now();
        return { now: at.toISOString(), until: new Date(at.getTime() + START_LEASE_MS).toISOString() };
      };
      const attempts = sync ? START_LEASE_ATTEMPTS.sync : START_LEASE_ATTEMPTS.async;
      if (!(await deps.jobs.takeStartLease(workspaceId, jobId, term, attempts))) throw conflict(START_BUSY);
      let leased = true;
      // Best effort: the lease lapses at its term, and a failed release must not turn a start that
      // charged into a 500 (a client sending it again would be charged again).
      const releaseLease = async () => {
        if (!leased) return;
        leased = false;
        await deps.jobs.releaseStartLease(workspaceId, jobId).catch(() => undefined);
      };
      try {
        const ids = (await candidates(list, type, query, arrived)).slice(0, limit);
        if (ids.length === 0) {
          return { mode, type, selected: 0, creditsDeducted: 0, remaining: await deps.credits.balance(caller.workspaceId), webhookUrl, ...(sync ? { results: [] } : {}) };
        }
        const cost = ids.length * COST_PER_LEAD[type];
        // What `remaining` falls back to if the balance cannot be read after the charge.
        const balanceBefore = await deps.credits.balance(caller.workspaceId);
        const stamp = now();
        const job = newJob({ id: jobId, workspaceId: caller.workspaceId, userId: caller.userId, listId, type, mode, selection: ids, webhookUrl, at: stamp });
        const debit: LedgerEntry = {
          id: await deps.ids.next(),
          workspaceId: caller.workspaceId,
          kind: 'DEBIT',
          amount: -cost,
          reason: `${type} of ${ids.length} prospect${ids.length === 1 ? '' : 's'} in list ${listId}`,
          jobId: job.id,
          createdAt: stamp,
        };
        if (!(await deps.jobs.createJob(job, debit))) {
          const available = await deps.credits.balance(caller.workspaceId);
          throw validationError('Insufficient credits', `${cost} credits needed (${ids.length} × ${COST_PER_LEAD[type]}), ${available} available`);
        }
        // Charged: from here on the start answers with its job, whatever fails. A 500 now would
        // have the client send it again and be charged again; what did not happen here, the
        // sweeper does once the job has been still for 15 minutes (writes its chunks, queues them,
        // completes it), and a sync start's results are then the job's (GET enrichment-jobs).
        const chunks = chunksOf(job);
        const refs = chunks.map((c) => ({ jobId: c.jobId, listId: c.listId, chunk: c.chunk }));
        let results: ProspectResult[] = [];
        try {
          await deps.jobs.writeChunks(job, chunks);
          await deps.jobs.markChunksWritten(job);
          await releaseLease();
          if (!sync) await deps.queue.send(refs);
          else {
            const worked = await deps.processor.processChunks(refs, timeLeft);
            results = refs.flatMap((ref) => worked.get(`${ref.jobId}:${ref.chunk}`) ?? []);
          }
        } catch (error) {
          deps.onAfterCharge?.(job.id, error);
        }
        const after = await deps.jobs.getJob(job.id).catch(() => undefined);
        const refunded = after?.refunded ?? 0;
        // Read again once if it fails; then computed from the balance before the charge and what
        // this start refunded (nothing after the charge may answer 500: a client sending it again
        // would be charged again).
        const balance = () => deps.credits.balance(caller.workspaceId);
        const remaining = await balance()
          .catch(balance)
          .catch(() => Math.max(0, balanceBefore - cost + refunded));
        return {
          mode,
          type,
          job: after ?? job,
          selected: ids.length,
          creditsDeducted: cost - refunded,
          remaining,
          webhookUrl,
          ...(sync ? { results } : {}),
        };
      } finally {
        await releaseLease();
      }
    },

    async job(workspaceId: number, jobId: number): Promise<EnrichmentJob> {
      const job = await deps.jobs.getJob(jobId);
      if (!job || job.workspaceId !== workspaceId) throw notFound(JOB_NOT_FOUND);
      return job;
    },
  };
}

/** A job as its start writes it: RUNNING, nothing counted yet, charged for its whole selection. */
export function newJob(start: {
  id: number;
  workspaceId: number;
  userId: number;
  listId: number;
  type: EnrichmentType;
  mode: EnrichmentJob['mode'];
  selection: number[];
  webhookUrl: string | null;
  at: string;
}): EnrichmentJob {
  const { selection, webhookUrl, at, ...owner } = start;
  return {
    ...owner,
    status: 'RUNNING',
    total: selection.length,
    chunks: Math.ceil(selection.length / ENRICHMENT_LIMITS.chunkSize),
    chunksWritten: false,
    doneChunks: [],
    found: 0,
    notFound: 0,
    duplicate: 0,
    failed: 0,
    skipped: 0,
    charged: selection.length * COST_PER_LEAD[start.type],
    refunded: 0,
    ...(webhookUrl ? { webhookUrl } : {}),
    createdAt: at,
    updatedAt: at,
    selection,
  };
}

/** The chunk items of a job's selection (the same for every call: the sweeper rebuilds them). */
export function chunksOf(job: EnrichmentJob): EnrichmentChunk[] {
  const size = ENRICHMENT_LIMITS.chunkSize;
  return Array.from({ length: job.chunks }, (_, n) => ({
    jobId: job.id,
    listId: job.listId,
    chunk: n,
    workspaceId: job.workspaceId,
    type: job.type,
    prospectIds: job.selection.slice(n * size, (n + 1) * size),
    status: 'PENDING' as const,
  }));
}

export type EnrichmentService = ReturnType<typeof createEnrichmentService>;

export const toJobView = (job: EnrichmentJob) => {
  const processed = job.found + job.notFound + job.duplicate + job.failed + job.skipped;
  return {
    id: job.id,
    list_id: job.listId,
    enrichment_type: job.type,
    mode: job.mode,
    status: job.status,
    total_count: job.total,
    queued_count: Math.max(0, job.total - processed),
    found_count: job.found,
    not_found_count: job.notFound,
    duplicate_count: job.duplicate,
    failed_count: job.failed,
    skipped_count: job.skipped,
    credits_charged: job.charged,
    credits_refunded: job.refunded,
    webhook_url: job.webhookUrl ?? null,
    created_at: job.createdAt,
    completed_at: job.completedAt ?? null,
  };
};

export const toResultView = (type: EnrichmentType, result: ProspectResult) => {
  const field = fieldOf(type) === 'email' ? 'email' : 'phone_number';
  return {
    id: result.prospectId,
    first_name: result.firstName ?? '',
    last_name: result.lastName ?? '',
    success: result.outcome === 'found',
    status: result.outcome,
    [field]: result.outcome === 'found' ? (result.value ?? null) : null,
    verification_status: result.verification ?? null,
    provider: result.provider ?? null,
    ...(result.duplicateOf !== undefined ? { duplicate_of: result.duplicateOf } : {}),
  };
};
