import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxData } from '../../../infra/local/sandbox-directory/data';
import type { TestStack } from '../../support/test-stack';
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
import { searchAs } from './search-helpers';

const fold = (value: string) =>
  value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();

/** Prospect and company search: the directory, saving results, filters, pages, WORKSPACE search, isolation, refusals. Paging WORKSPACE search by cursor: workspace-search.test.ts. */
describe('prospect search', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;

  const search = <T = ProspectView>(ws: Workspace, body: unknown) => searchAs<T>(stack, ws, body);
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
    // null is the default (PEOPLE), as when a list is created (a 400 before 2026-11-29).
    const byDefault = await search(bob, { search_type: null, source: 'WORKSPACE', filters: { job_title: 'quokka' } });
    expect([byDefault.status, byDefault.body.search_type, byDefault.body.results.map((r) => r.first_name)]).toEqual([200, 'PEOPLE', ['First1']]);
  });

  it('keeps workspaces apart: the same directory person becomes a separate prospect in each workspace', async () => {
    const body = { filters: { job_title: 'CFO', location: 'Tokyo' }, page_size: 2 };
    const a = await search(alice, body);
    const b = await search(bob, body);
    expect(b.body.results.map((r) => r.network_profile_url)).toEqual(a.body.results.map((r) => r.network_profile_url));
    for (const id of b.body.results.map((r) => r.id)) expect(a.body.results.map((r) => r.id)).not.toContain(id);
  });


  it.each([
    [{ page_size: 101 }, 'page_size must be an integer between 1 and 100'],
    [{ page_size: 0 }, 'page_size must be an integer between 1 and 100'],
    [{ page_size: '10' }, 'page_size must be an integer between 1 and 100'],
    [{ page: 0 }, 'page must be a positive integer'],
    [{ page: 1.5 }, 'page must be a positive integer'],
    [{ search_type: 'ACCOUNTS' }, "search_type must be either 'PEOPLE' or 'COMPANY'"],
    [{ source: 'LINKEDIN' }, "source must be either 'DIRECTORY' or 'WORKSPACE'"],
    // Misspelt fields ran an unfiltered (or a PEOPLE) directory search, spending one.
    [{ source: 'WORKSPACE', filter: { job_title: 'CTO' } }, 'filter is not a field of a search (fields: search_type, source, page, page_size, filters, cursor)'],
    [{ searchType: 'COMPANY' }, 'searchType is not a field of a search (fields: search_type, source, page, page_size, filters, cursor)'],
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
