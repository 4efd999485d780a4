import { describe, expect, it } from 'vitest';
import type { Company, Prospect } from '../../../shared/domain/leads/lead';
import type { LeadRepository, WorkspaceLeadsPageQuery } from '../../../shared/domain/leads/ports';
import { PAGE_TOO_DEEP, type ProspectSearchDeps, type SearchInput, createProspectSearchService } from '../../../shared/domain/leads/prospect-search-service';

// What a workspace search reads: the point of the cursor is that a page costs a page, not the workspace.
const T = '2026-11-21T12:00:00.000Z';
const WS = 7;

const prospect = (id: number, fields: Partial<Prospect> = {}): Prospect => ({
  ...{ id, workspaceId: WS, firstName: `First${id}`, lastName: 'Last', status: 'NEW', listIds: [], version: 1, createdAt: T, updatedAt: T },
  ...fields,
});
const company = (id: number, name: string): Company => ({
  ...{ id, workspaceId: WS, name, listIds: [], version: 1, membersSyncedVersion: 1, createdAt: T, updatedAt: T },
});

/** An in-memory workspace that counts what is read, paging like DynamoDB (a full page always says "maybe more"). */
function workspace(prospects: Prospect[], companies: Company[]) {
  const reads = { leads: 0, queries: 0, companies: [] as number[] };
  const page =
    <L extends { id: number; workspaceId: number }>(all: L[]) =>
    async (workspaceId: number, query: WorkspaceLeadsPageQuery) => {
      reads.queries += 1;
      const after = query.after;
      const rest = all.filter((l) => l.workspaceId === workspaceId && (after === undefined || l.id > after)).sort((a, b) => a.id - b.id);
      const items = rest.slice(0, query.limit);
      reads.leads += items.length;
      const last = items.at(-1);
      return items.length === query.limit && last ? { items, lastId: last.id } : { items };
    };
  const leads = {
    workspaceProspectsPage: page(prospects),
    workspaceCompaniesPage: page(companies),
    getCompanies: async (ids: number[]) => {
      reads.companies.push(...ids);
      return companies.filter((c) => ids.includes(c.id));
    },
  } as unknown as LeadRepository;
  const live = prospects.filter((p) => p.status !== 'ARCHIVED').length;
  const deps = {
    leads,
    counts: { get: async () => ({ prospects: live, companies: companies.length }) },
  } as unknown as ProspectSearchDeps;
  const service = createProspectSearchService(deps);
  const search = (input: Partial<SearchInput>, timeLeft?: () => number) =>
    service.search(WS, { searchType: 'PEOPLE', source: 'WORKSPACE', page: 1, pageSize: 25, filters: {}, ...input }, timeLeft);
  return { reads, search };
}

const ids = (found: Awaited<ReturnType<ReturnType<typeof workspace>['search']>>) =>
  found.searchType === 'PEOPLE' ? found.prospects.map((p) => p.prospect.id) : found.companies.map((c) => c.id);

