import { DomainError } from '../errors';
import type { Clock } from '../ports';
import { type ProspectInput, normalizeCompany, normalizeProspect } from './import-rows';
import { type Company, PROSPECT_STATUS, type Prospect, type SearchType } from './lead';
import type { LeadWriter, UpsertOutcome } from './lead-writer';
import type { DirectoryProvider, LeadRepository, SearchUsageRepository } from './ports';
import { companyFacets, matchesFilters, parseSearchFilters, prospectFacets } from './search-filters';

import type { SearchSource } from './lead';

export { SEARCH_SOURCES, type SearchSource } from './lead';

export interface ProspectSearchDeps {
  directory: DirectoryProvider;
  usage: SearchUsageRepository;
  leads: LeadRepository;
  writer: LeadWriter;
  clock: Clock;
  /** Directory searches per workspace per calendar month (UTC). */
  monthlyQuota: number;
}

export interface SearchInput {
  searchType: SearchType;
  source: SearchSource;
  page: number;
  pageSize: number;
  filters: Record<string, unknown>;
}

export type SearchResults =
  | { searchType: 'PEOPLE'; total: number; prospects: { prospect: Prospect; company: Company | undefined }[] }
  | { searchType: 'COMPANY'; total: number; companies: Company[] };

const monthOf = (date: Date): string => date.toISOString().slice(0, 7);

function nextMonthStart(date: Date): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}

/**
 * Searches the B2B directory (or only the workspace's own leads) and saves directory results as
 * workspace prospects and companies, matched by identity so a repeated search adds nothing new.
 */
export function createProspectSearchService(deps: ProspectSearchDeps) {
  /** The leads of settled upserts, in input order; duplicates resolve to the lead of their first input. */
  function settledLeads<T extends Prospect | Company>(outcomes: UpsertOutcome<T>[]): T[] {
    const leads = new Map<number, T>();
    const resolve = (i: number, depth = 0): T | undefined => {
      const outcome = outcomes[i];
      if (!outcome || outcome.status === 'skipped' || depth > outcomes.length) return undefined;
      if (outcome.status === 'duplicate') return resolve(outcome.of, depth + 1);
      // Searches do not overwrite, so no outcome is a fingerprint match.
      return 'lead' in outcome ? outcome.lead : undefined;
    };
    outcomes.forEach((_, i) => {
      const lead = resolve(i);
      if (lead && !leads.has(lead.id)) leads.set(lead.id, lead);
    });
    return [...leads.values()];
  }

  async function withCompanies(workspaceId: number, prospects: Prospect[]) {
    const ids = [...new Set(prospects.flatMap((p) => (p.companyId ? [p.companyId] : [])))];
    const companies = new Map(
      (ids.length ? await deps.leads.getCompanies(ids) : []).filter((c) => c.workspaceId === workspaceId).map((c) => [c.id, c]),
    );
    return prospects.map((prospect) => ({ prospect, company: companies.get(prospect.companyId ?? -1) }));
  }

  async function searchDirectory(workspaceId: number, input: SearchInput, filters: ReturnType<typeof parseSearchFilters>): Promise<SearchResults> {
    const now = deps.clock.now();
    const month = monthOf(now);
    if (!(await deps.usage.reserve(workspaceId, month, deps.monthlyQuota))) {
      throw new DomainError(
        'quota_exceeded',
        `Monthly search quota exceeded: ${deps.monthlyQuota} directory searches per workspace per month; it resets on ${nextMonthStart(now)}`,
      );
    }
    const request = { filters, page: input.page, pageSize: input.pageSize };
    let found: { total: number; people?: Record<string, unknown>[]; companies?: Record<string, unknown>[] };
    try {
      found = input.searchType === 'PEOPLE' ? await deps.directory.searchPeople(request) : await deps.directory.searchCompanies(request);
    } catch (error) {
      await deps.usage.release(workspaceId, month);
      throw error;
    }

    if (input.searchType === 'COMPANY') {
      const inputs = (found.companies ?? []).flatMap((raw) => {
        const company = normalizeCompany(raw);
        return company ? [company] : [];
      });
      const outcomes = await deps.writer.upsertCompanies(workspaceId, inputs, { overwrite: false });
      return { searchType: 'COMPANY', total: found.total, companies: settledLeads(outcomes) };
    }
    const inputs = (found.people ?? []).flatMap((raw): ProspectInput[] => {
      const person = normalizeProspect(raw);
      if (!person) return [];
      const seniority = typeof raw.seniority === 'string' && raw.seniority ? raw.seniority : undefined;
      const department = typeof raw.department === 'string' && raw.department ? raw.department : undefined;
      return [{ ...person, fields: { ...person.fields, ...(seniority ? { seniority } : {}), ...(department ? { department } : {}) } }];
    });
    const outcomes = await deps.writer.upsertProspects(workspaceId, inputs, { overwrite: false });
    return { searchType: 'PEOPLE', total: found.total, prospects: await withCompanies(workspaceId, settledLeads(outcomes)) };
  }

  /** Only the workspace's own leads (archived prospects excluded), in id order. */
  async function searchWorkspace(workspaceId: number, input: SearchInput, filters: ReturnType<typeof parseSearchFilters>): Promise<SearchResults> {
    const offset = (input.page - 1) * input.pageSize;
    const companies = new Map((await deps.leads.workspaceCompanies(workspaceId)).map((c) => [c.id, c]));
    if (input.searchType === 'COMPANY') {
      const matches = [...companies.values()].filter((c) => matchesFilters(companyFacets(c), filters)).sort((a, b) => a.id - b.id);
      return { searchType: 'COMPANY', total: matches.length, companies: matches.slice(offset, offset + input.pageSize) };
    }
    const matches = (await deps.leads.workspaceProspects(workspaceId))
      .filter((p) => p.status !== PROSPECT_STATUS.archived)
      .filter((p) => matchesFilters(prospectFacets(p, companies.get(p.companyId ?? -1)), filters))
      .sort((a, b) => a.id - b.id);
    return {
      searchType: 'PEOPLE',
      total: matches.length,
      prospects: matches.slice(offset, offset + input.pageSize).map((prospect) => ({ prospect, company: companies.get(prospect.companyId ?? -1) })),
    };
  }

  return {
    async search(workspaceId: number, input: SearchInput): Promise<SearchResults> {
      const filters = parseSearchFilters(input.searchType, input.filters);
      return input.source === 'WORKSPACE' ? searchWorkspace(workspaceId, input, filters) : searchDirectory(workspaceId, input, filters);
    },
  };
}

export type ProspectSearchService = ReturnType<typeof createProspectSearchService>;
