import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxData } from '../../../infra/local/sandbox-directory/data';
import { type TestStack, createKey, signUp } from '../../support/test-stack';
import {
  type CompanyView,
  type ProspectView,
  type Workspace,
  createList,
  expectedCompany,
  expectedCompanySummary,
  expectedProspect,
  importLeads,
  leadsOf,
  leadsStack,
  person,
} from './helpers';

interface SearchResponse<T = ProspectView> {
  success: boolean;
  search_type: string;
  source: string;
  page: number;
  page_size: number;
  total_count: number | null;
  next_cursor: string | null;
  results: T[];
}

const fold = (value: string) =>
  value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();

describe('prospect search', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;

  const search = <T = ProspectView>(ws: Workspace, body: unknown) =>
    stack.call<SearchResponse<T>>('POST', '/public/prospects/search/', { apiKey: ws.key, body });
  const workspaceCount = async (ws: Workspace, searchType = 'PEOPLE') =>
    (await search(ws, { search_type: searchType, source: 'WORKSPACE', page_size: 1 })).body.total_count;

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  it('searches the directory for people with defaults and answers the documented envelope', async () => {
    const response = await search(alice, { filters: { job_title: 'CTO' } });
    expect(response.status).toBe(200);
    const expected = sandboxData().people.filter((p) => fold(p.title).includes('cto'));
    expect(response.body).toMatchObject({
      success: true,
      search_type: 'PEOPLE',
      source: 'DIRECTORY',
      page: 1,
      page_size: 25,
      total_count: expected.length,
    });
    expect(response.body.results.map((r) => r.network_profile_url)).toEqual(expected.slice(0, 25).map((p) => p.linkedin_url.replace(/\/$/, '')));
    const [first] = response.body.results;
    const source = expected[0];
    expect(first).toEqual(
      expectedProspect({
        first_name: source?.first_name,
        last_name: source?.last_name,
        email: source?.email ?? '',
        phone_number: source?.phone ?? '',
        job_title: source?.title,
        headline: source?.headline,
        location: source?.location,
        network_profile_url: source?.linkedin_url.replace(/\/$/, ''),
        profile_picture_url: source?.photo_url,
        status: 'NEW',
        company: expectedCompanySummary({
          name: source?.organization.name,
          website_url: source?.organization.website_url,
          network_url: source?.organization.linkedin_url.replace(/\/$/, ''),
          industry: source?.organization.industry,
          location: source?.organization.location,
          amount_of_employees: source?.organization.employee_range,
        }),
      }),
    );
  });

  it('saves results as workspace prospects: searching twice returns the same ids and adds nothing', async () => {
    const body = { filters: { seniority: 'VP', department: 'Sales', location: 'Berlin' }, page_size: 10 };
    const first = await search(alice, body);
    const countAfterFirst = await workspaceCount(alice);
    const second = await search(alice, body);
    expect(second.body.results.map((r) => r.id)).toEqual(first.body.results.map((r) => r.id));
    expect(await workspaceCount(alice)).toBe(countAfterFirst);
    const expected = sandboxData().people.filter((p) => p.seniority === 'VP' && p.department === 'Sales' && p.location.includes('Berlin'));
    expect(first.body.total_count).toBe(expected.length);
    expect(first.body.results.map((r) => r.network_profile_url)).toEqual(
      expected.slice(0, 10).map((p) => p.linkedin_url.replace(/\/$/, '')),
    );
  });

  it('matches a result to a lead the workspace imported before (same profile URL), without changing it', async () => {
    const target = sandboxData().people.find((p) => p.title === 'Head of Marketing' && p.location.startsWith('Lisbon'));
    const list = await createList(stack, alice, 'Imported first');
    const imported = await importLeads(stack, alice, list.id, {
      leads: [{ first_name: 'My', last_name: 'Own Name', network_profile_url: target?.linkedin_url }],
    });
    const found = await search(alice, { filters: { job_title: 'Head of Marketing', location: 'Lisbon' }, page_size: 100 });
    const match = found.body.results.find((r) => r.id === imported.leads[0]?.id);
    expect(match).toEqual(
      expectedProspect({ id: imported.leads[0]?.id, first_name: 'My', last_name: 'Own Name', network_profile_url: target?.linkedin_url.replace(/\/$/, '') }),
    );
  });

  it('takes a filter value as a string, an array (any of) or {must, doesnt}', async () => {
    const people = sandboxData().people;
    const any = await search(alice, { filters: { seniority: ['C-Level', 'VP'], industry: 'Banking' }, page_size: 5 });
    expect(any.body.total_count).toBe(
      people.filter((p) => ['C-Level', 'VP'].includes(p.seniority) && p.organization.industry === 'Banking').length,
    );
    const mustDoesnt = await search(alice, {
      filters: { job_title: { must: ['engineer'], doesnt: ['senior'] }, company_size: ['11-50', '51-200'] },
      page_size: 5,
    });
    const expected = people.filter(
      (p) =>
        fold(p.title).includes('engineer') &&
        !fold(p.title).includes('senior') &&
        ['11-50', '51-200'].includes(p.organization.employee_range),
    );
    expect(mustDoesnt.body.total_count).toBe(expected.length);
    expect(mustDoesnt.body.results.map((r) => [r.job_title, r.network_profile_url])).toEqual(
      expected.slice(0, 5).map((p) => [p.title, p.linkedin_url.replace(/\/$/, '')]),
    );
    const keywords = await search(alice, { filters: { keywords: 'logistics', company_name: { doesnt: ['Inc'] } }, page_size: 5 });
    // Keywords look at the headline, title, company name and industry, and the name.
    const byKeyword = people.filter(
      (p) =>
        [p.headline, p.title, p.organization.name, p.organization.industry, p.first_name, p.last_name].some((value) => fold(value).includes('logistics')) &&
        !fold(p.organization.name).includes('inc'),
    );
    expect(keywords.body.total_count).toBe(byKeyword.length);
    expect(byKeyword).toHaveLength(1690); // the seeded sandbox data set
    expect(keywords.body.results.map((r) => [r.company?.name, r.network_profile_url])).toEqual(
      byKeyword.slice(0, 5).map((p) => [p.organization.name, p.linkedin_url.replace(/\/$/, '')]),
    );
  });

  it('pages through directory results', async () => {
    const body = { filters: { department: 'Finance', seniority: 'Director' }, page_size: 3 };
    const one = await search(alice, body);
    const two = await search(alice, { ...body, page: 2 });
    const directors = sandboxData().people.filter((p) => p.department === 'Finance' && p.seniority === 'Director');
    expect(one.body.total_count).toBe(directors.length);
    expect(directors).toHaveLength(150); // the seeded sandbox data set
    expect(two.body).toMatchObject({ success: true, search_type: 'PEOPLE', source: 'DIRECTORY', page: 2, page_size: 3, total_count: one.body.total_count });
    expect(two.body.results.map((r) => r.network_profile_url)).toEqual(directors.slice(3, 6).map((p) => p.linkedin_url.replace(/\/$/, '')));
    expect(two.body.results.map((r) => r.id).some((id) => one.body.results.some((r) => r.id === id))).toBe(false);
    const beyond = await search(alice, { ...body, page: 10_000 });
    expect(beyond.body).toEqual({
      success: true,
      search_type: 'PEOPLE',
      source: 'DIRECTORY',
      page: 10_000,
      page_size: 3,
      total_count: one.body.total_count,
      next_cursor: null,
      results: [],
    });
    // The search has no highest page (docs/lead-lists.md): a page past the end is empty, however far.
    const far = await search(alice, { source: 'WORKSPACE', page: 1e9 });
    expect(far.status).toBe(200);
    expect(far.body).toEqual({
      success: true,
      search_type: 'PEOPLE',
      source: 'WORKSPACE',
      page: 1_000_000_000,
      page_size: 25,
      total_count: await workspaceCount(alice),
      next_cursor: null,
      results: [],
    });
  });

  it('searches companies and saves them as workspace companies, ready for add-leads', async () => {
    const response = await search<CompanyView>(alice, { search_type: 'COMPANY', filters: { industry: 'Energy', company_size: '10001+' } });
    expect(response.status).toBe(200);
    const expected = sandboxData().companies.filter((c) => c.industry === 'Energy' && c.employee_range === '10001+');
    expect(response.body).toMatchObject({ success: true, search_type: 'COMPANY', source: 'DIRECTORY', page: 1, page_size: 25, total_count: expected.length });
    expect(response.body.results.map((c) => c.name)).toEqual(expected.slice(0, 25).map((c) => c.name));
    expect(Object.keys(response.body.results[0] ?? {}).sort()).toEqual(
      ['amount_of_employees', 'id', 'industry', 'location', 'logo_url', 'name', 'network_url', 'revenue', 'website_url'],
    );
    const [company] = expected;
    expect(response.body.results[0]).toEqual(
      expectedCompany({
        name: company?.name,
        website_url: company?.website_url,
        network_url: company?.linkedin_url.replace(/\/$/, ''),
        industry: company?.industry,
        location: company?.location,
        amount_of_employees: company?.employee_range,
        revenue: company?.revenue_range,
        logo_url: company?.logo_url,
      }),
    );
    const again = await search<CompanyView>(alice, { search_type: 'COMPANY', filters: { industry: 'Energy', company_size: '10001+' } });
    expect(again.body.results.map((c) => c.id)).toEqual(response.body.results.map((c) => c.id));

    const list = await createList(stack, alice, 'Energy giants', 'COMPANY');
    const ids = response.body.results.slice(0, 3).map((c) => c.id);
    const added = await stack.call('POST', `/public/lead-lists/${list.id}/add-leads/`, { apiKey: alice.key, body: { company_ids: ids } });
    expect(added.body).toEqual({ success: true, search_type: 'COMPANY', added: 3, added_ids: ids, skipped: [], total_prospects: 3 });
    expect((await leadsOf(stack, alice, list.id)).companies?.map((c) => c.id)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('people results go straight into a PEOPLE list with add-leads and share companies with the company search', async () => {
    const company = sandboxData().people.find((p) => p.seniority === 'C-Level')?.organization.name as string;
    const found = await search(alice, { filters: { company_name: company, seniority: 'C-Level' }, page_size: 4 });
    const ids = found.body.results.map((r) => r.id);
    const atCompany = sandboxData().people.filter((p) => fold(p.organization.name).includes(fold(company)) && p.seniority === 'C-Level');
    expect(found.body.total_count).toBe(atCompany.length);
    expect(atCompany).toHaveLength(1); // the seeded sandbox data set
    expect(ids).toHaveLength(Math.min(4, atCompany.length));
    expect(found.body.results.map((r) => r.network_profile_url)).toEqual(atCompany.slice(0, 4).map((p) => p.linkedin_url.replace(/\/$/, '')));
    const list = await createList(stack, alice, 'From search');
    const added = await stack.call('POST', `/public/lead-lists/${list.id}/add-leads/`, { apiKey: alice.key, body: { prospect_ids: ids } });
    expect(added.body).toEqual({ success: true, search_type: 'PEOPLE', added: ids.length, added_ids: ids, skipped: [], total_prospects: ids.length });
    const page = await leadsOf(stack, alice, list.id, `company_name=${encodeURIComponent(company)}`);
    expect(page.total_count).toBe(ids.length);
    const companies = await search<CompanyView>(alice, { search_type: 'COMPANY', filters: { name: found.body.results[0]?.company?.name as string } });
    expect(companies.body.results.map((c) => c.id)).toContain(found.body.results[0]?.company?.id);
  });

  it('source WORKSPACE searches only the workspace’s own leads, without archived prospects', async () => {
    const list = await createList(stack, bob, 'Bob own');
    const imported = await importLeads(stack, bob, list.id, {
      leads: [
        person(1, { job_title: 'Chief Quokka Officer', company_name: 'Quokka Co', company_industry: 'Wildlife' }),
        person(2, { job_title: 'Quokka Wrangler' }),
        person(3, { job_title: 'Accountant' }),
      ],
    });
    const found = await search(bob, { source: 'WORKSPACE', filters: { job_title: 'quokka' } });
    // With filters the total is not counted (that would read the whole workspace): null.
    expect(found.body).toMatchObject({ success: true, search_type: 'PEOPLE', source: 'WORKSPACE', page: 1, page_size: 25, total_count: null });
    expect(found.body.results.map((r) => r.first_name)).toEqual(['First1', 'First2']);
    const byIndustry = await search(bob, { source: 'WORKSPACE', filters: { industry: 'wildlife' } });
    expect(byIndustry.body.results.map((r) => r.first_name)).toEqual(['First1']);
    // Alice sees none of Bob's leads.
    const alices = await search(alice, { source: 'WORKSPACE', filters: { job_title: 'quokka' } });
    expect(alices.body).toMatchObject({ total_count: null, next_cursor: null, results: [] });
    await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: bob.key, body: { prospect_ids: [imported.leads[1]?.id] } });
    const afterArchive = await search(bob, { source: 'WORKSPACE', filters: { job_title: 'quokka' } });
    expect(afterArchive.body.results.map((r) => r.first_name)).toEqual(['First1']);
    const companies = await search<CompanyView>(bob, { search_type: 'COMPANY', source: 'WORKSPACE' });
    expect(companies.body.results.map((c) => c.name)).toEqual(['Quokka Co']);
  });

  it('keeps workspaces apart: the same directory person becomes a separate prospect in each workspace', async () => {
    const body = { filters: { job_title: 'CFO', location: 'Tokyo' }, page_size: 2 };
    const a = await search(alice, body);
    const b = await search(bob, body);
    expect(b.body.results.map((r) => r.network_profile_url)).toEqual(a.body.results.map((r) => r.network_profile_url));
    for (const id of b.body.results.map((r) => r.id)) expect(a.body.results.map((r) => r.id)).not.toContain(id);
  });

  /** A workspace of its own, with nothing in it. */
  const freshWorkspace = async (): Promise<Workspace> => {
    const user = await signUp(stack);
    return { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
  };

  /** Follows next_cursor from the first page to the end; every page's body. */
  async function allPages<T>(ws: Workspace, body: Record<string, unknown>): Promise<SearchResponse<T>[]> {
    const pages: SearchResponse<T>[] = [];
    let cursor: string | null | undefined;
    do {
      const response = await search<T>(ws, { ...body, ...(cursor ? { cursor } : {}) });
      expect(response.status, response.text).toBe(200);
      pages.push(response.body);
      cursor = response.body.next_cursor;
    } while (cursor && pages.length < 50);
    return pages;
  }

  describe('source WORKSPACE, paged by cursor', () => {
    it('gives every prospect exactly once, in id order, page_size at a time, then next_cursor null; total_count exact', async () => {
      const carol = await freshWorkspace();
      const list = await createList(stack, carol, 'Seven');
      const ids = (await importLeads(stack, carol, list.id, { leads: [1, 2, 3, 4, 5, 6, 7].map((n) => person(n)) })).leads.map((l) => l.id);
      const pages = await allPages<ProspectView>(carol, { source: 'WORKSPACE', page_size: 3 });
      expect(pages.map((page) => page.results.length)).toEqual([3, 3, 1]);
      expect(pages.flatMap((page) => page.results.map((r) => r.id))).toEqual([...ids].sort((a, b) => a - b));
      expect(pages.map((page) => page.total_count)).toEqual([7, 7, 7]);
      expect(pages.map((page) => typeof page.next_cursor)).toEqual(['string', 'string', 'object']);
      expect(pages[2]?.next_cursor).toBeNull();
      // `page` without a cursor reads forward to the same place; with a cursor it is only echoed.
      const second = await search(carol, { source: 'WORKSPACE', page_size: 3, page: 2 });
      expect(second.body.results.map((r) => r.id)).toEqual(pages[1]?.results.map((r) => r.id));
      expect(second.body.next_cursor).toBe(pages[1]?.next_cursor);
      const echoed = await search(carol, { source: 'WORKSPACE', page_size: 3, page: 9, cursor: pages[0]?.next_cursor });
      expect(echoed.body).toMatchObject({ page: 9, page_size: 3, total_count: 7 });
      expect(echoed.body.results.map((r) => r.id)).toEqual(pages[1]?.results.map((r) => r.id));
      // The end is known when the last page is exactly full, and a page_size may change between pages.
      const whole = await search(carol, { source: 'WORKSPACE', page_size: 7 });
      expect(whole.body.results).toHaveLength(7);
      expect(whole.body.next_cursor).toBeNull();
      const rest = await search(carol, { source: 'WORKSPACE', page_size: 10, cursor: pages[0]?.next_cursor });
      expect(rest.body.results.map((r) => r.id)).toEqual(pages.slice(1).flatMap((page) => page.results.map((r) => r.id)));
      expect(rest.body.next_cursor).toBeNull();
      // `cursor: null` is the first page.
      const first = await search(carol, { source: 'WORKSPACE', page_size: 3, cursor: null });
      expect(first.body).toMatchObject({ next_cursor: pages[0]?.next_cursor });
      expect(first.body.results.map((r) => r.id)).toEqual(pages[0]?.results.map((r) => r.id));
    });

    it('applies filters page by page: only matches, each once; total_count null; archived prospects left out', async () => {
      const dave = await freshWorkspace();
      const list = await createList(stack, dave, 'Mixed');
      const rows = Array.from({ length: 11 }, (_, i) =>
        person(100 + i, {
          job_title: i % 3 === 0 ? 'Platform Engineer' : 'Account Executive',
          company_name: i % 2 === 0 ? 'Even Corp' : 'Odd Ltd',
        }),
      );
      const ids = (await importLeads(stack, dave, list.id, { leads: rows })).leads.map((l) => l.id);
      const engineers = ids.filter((_, i) => i % 3 === 0).sort((a, b) => a - b);
      const pages = await allPages<ProspectView>(dave, { source: 'WORKSPACE', page_size: 2, filters: { job_title: 'engineer' } });
      expect(pages.flatMap((page) => page.results.map((r) => r.id))).toEqual(engineers);
      expect(pages.map((page) => page.results.length)).toEqual([2, 2]);
      expect(pages.every((page) => page.total_count === null)).toBe(true);
      // A filter on the company's values, and one that both sides of the pages must match.
      const evenEngineers = ids.filter((_, i) => i % 3 === 0 && i % 2 === 0).sort((a, b) => a - b);
      const both = await allPages<ProspectView>(dave, {
        source: 'WORKSPACE',
        page_size: 1,
        filters: { job_title: 'engineer', company_name: 'even corp' },
      });
      expect(both.flatMap((page) => page.results.map((r) => [r.id, r.company?.name]))).toEqual(evenEngineers.map((id) => [id, 'Even Corp']));
      expect(both.at(-1)?.next_cursor).toBeNull();
      // The same filters written another way (case, array, alias) continue the same search.
      const again = await search(dave, { source: 'WORKSPACE', page_size: 2, filters: { current_title: ['ENGINEER'] }, cursor: pages[0]?.next_cursor });
      expect(again.status, again.text).toBe(200);
      expect(again.body.results.map((r) => r.id)).toEqual(pages[1]?.results.map((r) => r.id));
      // An archived prospect drops out of the pages still to come.
      await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: dave.key, body: { prospect_ids: [engineers[2]] } });
      const afterArchive = await search(dave, { source: 'WORKSPACE', page_size: 2, filters: { job_title: 'engineer' }, cursor: pages[0]?.next_cursor });
      expect(afterArchive.body.results.map((r) => r.id)).toEqual([engineers[3]]);
      expect(afterArchive.body.next_cursor).toBeNull();
    });

    it('pages companies by cursor too, with their exact count', async () => {
      const erin = await freshWorkspace();
      const list = await createList(stack, erin, 'People at five companies');
      await importLeads(stack, erin, list.id, { leads: [1, 2, 3, 4, 5].map((n) => person(200 + n, { company_name: `Company ${n}` })) });
      const pages = await allPages<CompanyView>(erin, { search_type: 'COMPANY', source: 'WORKSPACE', page_size: 2 });
      expect(pages.flatMap((page) => page.results.map((c) => c.name))).toEqual(['Company 1', 'Company 2', 'Company 3', 'Company 4', 'Company 5']);
      expect(pages.map((page) => page.total_count)).toEqual([5, 5, 5]);
      const filtered = await allPages<CompanyView>(erin, { search_type: 'COMPANY', source: 'WORKSPACE', page_size: 1, filters: { name: ['company 2', 'company 5'] } });
      expect(filtered.flatMap((page) => page.results.map((c) => c.name))).toEqual(['Company 2', 'Company 5']);
      expect(filtered.map((page) => page.total_count)).toEqual([null, null]);
    });

    it('keeps total_count exact: archiving a prospect takes one off, adding it back to a list puts it back, concurrent imports all count', async () => {
      const frank = await freshWorkspace();
      const count = async (searchType = 'PEOPLE') => (await search(frank, { search_type: searchType, source: 'WORKSPACE', page_size: 1 })).body.total_count;
      expect(await count()).toBe(0);
      const list = await createList(stack, frank, 'Counted');
      const ids = (
        await importLeads(stack, frank, list.id, { leads: [1, 2, 3].map((n) => person(300 + n, { company_name: `Counted ${n % 2}` })) })
      ).leads.map((l) => l.id);
      expect(await count()).toBe(3);
      expect(await count('COMPANY')).toBe(2);
      // Importing the same people again changes nothing.
      await importLeads(stack, frank, list.id, { leads: [1, 2, 3].map((n) => person(300 + n)) });
      expect(await count()).toBe(3);
      const deleted = await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: frank.key, body: { prospect_ids: [ids[0]] } });
      expect(deleted.status, deleted.text).toBe(200);
      expect(await count()).toBe(2);
      // Archiving an archived prospect again moves nothing.
      await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: frank.key, body: { prospect_ids: [ids[0]] } });
      expect(await count()).toBe(2);
      const unfiltered = await allPages<ProspectView>(frank, { source: 'WORKSPACE', page_size: 1 });
      expect(unfiltered.flatMap((page) => page.results.map((r) => r.id))).toEqual(ids.slice(1).sort((a, b) => (a as number) - (b as number)));
      const restored = await stack.call('POST', `/public/lead-lists/${list.id}/add-leads/`, { apiKey: frank.key, body: { prospect_ids: [ids[0]] } });
      expect(restored.status, restored.text).toBe(200);
      expect(await count()).toBe(3);
      expect(await count('COMPANY')).toBe(2);
      const lists = await Promise.all([createList(stack, frank, 'A'), createList(stack, frank, 'B')]);
      await Promise.all(
        lists.map((l, k) => importLeads(stack, frank, l.id, { leads: Array.from({ length: 20 }, (_, i) => person(400 + k * 100 + i)) })),
      );
      expect(await count()).toBe(43);
    });

    it('refuses with 400 a cursor of another workspace, search type or filter set, an edited one, and any cursor with DIRECTORY', async () => {
      const [george, helen] = await Promise.all([freshWorkspace(), freshWorkspace()]);
      for (const ws of [george, helen]) {
        const list = await createList(stack, ws, 'Three');
        await importLeads(stack, ws, list.id, { leads: [1, 2, 3].map((n) => person(500 + n, { company_name: `Cursor Co ${n}` })) });
      }
      const cursorOf = async (ws: Workspace, body: Record<string, unknown>) => {
        const response = await search(ws, { source: 'WORKSPACE', page_size: 1, ...body });
        expect(response.status, response.text).toBe(200);
        expect(response.body.next_cursor).toEqual(expect.any(String));
        return response.body.next_cursor as string;
      };
      const refused = async (ws: Workspace, body: Record<string, unknown>, error = 'cursor is not valid for this search') => {
        const response = await search(ws, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body).toEqual({ error });
      };
      const plain = await cursorOf(george, {});
      const filtered = await cursorOf(george, { filters: { keywords: 'first' } });
      // Each is good for its own search.
      expect((await search(george, { source: 'WORKSPACE', page_size: 1, cursor: plain })).status).toBe(200);
      expect((await search(george, { source: 'WORKSPACE', page_size: 1, cursor: filtered, filters: { keywords: 'FIRST' } })).status).toBe(200);

      await refused(helen, { source: 'WORKSPACE', cursor: plain });
      await refused(george, { source: 'WORKSPACE', search_type: 'COMPANY', cursor: plain });
      await refused(george, { source: 'WORKSPACE', cursor: filtered });
      await refused(george, { source: 'WORKSPACE', cursor: plain, filters: { keywords: 'first' } });
      await refused(george, { source: 'WORKSPACE', cursor: filtered, filters: { keywords: 'last' } });
      // Edited: another position, one character changed, not a cursor at all, far too long.
      const [version, after, check] = Buffer.from(plain, 'base64url').toString('utf8').split('.');
      await refused(george, { source: 'WORKSPACE', cursor: Buffer.from(`${version}.${Number(after) + 1}.${check}`).toString('base64url') });
      await refused(george, { source: 'WORKSPACE', cursor: `${plain.slice(0, -1)}${plain.endsWith('A') ? 'B' : 'A'}` });
      await refused(george, { source: 'WORKSPACE', cursor: `${plain.slice(0, 10)}${plain.slice(11)}` });
      await refused(george, { source: 'WORKSPACE', cursor: 'not a cursor!' });
      await refused(george, { source: 'WORKSPACE', cursor: '' });
      await refused(george, { source: 'WORKSPACE', cursor: 'A'.repeat(201) });
      await refused(george, { source: 'WORKSPACE', cursor: 5 }, 'cursor must be a string');
      // The directory has no cursor (its pages are `page`): refused before it is asked.
      await refused(george, { cursor: plain }, 'cursor is only accepted with source WORKSPACE');
      await refused(george, { source: 'DIRECTORY', cursor: 'anything' }, 'cursor is only accepted with source WORKSPACE');
      const directory = await search(george, { filters: { job_title: 'CTO' }, page_size: 1, cursor: null });
      expect(directory.body).toMatchObject({ source: 'DIRECTORY', next_cursor: null, total_count: expect.any(Number) });
    });
  });

  it.each([
    [{ page_size: 101 }, 'page_size must be an integer between 1 and 100'],
    [{ page_size: 0 }, 'page_size must be an integer between 1 and 100'],
    [{ page_size: '10' }, 'page_size must be an integer between 1 and 100'],
    [{ page: 0 }, 'page must be a positive integer'],
    [{ page: 1.5 }, 'page must be a positive integer'],
    [{ search_type: 'ACCOUNTS' }, "search_type must be either 'PEOPLE' or 'COMPANY'"],
    [{ source: 'LINKEDIN' }, "source must be either 'DIRECTORY' or 'WORKSPACE'"],
    [{ filters: 'cto' }, 'filters must be an object'],
    [{ filters: ['cto'] }, 'filters must be an object'],
    [{ filters: { job_title: 5 } }, 'filters.job_title must be a string, an array of strings or an object {must, doesnt}'],
    [{ filters: { job_title: { must: 'CTO', maybe: 'CEO' } } }, "filters.job_title has an unknown key 'maybe': use must and doesnt"],
    [
      { filters: { shoe_size: '42' } },
      "Unknown filter 'shoe_size'. Filters of PEOPLE searches: job_title, seniority, department, company_name, company_size, industry, location, keywords",
    ],
    [
      { search_type: 'COMPANY', filters: { job_title: 'CTO' } },
      "Unknown filter 'job_title'. Filters of COMPANY searches: name, industry, location, company_size, revenue, keywords",
    ],
    // Keys named like Object.prototype members are filters like any other (JSON.parse keeps them as own keys).
    [
      JSON.parse('{"filters":{"constructor":"x"}}'),
      "Unknown filter 'constructor'. Filters of PEOPLE searches: job_title, seniority, department, company_name, company_size, industry, location, keywords",
    ],
    [
      JSON.parse('{"filters":{"__proto__":"x"}}'),
      "Unknown filter '__proto__'. Filters of PEOPLE searches: job_title, seniority, department, company_name, company_size, industry, location, keywords",
    ],
  ])('refuses %j with 400 "%s"', async (body, error) => {
    const response = await search(alice, body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error });
  });
});
