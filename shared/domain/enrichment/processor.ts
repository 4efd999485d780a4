import type { LedgerEntry } from '../credits/credits';
import type { Company, EnrichmentMark, Prospect } from '../leads/lead';
import { prospectMember } from '../leads/list-query';
import { isEmail, isPhoneNumber, normalizeEmail } from '../leads/normalize';
import type { LeadChange, LeadRepository } from '../leads/ports';
import type { Clock, IdGenerator } from '../ports';
import { inParallel } from '../in-parallel';
import { type EnrichmentType, type FinderOutcome, type Finders, MARK_ATTRIBUTE, type MayCall, OUT_OF_TIME, type Pause, type ProspectResult, fieldOf, findFor, refundOf, refunded } from './enrichment';
import { hasValue, markOn, takenByAnother } from './prospect-marks';
import type { ChunkRef, CompletionNotifier, EnrichmentChunk, EnrichmentJob, EnrichmentRepository, JobCounts, ResolvedChunk } from './ports';

export interface ProcessorDeps {
  jobs: EnrichmentRepository;
  leads: LeadRepository;
  finders: Finders;
  ids: IdGenerator;
  clock: Clock;
  notifier: CompletionNotifier;
  maxLeadsPerList: number;
  /** Provider calls in flight at once. */
  concurrency: number;
  /**
   * Time a provider call may still start with: its timeout and the writes after it. Given a
   * function's time left (processChunks), no call starts with less, so the function ends within it.
   */
  callReserveMs: number;
  warn?: (message: string, extra?: Record<string, unknown>) => void;
  /** Waits between a provider's tries (RETRY_PAUSES_MS): a timer; a test's records and returns. */
  pause: Pause;
}

/** A delivery's time: whether a provider call may start now, and the prospects none could be started for. */
interface SearchTime {
  mayCall: MayCall;
  outOfTime: Set<number>;
}

/**
 * Chunks (of 50 prospects) searched and written as one group: a delivery of 10 chunks is 2 groups,
 * the second searched while the first is written. Smaller groups were slower: each is a lead write
 * of its own, with its list digest read and written (docs/enrichment.md, "Costs").
 */
const GROUP_CHUNKS = 5;

/**
 * Completes a job whose chunks are all done: its completion event is queued first (its id is the
 * job's, so a second one, from a redelivery or the sweeper, is the same event), then the job is
 * marked COMPLETED. Marked first, a crash in between would lose the event: the sweeper only looks
 * at running jobs. True when this call completed it.
 */
export async function completeJob(deps: { jobs: Pick<EnrichmentRepository, 'complete'>; notifier: CompletionNotifier }, job: EnrichmentJob, at: string): Promise<boolean> {
  await deps.notifier.jobCompleted({ ...job, status: 'COMPLETED', completedAt: at, updatedAt: at });
  return deps.jobs.complete(job, at);
}

/**
 * Works the chunks of one SQS batch, per job: reads their prospects, asks the providers for the
 * ones still to search, writes what the job is charged for (a found value through the lead
 * writer, views and digests following, with the job's mark; a searched prospect without a value
 * only the mark), then records the outcomes once: one transaction with the chunks' results, the
 * job's counts and the refund with its ledger entry, conditional on the chunks being PENDING.
 *
 * Exactly once without a claim per prospect: every write is conditional on the version read, so of
 * two jobs that search one prospect at once (it is in two lists) only one writes; the other reads
 * it again, finds that job's mark and skips it (refunded). A redelivery of a chunk whose writes were
 * made but not recorded finds this job's own marks and takes the outcomes from them, without
 * asking the providers again.
 */
