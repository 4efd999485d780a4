import { DomainError, validationError } from '../errors';
import type { Clock } from '../ports';
import { type ProspectInput, normalizeCompany, normalizeProspect } from './import-rows';
import { type Company, PROSPECT_STATUS, type Prospect, type SearchType } from './lead';
import type { LeadWriter, UpsertOutcome } from './lead-writer';
import type {
  DirectoryProvider,
  LeadRepository,
  SearchUsageRepository,
  WorkspaceLeadCounts,
  WorkspaceLeadsPage,
  WorkspaceLeadsPageQuery,
} from './ports';
import { CURSOR_NEEDS_WORKSPACE, CURSOR_NOT_VALID, type SearchCursorScope, decodeSearchCursor, encodeSearchCursor } from './search-cursor';
import { COMPANY_FACET_KEYS, type SearchFilters, companyFacets, matchesFilters, parseSearchFilters, prospectFacets } from './search-filters';

import type { SearchSource } from './lead';

export { SEARCH_SOURCES, type SearchSource } from './lead';

export interface ProspectSearchDeps {
  directory: DirectoryProvider;
  usage: SearchUsageRepository;
  leads: LeadRepository;
  /** The workspace's lead counts: the total of an unfiltered workspace search. */
  counts: WorkspaceLeadCounts;
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
  /** The `nextCursor` of a previous workspace search with the same type and filters. */
  cursor?: string | undefined;
}

/**
 * `total` is null for a workspace search with filters (counting its matches would mean reading
 * the whole workspace). `nextCursor` continues a workspace search; null when it has no more
 * results, and always for the directory.
 */
export type SearchResults =
  | { searchType: 'PEOPLE'; total: number | null; nextCursor: string | null; prospects: { prospect: Prospect; company: Company | undefined }[] }
  | { searchType: 'COMPANY'; total: number | null; nextCursor: string | null; companies: Company[] };

/**
 * Leads read by one Query of a workspace search: what is still wanted without filters; with
 * filters (whose match rate is unknown) at least FILTERED_FIRST_READ, doubling with each Query.
 * Never above MAX_READ (about DynamoDB's 1 MB page of leads).
 */
const FILTERED_FIRST_READ = 25;
const MAX_READ = 1000;

/**
 * A workspace search reads no further once its function has less than this left (a Query of up to
 * 1 MB, the page's companies and the answer take well under it): it answers the page as it stands,
 * with a cursor where the reading stopped, instead of timing out on a filter that matches little
 * in a large workspace.
 */
export const SEARCH_READ_RESERVE_MS = 5_000;

