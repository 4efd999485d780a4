import type { Company, Prospect } from '../leads/lead';
import { MAX_ANSWER_VIEW_BYTES } from '../answer-budget';
import { answerBytesOf } from './prospect-move-shapes';
import type { Candidate, CompanyCounter, MoveSkipReason } from './selection';

export interface ChooserDeps {
  workspaceId: number;
  /** Named prospects (`prospect_ids`): each one not chosen is reported in `skipped`. */
  explicit: boolean;
  counter: CompanyCounter;
  /** Why a read prospect cannot move (not in the list, in a campaign the rules refuse), or undefined. */
  check: (lead: Prospect) => MoveSkipReason | undefined;
  readProspects: (ids: number[]) => Promise<Prospect[]>;
  loadCompanies: (workspaceId: number, ids: number[]) => Promise<Map<number, Company>>;
  /** Where refused named prospects are reported. */
  skipped: { id: number; reason: MoveSkipReason }[];
}

const unique = <T>(values: T[]): T[] => [...new Set(values)];

/**
 * add-to-campaign's choosing (prospect-moves.ts). Walks the candidates in order: reads as many as
 * are still wanted, holding back those whose company the digest shows at its limit (counting the
 * ones being read), checks each read prospect on itself, and reads on while some were refused. A
 * held-back candidate is looked at again after each read: a refused prospect may have left its
 * company room. Choosing also stops before the answer's views would pass MAX_ANSWER_VIEW_BYTES:
 * that candidate and the ones after it go back unread (`answerFull`).
 */
export function createChooser(candidates: Candidate[], deps: ChooserDeps) {
  const { workspaceId, explicit, counter, check, skipped } = deps;
  // The companies the views show, read while the prospects are (the digest names them).
  const companies = new Map<number, Company>();
  let queue = candidates;
  let answerBytes = 0;
  const answerFull = new Set<number>();

  async function choose(wantedNow: number): Promise<Prospect[]> {
    const chosen: Prospect[] = [];
    while (chosen.length < wantedNow && answerFull.size === 0) {
      const trial = counter.copy();
      const batch: Candidate[] = [];
      const held: Candidate[] = [];
      let scanned = 0;
      for (; scanned < queue.length && batch.length < wantedNow - chosen.length; scanned += 1) {
        const candidate = queue[scanned] as Candidate;
        if (trial.allows(candidate.companyId)) {
          trial.take(candidate.companyId);
          batch.push(candidate);
        } else {
          held.push(candidate);
        }
      }
      queue = [...held, ...queue.slice(scanned)];
      if (batch.length === 0) break;
      const companyIds = unique(batch.flatMap((candidate) => (candidate.companyId === undefined || companies.has(candidate.companyId) ? [] : [candidate.companyId])));
      const [read, loaded] = await Promise.all([deps.readProspects(batch.map((candidate) => candidate.id)), deps.loadCompanies(workspaceId, companyIds)]);
      for (const [id, company] of loaded) companies.set(id, company);
      const fresh = new Map(read.map((lead) => [lead.id, lead]));
      for (const [index, candidate] of batch.entries()) {
        const lead = fresh.get(candidate.id);
        const reason = !lead || lead.workspaceId !== workspaceId ? 'not_in_list' : check(lead);
        const refused = reason ?? (counter.allows(lead?.companyId) ? undefined : 'company_limit');
        if (!lead || refused) {
          if (explicit) skipped.push({ id: candidate.id, reason: refused ?? 'not_in_list' });
          // In this campaign since the digest was read (a racing request): its company counts.
          if (lead && reason === 'already_in_campaign') counter.take(lead.companyId);
          continue;
        }
        const bytes = answerBytesOf({ prospect: lead, company: lead.companyId === undefined ? undefined : companies.get(lead.companyId) });
        if (answerBytes + bytes > MAX_ANSWER_VIEW_BYTES) {
          const back = batch.slice(index);
          for (const unread of back) answerFull.add(unread.id);
          queue = [...back, ...queue];
          break;
        }
        answerBytes += bytes;
        counter.take(lead.companyId);
        chosen.push(lead);
      }
    }
    return chosen;
  }

  return {
    choose,
    companies,
    /** Whether choosing stopped because the answer was full. */
    isFull: () => answerFull.size > 0,
    /** Candidates not chosen: held back at their company's limit, or put back when the answer was full, with the reason a named one gets. */
    left: (): { candidate: Candidate; reason: MoveSkipReason }[] =>
      queue.map((candidate) => ({ candidate, reason: answerFull.has(candidate.id) ? 'answer_full' : 'company_limit' })),
  };
}