export function createEnrichmentProcessor(deps: ProcessorDeps) {
  const now = () => deps.clock.now().toISOString();
  const names = (p: Prospect | undefined) => (p ? { firstName: p.firstName, lastName: p.lastName } : {});

  /** The outcome this job left on a prospect (an earlier delivery wrote it, or a concurrent one). */
  function fromMark(job: EnrichmentJob, p: Prospect): ProspectResult {
    const mark = markOn(p, job.type) as EnrichmentMark;
    const provider = mark.provider ? { provider: mark.provider } : {};
    if (mark.outcome === 'found') {
      const email = fieldOf(job.type) === 'email';
      const value = email ? p.email : p.phoneNumber;
      const verification = (email ? p.emailStatus : p.phoneStatus) === 'risky' ? 'risky' : 'verified';
      return { prospectId: p.id, outcome: 'found', ...(value ? { value } : {}), verification, ...provider, ...names(p) };
    }
    if (mark.outcome === 'duplicate') {
      return { prospectId: p.id, outcome: 'duplicate', ...(mark.duplicateOf !== undefined ? { duplicateOf: mark.duplicateOf } : {}), ...(mark.value ? { value: mark.value } : {}), ...names(p) };
    }
    return { prospectId: p.id, outcome: 'not_found', ...provider, ...names(p) };
  }

  /** The companies of the prospects, by id (strongly consistent). */
  async function readCompanies(prospects: Prospect[]): Promise<Map<number, Company>> {
    const ids = [...new Set(prospects.flatMap((p) => (p.companyId === undefined ? [] : [p.companyId])))];
    return new Map((ids.length ? await deps.leads.getCompanies(ids) : []).map((c) => [c.id, c]));
  }

  /** What a prospect read now settles without asking a provider; undefined when it is still to search. */
  function settled(job: EnrichmentJob, p: Prospect | undefined, id: number): ProspectResult | undefined {
    if (!p || p.workspaceId !== job.workspaceId) return { prospectId: id, outcome: 'skipped', ...names(p) };
    // First: what this job wrote stands (it was charged for), whatever happened to the prospect since.
    if (markOn(p, job.type)?.job === job.id) return fromMark(job, p);
    if (p.status === 'ARCHIVED' || takenByAnother(p, job) || hasValue(p, job.type)) return { prospectId: id, outcome: 'skipped', ...names(p) };
    return undefined;
  }

  /**
   * Asks the providers for each prospect; the outcome of each, emails another prospect of the
   * workspace holds told apart as duplicates. Two prospects of a delivery given the same email are
   * both left found: the identity guard lets the first write have it, and the other, refused, is
   * settled as its duplicate (write, below), also when the first one's write did not happen.
   */
  async function search(job: EnrichmentJob, prospects: Prospect[], companies: Map<number, Company>, time: SearchTime): Promise<Map<number, ProspectResult>> {
    const answers = new Map(
      await inParallel(prospects, deps.concurrency, async (p) => {
        const company = p.companyId === undefined ? undefined : companies.get(p.companyId);
        const input = {
          firstName: p.firstName,
          lastName: p.lastName,
          ...(company?.domain ? { domain: company.domain } : {}),
          ...(company?.name ? { companyName: company.name } : {}),
          ...(p.networkProfileUrl ? { networkProfileUrl: p.networkProfileUrl } : {}),
        };
        const answer = await findFor(job.type, deps.finders, input, time.mayCall, deps.pause);
        return [p.id, answer] as const;
      }),
    );
    for (const [id, answer] of answers) if (answer.outcome.kind === 'error' && answer.outcome.message === OUT_OF_TIME) time.outOfTime.add(id);
    // An email another prospect of the workspace already has is not written.
    const email = fieldOf(job.type) === 'email';
    // A found email as the lead writer keeps one (trimmed, lower-cased); one that is not an email
    // address is no find (before 2026-11-28 it was stored as given, spaces and all, which also
    // slipped past the email identity guard: a probe).
    // A found phone that is no number is no find either.
    for (const [id, answer] of answers) {
      if (answer.outcome.kind !== 'found') continue;
      const value = email ? normalizeEmail(answer.outcome.value) : answer.outcome.value.trim();
      const valid = email ? isEmail(value) : isPhoneNumber(value);
      answers.set(id, { ...answer, outcome: valid ? { ...answer.outcome, value } : { kind: 'not_found' } });
    }
    const emails = email ? [...answers.values()].flatMap((a) => (a.outcome.kind === 'found' ? [`email:${a.outcome.value}`] : [])) : [];
    const owners = emails.length ? await deps.leads.findIdentities(job.workspaceId, 'PROSPECT', [...new Set(emails)]) : new Map<string, number>();
    const results = new Map<number, ProspectResult>();
    for (const p of prospects) {
      const { outcome, provider } = answers.get(p.id) as { outcome: FinderOutcome; provider?: string };
      const from = provider ? { provider } : {};
      if (outcome.kind === 'error') results.set(p.id, { prospectId: p.id, outcome: 'failed', ...names(p) });
      else if (outcome.kind === 'not_found') results.set(p.id, { prospectId: p.id, outcome: 'not_found', ...from, ...names(p) });
      else {
        const value = email ? outcome.value : outcome.value.trim();
        const owner = email ? owners.get(`email:${value}`) : undefined;
        if (owner !== undefined && owner !== p.id) results.set(p.id, { prospectId: p.id, outcome: 'duplicate', duplicateOf: owner, value, ...names(p) });
        else results.set(p.id, { prospectId: p.id, outcome: 'found', value, verification: outcome.verification, ...from, ...names(p) });
      }
    }
    return results;
  }

  /**
   * Writes what the job is charged for, each conditional on the version read: a found value (with
   * the job's mark) through the lead writer, the mark alone for a searched prospect the job keeps
   * the charge of. A prospect whose version moved is read again and settled again (this job's mark:
   * its outcome; another job's, a value meanwhile, gone: skipped) or written on its new version, three
   * times at most; one that keeps moving is failed (refunded). `results` ends with the outcomes as
   * written; `read` with the versions the writes started from. `companies`, when given, were read
   * (strongly consistent) after `read`'s prospects: the first write derives the views from them.
   */
  async function write(job: EnrichmentJob, results: Map<number, ProspectResult>, read: Map<number, Prospect>, companies?: Map<number, Company>): Promise<void> {
    const field = fieldOf(job.type);
    const charged = (r: ProspectResult) => r.outcome === 'found' || ((r.outcome === 'not_found' || r.outcome === 'duplicate') && !refunded(job.type, r.outcome));
    let pending = [...results.values()].filter(charged).map((r) => r.prospectId);
    // Three writes at most; after each refused one the prospects are read and settled again (after
    // the third too, so that a write of this job's that won meanwhile is not taken for a failure).
    for (let round = 0; pending.length > 0; round += 1) {
      if (round > 0) {
        const again = new Map((await deps.leads.getProspects(pending)).map((p) => [p.id, p]));
        pending = pending.filter((id) => {
          const p = again.get(id);
          const outcome = settled(job, p, id);
          if (outcome) results.set(id, outcome);
          else read.set(id, p as Prospect);
          return !outcome;
        });
        // A found email another prospect took meanwhile (its guard refused the write) is a duplicate.
        const foundEmails = field === 'email' ? pending.flatMap((id) => (results.get(id)?.outcome === 'found' ? [results.get(id) as ProspectResult] : [])) : [];
        if (foundEmails.length) {
          const owners = await deps.leads.findIdentities(job.workspaceId, 'PROSPECT', [...new Set(foundEmails.map((r) => `email:${r.value}`))]);
          for (const r of foundEmails) {
            const owner = owners.get(`email:${r.value}`);
            if (owner !== undefined && owner !== r.prospectId) results.set(r.prospectId, { ...r, outcome: 'duplicate', duplicateOf: owner, verification: undefined, provider: undefined });
          }
          pending = pending.filter((id) => charged(results.get(id) as ProspectResult));
        }
      }
      if (round === 3 || pending.length === 0) break;
      const stamp = now();
      const markOf = (r: ProspectResult): EnrichmentMark => ({
        job: job.id,
        at: stamp,
        outcome: r.outcome as EnrichmentMark['outcome'],
        ...(r.provider ? { provider: r.provider } : {}),
        ...(r.duplicateOf !== undefined ? { duplicateOf: r.duplicateOf } : {}),
        ...(r.outcome === 'duplicate' && r.value ? { value: r.value } : {}),
      });
      const found = pending.filter((id) => results.get(id)?.outcome === 'found');
      const marked = pending.filter((id) => results.get(id)?.outcome !== 'found');
      // The views take the companies read after the prospects the write is conditional on. A company
      // changed since then is not missed: its member sync writes each of its prospects after the
      // company, conditional on the prospect's version, so it either refuses this write (read again,
      // with the companies read again here) or comes after it and derives the view once more.
      const viewCompanies = round === 0 && companies ? companies : await readCompanies(found.map((id) => read.get(id) as Prospect));
      const changes: LeadChange[] = found.map((id) => {
        const before = read.get(id) as Prospect;
        const result = results.get(id) as ProspectResult;
        const { enrichJob: _legacyClaim, ...rest } = before;
        const value = result.value as string;
        const after: Prospect = {
          ...rest,
          ...(field === 'email' ? { email: value, emailStatus: result.verification ?? 'verified' } : { phoneNumber: value, phoneStatus: result.verification ?? 'verified' }),
          [MARK_ATTRIBUTE[field]]: markOf(result),
          version: before.version + 1,
          updatedAt: stamp,
        };
        const company = after.companyId === undefined ? undefined : viewCompanies.get(after.companyId);
        return { before, after, member: prospectMember(after, company), claim: field === 'email' ? [`email:${value}`] : [], release: [], refreshMembers: true };
      });
      // Both settle before either's failure is thrown: nothing is left writing when a delivery fails.
      const [saved, markedNow] = await Promise.allSettled([
        changes.length ? deps.leads.save(changes, { maxLeadsPerList: deps.maxLeadsPerList }) : Promise.resolve([]),
        marked.length
          ? deps.jobs.mark(
              field,
              marked.map((id) => ({ id, version: (read.get(id) as Prospect).version, mark: markOf(results.get(id) as ProspectResult) })),
            )
          : Promise.resolve(new Set<number>()),
      ]);
      if (saved.status === 'rejected') throw saved.reason;
      if (markedNow.status === 'rejected') throw markedNow.reason;
      const [outcomes, moved] = [saved.value, markedNow.value];
      pending = [...found.filter((_, i) => outcomes[i] === 'conflict'), ...marked.filter((id) => moved.has(id))];
    }
    if (pending.length > 0) {
      deps.warn?.('Enrichment outcomes not written after three attempts (the prospects kept changing): failed, refunded', { jobId: job.id, prospects: pending.length });
      for (const id of pending) results.set(id, { prospectId: id, outcome: 'failed', ...names(read.get(id)) });
    }
  }

  /**
   * Reads, searches and writes the chunks' prospects; the outcome of each, by chunk. The chunks go in
   * groups (GROUP_CHUNKS), each searched while the one before it is written: the providers' calls
   * and the table's writes overlap instead of taking turns.
   */
  async function work(job: EnrichmentJob, chunks: EnrichmentChunk[], time: SearchTime): Promise<ResolvedChunk[]> {
    const results = new Map<number, ProspectResult>();
    const read = new Map<number, Prospect>();
    let writing: Promise<void> = Promise.resolve();
    try {
      for (let first = 0; first < chunks.length; first += GROUP_CHUNKS) {
        const ids = chunks.slice(first, first + GROUP_CHUNKS).flatMap((chunk) => chunk.prospectIds);
        const groupRead = new Map((await deps.leads.getProspects(ids)).map((p) => [p.id, p]));
        const groupResults = new Map<number, ProspectResult>();
        const toSearch: Prospect[] = [];
        for (const id of ids) {
          const outcome = settled(job, groupRead.get(id), id);
          if (outcome) groupResults.set(id, outcome);
          else toSearch.push(groupRead.get(id) as Prospect);
        }
        // Read after the prospects (strongly consistent): what the search asks with and the first write's views derive from.
        const companies = await readCompanies(toSearch);
        // Only what this delivery searched is written: an outcome settled from this job's own mark
        // (a redelivery) was written by the delivery that made it.
        const searched = toSearch.length ? await search(job, toSearch, companies, time) : new Map<number, ProspectResult>();
        await writing;
        writing = write(job, searched, groupRead, companies).then(() => {
          for (const [id, result] of [...groupResults, ...searched]) results.set(id, result);
          for (const [id, prospect] of groupRead) read.set(id, prospect);
        });
        writing.catch(() => {}); // awaited before the next write or below; a failure meanwhile must not go unhandled
      }
      await writing;
    } catch (error) {
      // A failed search or write: nothing is left writing when the delivery fails (it is tried again).
      await writing.catch(() => {});
      throw error;
    }
    // Claims of the layout before 2026-11-26 that this job made are let go (conditional on the claim:
    // one a write removed already is left as it is).
    const held = [...read.values()].filter((p) => p.enrichJob === job.id).map((p) => p.id);
    if (held.length) await deps.jobs.release(job.id, held);
    return chunks.map((chunk) => ({ chunk, results: chunk.prospectIds.map((id) => results.get(id) as ProspectResult) }));
  }

  /**
   * Chunks resolved by the layout before 2026-11-26 (results recorded, values not yet written when
   * it stopped): their found values are written to the prospects this job still holds, which are
   * then let go. Chunks resolved by this layout were written before they were resolved: nothing.
   */
  async function writeRecorded(job: EnrichmentJob, results: ProspectResult[]): Promise<void> {
    const prospects = await deps.leads.getProspects(results.map((r) => r.prospectId));
    const held = prospects.filter((p) => p.enrichJob === job.id);
    if (held.length === 0) return;
    const heldIds = new Set(held.map((p) => p.id));
    const found = new Map(results.filter((r) => r.outcome === 'found' && r.value && heldIds.has(r.prospectId)).map((r) => [r.prospectId, r]));
    if (found.size) await write(job, found, new Map(held.map((p) => [p.id, p])));
    const written = new Set([...found.values()].filter((r) => r.outcome === 'found').map((r) => r.prospectId));
    await deps.jobs.release(job.id, held.filter((p) => !written.has(p.id)).map((p) => p.id));
  }

  function countsOf(type: EnrichmentType, results: ProspectResult[]): JobCounts {
    const count = (outcome: ProspectResult['outcome']) => results.filter((r) => r.outcome === outcome).length;
    return {
      found: count('found'),
      notFound: count('not_found'),
      duplicate: count('duplicate'),
      failed: count('failed'),
      skipped: count('skipped'),
      refunded: refundOf(type, results),
    };
  }

  async function finish(job: EnrichmentJob, chunks: number[]): Promise<void> {
    const after = await deps.jobs.finishChunks(job, chunks);
    if (after?.status !== 'RUNNING' || after.doneChunks.length < after.chunks) return;
    await completeJob(deps, after, now());
  }

  return {
    /**
     * Works the chunks; the results of each chunk that was worked (resolved now or before). With
     * the function's time left, no provider call starts once less than `callReserveMs` is left,
     * rather than the function timing out with nothing written (a sync start's answer lost after
     * its charge, a worker's batch redelivered until its dead-letter queue): a prospect not asked by
     * then is failed (refunded), or with `defer` (the worker) its chunk is left PENDING and given to
     * `defer` for its message's next delivery.
     */
    async processChunks(refs: ChunkRef[], timeLeft?: () => number, defer?: (ref: ChunkRef) => void): Promise<Map<string, ProspectResult[]>> {
      const time: SearchTime = { mayCall: timeLeft ? () => timeLeft() >= deps.callReserveMs : () => true, outOfTime: new Set() };
      const output = new Map<string, ProspectResult[]>();
      const chunks = await deps.jobs.getChunks(refs);
      const byJob = new Map<number, EnrichmentChunk[]>();
      for (const chunk of chunks) byJob.set(chunk.jobId, [...(byJob.get(chunk.jobId) ?? []), chunk]);
      for (const [jobId, jobChunks] of byJob) {
        const job = await deps.jobs.getJob(jobId);
        if (!job) continue;
        const pending = jobChunks.filter((c) => c.status === 'PENDING');
        const before = jobChunks.filter((c) => c.status === 'RESOLVED').map((c) => ({ chunk: c, results: c.results ?? [] }));
        if (before.length) await writeRecorded(job, before.flatMap((r) => r.results));
        let resolved: ResolvedChunk[] = before;
        if (pending.length > 0) {
          const worked = await work(job, pending, time);
          // With `defer` (the worker), a chunk with a prospect the time left no provider call for is
          // left PENDING for its message's next delivery: what it wrote carries the job's mark and
          // is taken from it then, the rest is searched. Without (a sync start), it is failed and refunded.
          const later = defer ? worked.filter((r) => r.chunk.prospectIds.some((id) => time.outOfTime.has(id))) : [];
          for (const r of later) defer?.({ jobId: r.chunk.jobId, listId: r.chunk.listId, chunk: r.chunk.chunk });
          const fresh = worked.filter((r) => !later.includes(r));
          const outOfTime = fresh.flatMap((r) => r.chunk.prospectIds).filter((id) => time.outOfTime.has(id)).length;
          if (later.length > 0) deps.warn?.("Enrichment chunks left for their messages' next delivery: the function's time ran short", { jobId: job.id, chunks: later.length });
          if (outOfTime > 0) deps.warn?.("Enrichment providers not asked for some prospects: the function's time ran out (failed, refunded)", { jobId: job.id, prospects: outOfTime });
          const all = fresh.flatMap((r) => r.results);
          const counts = countsOf(job.type, all);
          const refund: LedgerEntry | undefined =
            counts.refunded > 0
              ? { id: await deps.ids.next(), workspaceId: job.workspaceId, kind: 'REFUND', amount: counts.refunded, reason: `${job.type} refund`, jobId: job.id, createdAt: now() }
              : undefined;
          if (fresh.length === 0) {
            // Every chunk left for later: nothing to resolve now.
          } else if (await deps.jobs.resolve(job, fresh, counts, refund, now())) {
            resolved = [...resolved, ...fresh];
          } else {
            // Resolved meanwhile by another delivery (whose writes were made before it): its results
            // stand. A chunk of this delivery's that it did not resolve is still PENDING: left for its
            // message's next delivery when deferring, rather than for the sweeper a quarter hour on.
            const again = await deps.jobs.getChunks(pending);
            resolved = [...resolved, ...again.filter((c) => c.status === 'RESOLVED').map((c) => ({ chunk: c, results: c.results ?? [] }))];
            const worked = new Set(fresh.map((r) => r.chunk.chunk));
            for (const c of again) if (c.status === 'PENDING' && worked.has(c.chunk)) defer?.({ jobId: c.jobId, listId: c.listId, chunk: c.chunk });
          }
        }
        await finish(job, resolved.map((r) => r.chunk.chunk));
        for (const r of resolved) output.set(`${r.chunk.jobId}:${r.chunk.chunk}`, r.results);
      }
      return output;
    },
  };
}

export type EnrichmentProcessor = ReturnType<typeof createEnrichmentProcessor>;