/** A `page` > 1 (no cursor) whose earlier matches could not all be passed over in one request's time. */
export const PAGE_TOO_DEEP =
  'page is too far into this search to reach in one request: page through it with next_cursor (from page 1)';

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

  /** The companies of prospects of one workspace, each read once per request (another workspace's never). */
  function companyCache(workspaceId: number) {
    const known = new Map<number, Company | undefined>();
    return {
      async load(prospects: Prospect[]): Promise<void> {
        const ids = [...new Set(prospects.flatMap((p) => (p.companyId && !known.has(p.companyId) ? [p.companyId] : [])))];
        if (ids.length === 0) return;
        const found = new Map((await deps.leads.getCompanies(ids)).filter((c) => c.workspaceId === workspaceId).map((c) => [c.id, c]));
        for (const id of ids) known.set(id, found.get(id));
      },
      of: (prospect: Prospect): Company | undefined => (prospect.companyId ? known.get(prospect.companyId) : undefined),
    };
  }

  async function withCompanies(workspaceId: number, prospects: Prospect[]) {
    const companies = companyCache(workspaceId);
    await companies.load(prospects);
    return prospects.map((prospect) => ({ prospect, company: companies.of(prospect) }));
  }

  async function searchDirectory(workspaceId: number, input: SearchInput, filters: ReturnType<typeof parseSearchFilters>): Promise<SearchResults> {
    const now = deps.clock.now();
    const month = monthOf(now);
    if (!(await deps.usage.reserve(workspaceId, month, deps.monthlyQuota))) {
      const resets = nextMonthStart(now);
      // Retry-After: the seconds until the quota resets (the 1st of next month, 00:00 UTC).
      throw new DomainError(
        'quota_exceeded',
        `Monthly search quota exceeded: ${deps.monthlyQuota} directory searches per workspace per month; it resets on ${resets}`,
        {},
        Math.max(1, Math.ceil((Date.parse(`${resets}T00:00:00.000Z`) - now.getTime()) / 1000)),
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
      return { searchType: 'COMPANY', total: found.total, nextCursor: null, companies: settledLeads(outcomes) };
    }
    const inputs = (found.people ?? []).flatMap((raw): ProspectInput[] => {
      const person = normalizeProspect(raw);
      if (!person) return [];
      const seniority = typeof raw.seniority === 'string' && raw.seniority ? raw.seniority : undefined;
      const department = typeof raw.department === 'string' && raw.department ? raw.department : undefined;
      return [{ ...person, fields: { ...person.fields, ...(seniority ? { seniority } : {}), ...(department ? { department } : {}) } }];
    });
    const outcomes = await deps.writer.upsertProspects(workspaceId, inputs, { overwrite: false });
    return { searchType: 'PEOPLE', total: found.total, nextCursor: null, prospects: await withCompanies(workspaceId, settledLeads(outcomes)) };
  }

  /**
   * Reads a workspace's leads in id order from `after`, passes over the first `skip` matches, keeps
   * the next `pageSize` and looks for one more. When there is one, `next` is the id read just
   * before it (the next page starts right at it); otherwise the workspace has no more matches.
   */
  async function collect<T extends { id: number }>(
    read: (query: WorkspaceLeadsPageQuery) => Promise<WorkspaceLeadsPage<T>>,
    select: (batch: T[]) => Promise<T[]>,
    options: { after: number | undefined; skip: number; pageSize: number; filtered: boolean; timeLeft?: () => number },
  ): Promise<{ page: T[]; next?: number }> {
    const page: T[] = [];
    let { after, skip } = options;
    let position = after;
    for (let round = 0; ; round += 1) {
      // Out of time after a round: the page as it stands (maybe short, or empty), going on from
      // the last lead read. While still passing over a `page`'s earlier matches there is no page to give.
      if (round > 0 && options.timeLeft && options.timeLeft() < SEARCH_READ_RESERVE_MS) {
        if (skip > 0) throw validationError(PAGE_TOO_DEEP);
        return position === undefined ? { page } : { page, next: position };
      }
      const wanted = skip + options.pageSize + 1 - page.length;
      const limit = Math.min(MAX_READ, options.filtered ? Math.max(wanted, FILTERED_FIRST_READ) * 2 ** round : wanted);
      const batch = await read(after === undefined ? { limit } : { after, limit });
      const matched = new Set(await select(batch.items));
      for (const lead of batch.items) {
        if (matched.has(lead)) {
          if (skip > 0) skip -= 1;
          else if (page.length < options.pageSize) page.push(lead);
          else return position === undefined ? { page } : { page, next: position };
        }
        position = lead.id;
      }
      if (batch.lastId === undefined) return { page };
      after = batch.lastId;
    }
  }

  /**
   * Only the workspace's own leads (archived prospects excluded), in id order, read a Query at a
   * time from where the cursor (or `page`) puts the search until the page is full or the
   * workspace ends; the filters are applied to what is read.
   */
  async function searchWorkspace(scope: SearchCursorScope, input: SearchInput, after: number | undefined, timeLeft?: () => number): Promise<SearchResults> {
    const { workspaceId, filters } = scope;
    const filtered = Object.keys(filters).length > 0;
    // Without a cursor, `page` skips the matches of the pages before it, read and passed over.
    const options = { after, skip: after === undefined ? (input.page - 1) * input.pageSize : 0, pageSize: input.pageSize, filtered, ...(timeLeft ? { timeLeft } : {}) };
    const cursorAfter = (next: number | undefined) => (next === undefined ? null : encodeSearchCursor(scope, next));
    const total = async (kind: 'prospects' | 'companies') => (filtered ? null : (await deps.counts.get(workspaceId))[kind]);

    if (input.searchType === 'COMPANY') {
      const [found, count] = await Promise.all([
        collect(
          (query) => deps.leads.workspaceCompaniesPage(workspaceId, query),
          async (batch) => batch.filter((c) => matchesFilters(companyFacets(c), filters)),
          options,
        ),
        total('companies'),
      ]);
      return { searchType: 'COMPANY', total: count, nextCursor: cursorAfter(found.next), companies: found.page };
    }

    const companies = companyCache(workspaceId);
    // Only filters on company values need a candidate's company before matching; the page needs its own.
    const matchNeedsCompany = Object.keys(filters).some((key) => COMPANY_FACET_KEYS.has(key));
    const select = async (batch: Prospect[]) => {
      const live = batch.filter((p) => p.status !== PROSPECT_STATUS.archived);
      if (!filtered) return live;
      if (matchNeedsCompany) await companies.load(live);
      return live.filter((p) => matchesFilters(prospectFacets(p, companies.of(p)), filters));
    };
    const [found, count] = await Promise.all([
      collect((query) => deps.leads.workspaceProspectsPage(workspaceId, query), select, options),
      total('prospects'),
    ]);
    await companies.load(found.page);
    return {
      searchType: 'PEOPLE',
      total: count,
      nextCursor: cursorAfter(found.next),
      prospects: found.page.map((prospect) => ({ prospect, company: companies.of(prospect) })),
    };
  }

  return {
    /**
     * A search. Problems are answered in this order: the filters, then the cursor (only with
     * source WORKSPACE, and only one this search gave: same workspace, type and filters).
     * `timeLeft`, the function's time left, bounds how far a WORKSPACE search reads.
     */
    async search(workspaceId: number, input: SearchInput, timeLeft?: () => number): Promise<SearchResults> {
      const filters: SearchFilters = parseSearchFilters(input.searchType, input.filters);
      if (input.source !== 'WORKSPACE') {
        if (input.cursor !== undefined) throw validationError(CURSOR_NEEDS_WORKSPACE);
        return searchDirectory(workspaceId, input, filters);
      }
      const scope = { workspaceId, searchType: input.searchType, filters };
      const after = input.cursor === undefined ? undefined : decodeSearchCursor(scope, input.cursor);
      if (input.cursor !== undefined && after === undefined) throw validationError(CURSOR_NOT_VALID);
      return searchWorkspace(scope, input, after, timeLeft);
    },
  };
}

export type ProspectSearchService = ReturnType<typeof createProspectSearchService>;
