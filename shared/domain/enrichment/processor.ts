import type { LedgerEntry } from '../credits/credits';
import type { Company, Prospect } from '../leads/lead';
import { prospectMember } from '../leads/list-query';
import type { LeadChange, LeadRepository } from '../leads/ports';
import type { Clock, IdGenerator } from '../ports';
import { type EnrichmentType, type Finders, type ProspectResult, fieldOf, findFor, refundOf } from './enrichment';
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
  warn?: (message: string, extra?: Record<string, unknown>) => void;
}

async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const hasValue = (prospect: Prospect, type: EnrichmentType) => Boolean(fieldOf(type) === 'email' ? prospect.email : prospect.phoneNumber);

/**
 * Works the chunks of one SQS batch: claims their prospects, asks the providers, then writes the
 * results once for the whole batch: per job one transaction with the chunks' results, the job's
 * counts and the refund with its ledger entry; the found values through the lead writer (views and
 * digests follow); the other prospects released. A chunk resolved before (a redelivered message,
 * a sweep) is only applied again, which changes nothing twice.
 */
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

export function createEnrichmentProcessor(deps: ProcessorDeps) {
  const now = () => deps.clock.now().toISOString();

  /** Works pending chunks; `held` receives each prospect this job holds, as it stands after the claim. */
  async function resolveJob(job: EnrichmentJob, chunks: EnrichmentChunk[], held: Map<number, Prospect>): Promise<ResolvedChunk[]> {
    const ids = chunks.flatMap((chunk) => chunk.prospectIds);
    const read = new Map((await deps.leads.getProspects(ids)).map((p) => [p.id, p]));
    // Eligible: in the workspace, still without the value, not held by another job.
    const eligible = ids.flatMap((id) => {
      const p = read.get(id);
      if (!p || p.workspaceId !== job.workspaceId || p.status === 'ARCHIVED' || hasValue(p, job.type)) return [];
      if (p.enrichJob !== undefined && p.enrichJob !== job.id) return [];
      return [p];
    });
    const toClaim = eligible.filter((p) => p.enrichJob === undefined);
    const refused = await deps.jobs.claim(job.id, toClaim.map((p) => ({ id: p.id, version: p.version })));
    const claimed = eligible.filter((p) => !refused.has(p.id));
    // A claim sets enrichJob and moves the version on (shared/db/enrichment-repository.ts): what the
    // write of a found value starts from, unless the prospect changes again meanwhile (its write is
    // conditional on this version, and a refused one reads the prospect again).
    for (const p of claimed) held.set(p.id, p.enrichJob === job.id ? p : { ...p, enrichJob: job.id, version: p.version + 1 });
    const companyIds = [...new Set(claimed.flatMap((p) => (p.companyId === undefined ? [] : [p.companyId])))];
    const companies = new Map((companyIds.length ? await deps.leads.getCompanies(companyIds) : []).map((c) => [c.id, c]));

    const found = new Map(
      await inParallel(claimed, deps.concurrency, async (p) => {
        const company = p.companyId === undefined ? undefined : companies.get(p.companyId);
        const answer = await findFor(job.type, deps.finders, {
          firstName: p.firstName,
          lastName: p.lastName,
          ...(company?.domain ? { domain: company.domain } : {}),
          ...(company?.name ? { companyName: company.name } : {}),
          ...(p.networkProfileUrl ? { networkProfileUrl: p.networkProfileUrl } : {}),
        });
        return [p.id, answer] as const;
      }),
    );

    // An email another prospect of the workspace already has is not written.
    const emails = fieldOf(job.type) === 'email' ? [...found.values()].flatMap((a) => (a.outcome.kind === 'found' ? [`email:${a.outcome.value.toLowerCase()}`] : [])) : [];
    const owners = emails.length ? await deps.leads.findIdentities(job.workspaceId, 'PROSPECT', [...new Set(emails)]) : new Map<string, number>();
    const taken = new Map<string, number>();

    return chunks.map((chunk) => ({
      chunk,
      results: chunk.prospectIds.map((id): ProspectResult => {
        const p = read.get(id);
        const names = p ? { firstName: p.firstName, lastName: p.lastName } : {};
        const answer = found.get(id);
        if (!answer) return { prospectId: id, outcome: 'skipped', ...names };
        const { outcome, provider } = answer;
        if (outcome.kind === 'error') return { prospectId: id, outcome: 'failed', ...names };
        if (outcome.kind === 'not_found') return { prospectId: id, outcome: 'not_found', ...(provider ? { provider } : {}), ...names };
        const value = fieldOf(job.type) === 'email' ? outcome.value.toLowerCase() : outcome.value;
        if (fieldOf(job.type) === 'email') {
          const identity = `email:${value}`;
          const owner = owners.get(identity) ?? taken.get(identity);
          if (owner !== undefined && owner !== id) return { prospectId: id, outcome: 'duplicate', duplicateOf: owner, value, ...names };
          taken.set(identity, id);
        }
        return { prospectId: id, outcome: 'found', value, verification: outcome.verification, ...(provider ? { provider } : {}), ...names };
      }),
    }));
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

  /**
   * Writes found values (through the lead writer) and lets go of the rest; safe to repeat. The
   * first round starts from the prospects as this delivery's claim left them (`held`), read only
   * when it has not seen them (chunks resolved before); later rounds read them again.
   */
  async function apply(job: EnrichmentJob, results: ProspectResult[], held: Map<number, Prospect>): Promise<void> {
    const field = fieldOf(job.type);
    let pending = results.filter((r) => r.outcome === 'found' && r.value);
    for (let round = 0; round < 3 && pending.length > 0; round += 1) {
      const known = round === 0 ? pending.flatMap((r) => held.get(r.prospectId) ?? []) : [];
      const unknown = pending.filter((r) => round > 0 || !held.has(r.prospectId)).map((r) => r.prospectId);
      const read = unknown.length ? await deps.leads.getProspects(unknown) : [];
      const prospects = new Map([...known, ...read].map((p) => [p.id, p]));
      const companyIds = [...new Set([...prospects.values()].flatMap((p) => (p.companyId === undefined ? [] : [p.companyId])))];
      const companies = new Map<number, Company>((companyIds.length ? await deps.leads.getCompanies(companyIds) : []).map((c) => [c.id, c]));
      const changes: { result: ProspectResult; change: LeadChange }[] = [];
      for (const result of pending) {
        const before = prospects.get(result.prospectId);
        // Gone, or written already (a repeat), or let go: nothing to write.
        if (!before || before.enrichJob !== job.id) continue;
        const stamp = now();
        const { enrichJob: _held, ...rest } = before;
        const after: Prospect =
          field === 'email'
            ? { ...rest, email: result.value as string, emailStatus: result.verification ?? 'verified', version: before.version + 1, updatedAt: stamp }
            : { ...rest, phoneNumber: result.value as string, phoneStatus: result.verification ?? 'verified', version: before.version + 1, updatedAt: stamp };
        const company = after.companyId === undefined ? undefined : companies.get(after.companyId);
        changes.push({
          result,
          change: {
            before,
            after,
            member: prospectMember(after, company),
            claim: field === 'email' ? [`email:${result.value}`] : [],
            release: [],
            refreshMembers: true,
          },
        });
      }
      const outcomes = changes.length ? await deps.leads.save(changes.map((c) => c.change), { maxLeadsPerList: deps.maxLeadsPerList }) : [];
      pending = changes.filter((_, i) => outcomes[i] === 'conflict').map((c) => c.result);
    }
    if (pending.length > 0) deps.warn?.('Found values not written after three attempts (the prospects kept changing)', { jobId: job.id, prospects: pending.length });
    // Everything else the job holds is let go (a found value that was written let go with its
    // write). A skipped prospect is asked too: a concurrent delivery of the same chunk, or a
    // redelivery after the prospect stopped being eligible, may have left it held by this job, and
    // the release is conditional on this job holding it.
    const unwritten = new Set(pending.map((r) => r.prospectId));
    await deps.jobs.release(
      job.id,
      results.filter((r) => r.outcome !== 'found' || unwritten.has(r.prospectId)).map((r) => r.prospectId),
    );
  }

  async function finish(job: EnrichmentJob, chunks: number[]): Promise<void> {
    const after = await deps.jobs.finishChunks(job, chunks);
    if (after?.status !== 'RUNNING' || after.doneChunks.length < after.chunks) return;
    await completeJob(deps, after, now());
  }

  return {
    /** Works the chunks; the results of each chunk that was worked (resolved now or before). */
    async processChunks(refs: ChunkRef[]): Promise<Map<string, ProspectResult[]>> {
      const output = new Map<string, ProspectResult[]>();
      const chunks = await deps.jobs.getChunks(refs);
      const byJob = new Map<number, EnrichmentChunk[]>();
      for (const chunk of chunks) byJob.set(chunk.jobId, [...(byJob.get(chunk.jobId) ?? []), chunk]);
      for (const [jobId, jobChunks] of byJob) {
        const job = await deps.jobs.getJob(jobId);
        if (!job) continue;
        const pending = jobChunks.filter((c) => c.status === 'PENDING');
        let resolved: ResolvedChunk[] = jobChunks.filter((c) => c.status === 'RESOLVED').map((c) => ({ chunk: c, results: c.results ?? [] }));
        const held = new Map<number, Prospect>();
        if (pending.length > 0) {
          const fresh = await resolveJob(job, pending, held);
          const all = fresh.flatMap((r) => r.results);
          const counts = countsOf(job.type, all);
          const refund: LedgerEntry | undefined =
            counts.refunded > 0
              ? { id: await deps.ids.next(), workspaceId: job.workspaceId, kind: 'REFUND', amount: counts.refunded, reason: `${job.type} refund`, jobId: job.id, createdAt: now() }
              : undefined;
          if (await deps.jobs.resolve(job, fresh, counts, refund, now())) {
            resolved = [...resolved, ...fresh];
          } else {
            // Resolved meanwhile by another delivery: apply what it recorded.
            const again = await deps.jobs.getChunks(pending);
            resolved = [...resolved, ...again.filter((c) => c.status === 'RESOLVED').map((c) => ({ chunk: c, results: c.results ?? [] }))];
          }
        }
        await apply(job, resolved.flatMap((r) => r.results), held);
        await finish(job, resolved.map((r) => r.chunk.chunk));
        for (const r of resolved) output.set(`${r.chunk.jobId}:${r.chunk.chunk}`, r.results);
      }
      return output;
    },
  };
}

export type EnrichmentProcessor = ReturnType<typeof createEnrichmentProcessor>;
