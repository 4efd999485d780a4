import type { ListFilter, SortDirection } from '../leads/list-query';
import { type DigestChunk, type DigestEntry, matchesFilters, orderEntries } from '../leads/member-digest';

/**
 * Which members of a list add-to-campaign takes, decided from the list's member digest alone
 * (each member's campaign, company, sort values and folded filter values): no lead is read to
 * choose. The chosen leads are then read and checked again (shared/domain/campaigns/prospect-moves.ts).
 */

/** Why a prospect named by id is not moved (docs/campaigns.md). */
export type MoveSkipReason = 'not_in_list' | 'already_in_campaign' | 'in_other_campaign' | 'company_limit' | 'concurrent_change' | 'answer_full';

export interface SelectionRules {
  /** The campaign the prospects move into. */
  campaignId: number;
  /** false: members already in another campaign are left out. */
  allowDuplicates: boolean;
  /** At most this many of the campaign's prospects from this list per company (members without a company each count alone). */
  perCompany: number;
  /**
   * The workspace's archived campaigns: a prospect still in one of them is free to move (the
   * archive ended its sequence; the campaign is read-only, so nothing else can take it out).
   */
  archived?: ReadonlySet<number>;
}

export interface AmountSelection extends SelectionRules {
  filters: ListFilter[];
  sortField: string;
  direction: SortDirection;
}

/** A member that may move, as the digest shows it. */
export interface Candidate {
  id: number;
  companyId?: number;
}

/** Members already in the campaign per company: the start of the per-company counts. */
export function campaignMembersPerCompany(entries: Iterable<DigestEntry>, campaignId: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (const entry of entries) {
    if (entry.campaignId === campaignId && entry.companyId !== undefined) counts.set(entry.companyId, (counts.get(entry.companyId) ?? 0) + 1);
  }
  return counts;
}

const entriesOf = (chunks: Iterable<DigestChunk>): DigestEntry[] => [...chunks].flatMap((chunk) => [...chunk.entries.values()]);

/** Why a member cannot move into the campaign at all (company counts aside); undefined when it can. */
export function campaignRule(rules: SelectionRules, campaignId: number | undefined): MoveSkipReason | undefined {
  if (campaignId === rules.campaignId) return 'already_in_campaign';
  if (campaignId !== undefined && !rules.allowDuplicates && !rules.archived?.has(campaignId)) return 'in_other_campaign';
  return undefined;
}

/**
 * The members `amount` picks from, in the requested order: matching the filters, not in the
 * campaign already (those are never counted as matching), and not in another campaign unless
 * duplicates are allowed. The per-company limit is applied while walking them (see CompanyCounter).
 */
export function amountCandidates(chunks: Iterable<DigestChunk>, selection: AmountSelection): { candidates: Candidate[]; counts: Map<number, number> } {
  const entries = entriesOf(chunks);
  const counts = campaignMembersPerCompany(entries, selection.campaignId);
  const matching = entries.filter((entry) => matchesFilters(entry, selection.filters) && campaignRule(selection, entry.campaignId) === undefined);
  const candidates = orderEntries(matching, selection.sortField, selection.direction).map((entry) => ({
    id: entry.id,
    ...(entry.companyId === undefined ? {} : { companyId: entry.companyId }),
  }));
  return { candidates, counts };
}

/**
 * Prospects named by id, in the order given: each one a candidate, or the reason it is left out
 * (not a member of the list, or a campaign rule).
 */
export function idCandidates(
  chunks: Iterable<DigestChunk>,
  ids: number[],
  rules: SelectionRules,
): { candidates: Candidate[]; skipped: { id: number; reason: MoveSkipReason }[]; counts: Map<number, number> } {
  const entries = entriesOf(chunks);
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const candidates: Candidate[] = [];
  const skipped: { id: number; reason: MoveSkipReason }[] = [];
  for (const id of ids) {
    const entry = byId.get(id);
    const reason = entry ? campaignRule(rules, entry.campaignId) : 'not_in_list';
    if (reason) skipped.push({ id, reason });
    else candidates.push({ id, ...(entry?.companyId === undefined ? {} : { companyId: entry.companyId }) });
  }
  return { candidates, skipped, counts: campaignMembersPerCompany(entries, rules.campaignId) };
}

/** The per-company limit: the campaign's members from the list per company, plus the ones taken now. */
export class CompanyCounter {
  constructor(
    private readonly perCompany: number,
    private readonly counts: Map<number, number>,
  ) {}

  /** Whether one more prospect of the company may be taken (one without a company always may). */
  allows(companyId: number | undefined): boolean {
    return companyId === undefined || (this.counts.get(companyId) ?? 0) < this.perCompany;
  }

  take(companyId: number | undefined): void {
    if (companyId !== undefined) this.counts.set(companyId, (this.counts.get(companyId) ?? 0) + 1);
  }

  /** Gives back a place taken for a prospect that was not moved after all. */
  release(companyId: number | undefined): void {
    if (companyId !== undefined) this.counts.set(companyId, Math.max(0, (this.counts.get(companyId) ?? 0) - 1));
  }

  /** A copy to try choices on without taking them. */
  copy(): CompanyCounter {
    return new CompanyCounter(this.perCompany, new Map(this.counts));
  }
}