describe('workspace search reads', () => {
  const companies = Array.from({ length: 10 }, (_, i) => company(10_000 + i, i === 3 ? 'Rare Corp' : `Company ${i}`));
  const prospects = Array.from({ length: 1000 }, (_, i) =>
    prospect(i + 1, {
      companyId: 10_000 + (i % 10),
      jobTitle: (i + 1) % 100 === 0 ? 'Chief Rare Officer' : 'Engineer',
      ...((i + 1) % 7 === 0 ? { status: 'ARCHIVED' as const } : {}),
    }),
  );

  it('without filters reads the page and one more, and the companies of the page only', async () => {
    const { reads, search } = workspace(prospects, companies);
    const found = await search({ pageSize: 3 });
    expect(ids(found)).toEqual([1, 2, 3]);
    expect(found.total).toBe(1000 - 142);
    expect(reads).toEqual({ leads: 4, queries: 1, companies: [10_000, 10_001, 10_002] });
    expect(found.nextCursor).toEqual(expect.any(String));
  });

  it('continues from a cursor without reading what came before, passing over archived prospects', async () => {
    const { reads, search } = workspace(prospects, companies);
    const first = await search({ pageSize: 5 });
    expect(ids(first)).toEqual([1, 2, 3, 4, 5]);
    reads.leads = 0;
    const second = await search({ pageSize: 5, cursor: first.nextCursor as string });
    expect(ids(second)).toEqual([6, 8, 9, 10, 11]);
    // 6..12 (7 is archived), then 12 as the one more: 7 leads in two Queries.
    expect(reads.leads).toBe(7);
  });

  it('with a filter on prospect values reads until the page is full and reads no company it does not answer with', async () => {
    const { reads, search } = workspace(prospects, companies);
    const found = await search({ pageSize: 2, filters: { job_title: 'rare' } });
    expect(ids(found)).toEqual([100, 200]);
    expect(found.total).toBeNull();
    expect(reads.leads).toBeLessThan(400);
    expect(reads.companies).toEqual([10_009]);
    const next = await search({ pageSize: 2, filters: { job_title: 'rare' }, cursor: found.nextCursor as string });
    expect(ids(next)).toEqual([300, 400]);
  });

  it("reads no further once the function's time is short: the page as it stands, and a cursor where the reading stopped", async () => {
    const { reads, search } = workspace(prospects, companies);
    // 4 s of the function's time per Query, 20 s at first: a fifth Query would start with 4 s left.
    const timeLeft = () => 20_000 - reads.queries * 4_000;
    const found = await search({ pageSize: 5, filters: { job_title: 'rare' } }, timeLeft);
    // Queries of 25, 50, 100 and 200 leads: 1 to 375 read, three matches.
    expect([ids(found), reads.queries, reads.leads]).toEqual([[100, 200, 300], 4, 375]);
    const next = await search({ pageSize: 5, filters: { job_title: 'rare' }, cursor: found.nextCursor as string });
    // 700 is archived.
    expect([ids(next), next.nextCursor]).toEqual([[400, 500, 600, 800, 900], expect.any(String)]);
    // A page whose earlier matches cannot all be passed over in that time has nothing to answer with.
    const deep = workspace(prospects, companies);
    await expect(deep.search({ pageSize: 5, page: 3, filters: { job_title: 'rare' } }, () => 20_000 - deep.reads.queries * 4_000)).rejects.toThrow(PAGE_TOO_DEEP);
  });

  it('with a filter on company values reads the companies of the candidates, each once', async () => {
    const { reads, search } = workspace(prospects, companies);
    const found = await search({ pageSize: 3, filters: { company_name: 'rare corp' } });
    // 14 is archived.
    expect(ids(found)).toEqual([4, 24, 34]);
    expect(new Set(reads.companies).size).toBe(reads.companies.length);
  });

  it('ends with no cursor when the last page is exactly full, and pages past the end are empty', async () => {
    const { search } = workspace(prospects.slice(0, 6), companies);
    const found = await search({ pageSize: 5 });
    expect(ids(found)).toEqual([1, 2, 3, 4, 5]);
    expect(found.nextCursor).toEqual(expect.any(String));
    const exact = await search({ pageSize: 6 });
    expect(ids(exact)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(exact.nextCursor).toBeNull();
    const beyond = await search({ pageSize: 6, page: 1_000_000_000 });
    expect(beyond).toMatchObject({ nextCursor: null, prospects: [], total: 6 });
  });

  it('without a cursor, page n reads the matches before it (the cursor is the cheap way)', async () => {
    const { reads, search } = workspace(prospects, companies);
    const third = await search({ pageSize: 10, page: 3 });
    expect(ids(third)).toEqual(prospects.filter((p) => p.status !== 'ARCHIVED').slice(20, 30).map((p) => p.id));
    expect(reads.leads).toBeGreaterThan(30);
    const pageCompanies = new Set(third.searchType === 'PEOPLE' ? third.prospects.map((p) => p.prospect.companyId) : []);
    expect(new Set(reads.companies)).toEqual(pageCompanies);
  });
});
