import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../../support/test-stack';
import {
  type LeadListView,
  type Workspace,
  createList,
  expectedCompany,
  expectedCompanySummary,
  importLeads,
  leadsOf,
  leadsStack,
  person,
} from './helpers';

const PROSPECT_FIELDS = [
  'campaign_id',
  'company',
  'created_at',
  'custom_fields',
  'email',
  'first_name',
  'headline',
  'id',
  'industry',
  'job_title',
  'last_name',
  'location',
  'network_profile_url',
  'phone_number',
  'profile_picture_url',
  'status',
  'updated_at',
];
const COMPANY_SUMMARY_FIELDS = ['amount_of_employees', 'id', 'industry', 'location', 'name', 'network_url', 'website_url'];
const COMPANY_FIELDS = ['amount_of_employees', 'id', 'industry', 'location', 'logo_url', 'name', 'network_url', 'revenue', 'website_url'];

/** Prospects whose sortable values are unambiguous; one has no job title or location (blanks sort last ascending). */
const PEOPLE = [
  { first_name: 'Carla', last_name: 'Zuidema', job_title: 'VP Sales', location: 'Utrecht', company_name: 'Acme', company_industry: 'Software' },
  { first_name: 'anna', last_name: 'Meyer', job_title: 'CTO', location: 'Amsterdam', company_name: 'Beta Labs', company_industry: 'Biotech' },
  { first_name: 'Émile', last_name: 'Bakker', job_title: 'Head of Growth', location: 'Berlin', company_name: 'Acme', company_industry: 'Software' },
  { first_name: 'Bob', last_name: 'de Vries', job_title: 'Account Executive', location: 'Zürich', company_name: 'Gamma', company_industry: 'Retail' },
  { first_name: 'Dirk', last_name: 'Appel' },
];

const COMPANIES = [
  { name: 'Delta Corp', industry: 'Retail', location: 'Paris', amount_of_employees: '201-500', revenue: '$10M-$50M', website_url: 'delta.example' },
  { name: 'alpha GmbH', industry: 'Software', location: 'Berlin', amount_of_employees: '11-50', revenue: '$1B+', website_url: 'alpha.example' },
  { name: 'Charlie BV', industry: 'Banking', location: 'Amsterdam', amount_of_employees: '1001-5000', revenue: '$1M-$10M', website_url: 'charlie.example' },
  { name: 'Bravo Ltd', industry: 'Energy', location: 'London', amount_of_employees: '51-200', revenue: '$100M-$500M', website_url: 'bravo.example' },
];

describe('list leads: pages, sorting, filters', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;
  let people: LeadListView;
  let companies: LeadListView;
  let peopleIds: number[];
  let companyIds: number[];

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack());
    people = await createList(stack, alice, 'People to sort');
    companies = await createList(stack, alice, 'Companies to sort', 'COMPANY');
    peopleIds = [];
    // One request per lead, so created_at differs from lead to lead.
    for (const [i, lead] of PEOPLE.entries()) {
      const imported = await importLeads(stack, alice, people.id, { leads: [person(i, lead)] });
      peopleIds.push(imported.leads[0]?.id as number);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    companyIds = (await importLeads(stack, alice, companies.id, { leads: COMPANIES })).leads.map((lead) => lead.id);
  });
  afterAll(async () => stack?.stop());

  it('answers a PEOPLE list with the spec envelope and prospects carrying their company summary', async () => {
    const page = await leadsOf(stack, alice, people.id);
    expect(Object.keys(page).sort()).toEqual(['page', 'page_size', 'prospects', 'search_type', 'success', 'total_count']);
    expect(page).toMatchObject({ success: true, search_type: 'PEOPLE', total_count: 5, page: 1, page_size: 25 });
    for (const prospect of page.prospects ?? []) expect(Object.keys(prospect).sort()).toEqual(PROSPECT_FIELDS);
    const carla = page.prospects?.find((p) => p.first_name === 'Carla');
    expect(Object.keys(carla?.company ?? {}).sort()).toEqual(COMPANY_SUMMARY_FIELDS);
    expect(carla?.company).toEqual(expectedCompanySummary({ name: 'Acme', industry: 'Software' }));
    expect(page.prospects?.find((p) => p.first_name === 'Dirk')?.company).toBeNull();
  });

  it('answers a COMPANY list with the same envelope and companies', async () => {
    const page = await leadsOf(stack, alice, companies.id);
    expect(Object.keys(page).sort()).toEqual(['companies', 'page', 'page_size', 'search_type', 'success', 'total_count']);
    expect(page).toMatchObject({ success: true, search_type: 'COMPANY', total_count: 4, page: 1, page_size: 25 });
    for (const company of page.companies ?? []) expect(Object.keys(company).sort()).toEqual(COMPANY_FIELDS);
    expect(page.companies?.find((c) => c.name === 'Delta Corp')).toEqual(
      expectedCompany({
        id: companyIds[0],
        name: 'Delta Corp',
        website_url: 'delta.example',
        industry: 'Retail',
        location: 'Paris',
        amount_of_employees: '201-500',
        revenue: '$10M-$50M',
      }),
    );
  });

  it('sorts by id ascending by default', async () => {
    const page = await leadsOf(stack, alice, people.id);
    expect(page.prospects?.map((p) => p.id)).toEqual([...peopleIds].sort((a, b) => a - b));
  });

  const peopleOrders: Record<string, string[]> = {
    // Case and accents do not matter; blanks come last ascending.
    first_name: ['anna', 'Bob', 'Carla', 'Dirk', 'Émile'],
    last_name: ['Appel', 'Bakker', 'de Vries', 'Meyer', 'Zuidema'],
    job_title: ['Account Executive', 'CTO', 'Head of Growth', 'VP Sales', ''],
    location: ['Amsterdam', 'Berlin', 'Utrecht', 'Zürich', ''],
  };

  for (const [field, ascending] of Object.entries(peopleOrders)) {
    for (const direction of ['asc', 'desc'] as const) {
      it(`sorts a PEOPLE list by ${field} ${direction}`, async () => {
        const page = await leadsOf(stack, alice, people.id, `sort_field=${field}&sort_direction=${direction}`);
        const expected = direction === 'asc' ? ascending : [...ascending].reverse();
        expect(page.prospects?.map((p) => p[field])).toEqual(expected);
      });
    }
  }

  for (const direction of ['asc', 'desc'] as const) {
    it(`sorts a PEOPLE list by id and by created_at ${direction}`, async () => {
      const byId = await leadsOf(stack, alice, people.id, `sort_field=id&sort_direction=${direction}`);
      const sortedIds = [...peopleIds].sort((a, b) => (direction === 'asc' ? a - b : b - a));
      expect(byId.prospects?.map((p) => p.id)).toEqual(sortedIds);
      const byCreated = await leadsOf(stack, alice, people.id, `sort_field=created_at&sort_direction=${direction}`);
      const created = byCreated.prospects?.map((p) => p.created_at) ?? [];
      expect(created).toEqual([...created].sort((a, b) => (direction === 'asc' ? a.localeCompare(b) : b.localeCompare(a))));
      const importOrder = direction === 'asc' ? peopleIds : [...peopleIds].reverse();
      expect(byCreated.prospects?.map((p) => p.id)).toEqual(importOrder);
    });
  }

  const companyOrders: Record<string, string[]> = {
    name: ['alpha GmbH', 'Bravo Ltd', 'Charlie BV', 'Delta Corp'],
    industry: ['Banking', 'Energy', 'Retail', 'Software'],
    location: ['Amsterdam', 'Berlin', 'London', 'Paris'],
    // Ranges sort by their lower bound, not as text.
    amount_of_employees: ['11-50', '51-200', '201-500', '1001-5000'],
    revenue: ['$1M-$10M', '$10M-$50M', '$100M-$500M', '$1B+'],
  };

  for (const [field, ascending] of Object.entries(companyOrders)) {
    for (const direction of ['asc', 'desc'] as const) {
      it(`sorts a COMPANY list by ${field} ${direction}`, async () => {
        const page = await leadsOf(stack, alice, companies.id, `sort_field=${field}&sort_direction=${direction}`);
        expect(page.companies?.map((c) => c[field])).toEqual(direction === 'asc' ? ascending : [...ascending].reverse());
      });
    }
  }

  it('sorts a COMPANY list by id both ways', async () => {
    const asc = await leadsOf(stack, alice, companies.id, 'sort_field=id');
    expect(asc.companies?.map((c) => c.id)).toEqual([...companyIds].sort((a, b) => a - b));
    const desc = await leadsOf(stack, alice, companies.id, 'sort_field=id&sort_direction=DESC');
    expect(desc.companies?.map((c) => c.id)).toEqual([...companyIds].sort((a, b) => b - a));
  });

  it('refuses sort fields of the other list type, naming the allowed ones', async () => {
    const people400 = await stack.call('GET', `/public/lead-lists/${people.id}/leads/?sort_field=revenue`, { apiKey: alice.key });
    expect(people400.status).toBe(400);
    expect(people400.body).toEqual({ error: 'sort_field must be one of: id, first_name, last_name, job_title, location, created_at' });
    const company400 = await stack.call('GET', `/public/lead-lists/${companies.id}/leads/?sort_field=first_name`, { apiKey: alice.key });
    expect(company400.status).toBe(400);
    expect(company400.body).toEqual({ error: 'sort_field must be one of: id, name, industry, location, amount_of_employees, revenue' });
  });

  it.each([
    ['sort_direction=up', "sort_direction must be 'asc' or 'desc'"],
    ['page=0', 'page must be a positive integer'],
    ['page=-1', 'page must be a positive integer'],
    ['page=abc', 'page must be a positive integer'],
    ['page=1.5', 'page must be a positive integer'],
    ['page=1e9', 'page must be an integer between 1 and 1000000'],
    ['page=1000000000', 'page must be an integer between 1 and 1000000'],
    ['page=99999999999', 'page must be an integer between 1 and 1000000'],
    ['page=1000001', 'page must be an integer between 1 and 1000000'],
    ['page=1e400', 'page must be an integer between 1 and 1000000'],
    ['page=3&page=1000001', 'page must be an integer between 1 and 1000000'],
    ['page_size=0', 'page_size must be an integer between 1 and 100'],
    ['page_size=101', 'page_size must be an integer between 1 and 100'],
    ['page_size=ten', 'page_size must be an integer between 1 and 100'],
    [
      'favourite_colour=blue',
      "Unknown filter 'favourite_colour'. Filters of PEOPLE lists: first_name, last_name, email, phone_number, network_profile_url, job_title, location, headline, industry, company_name, company_industry, company_location, company_size, company_website_url",
    ],
  ])('answers ?%s with 400 "%s"', async (query, error) => {
    const response = await stack.call('GET', `/public/lead-lists/${people.id}/leads/?${query}`, { apiKey: alice.key });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error });
  });

  it('pages through a list: full pages, the last partial page, an empty page beyond the end', async () => {
    const all = (await leadsOf(stack, alice, people.id, 'sort_field=last_name')).prospects?.map((p) => p.id) ?? [];
    const first = await leadsOf(stack, alice, people.id, 'sort_field=last_name&page_size=2');
    expect(first).toMatchObject({ success: true, search_type: 'PEOPLE', total_count: 5, page: 1, page_size: 2 });
    expect(first.prospects?.map((p) => p.id)).toEqual(all.slice(0, 2));
    const second = await leadsOf(stack, alice, people.id, 'sort_field=last_name&page_size=2&page=2');
    expect(second.prospects?.map((p) => p.id)).toEqual(all.slice(2, 4));
    const last = await leadsOf(stack, alice, people.id, 'sort_field=last_name&page_size=2&page=3');
    expect(last).toMatchObject({ success: true, search_type: 'PEOPLE', total_count: 5, page: 3, page_size: 2 });
    expect(last.prospects?.map((p) => p.id)).toEqual(all.slice(4));
    const beyond = await leadsOf(stack, alice, people.id, 'sort_field=last_name&page_size=2&page=4');
    expect(beyond).toEqual({ success: true, search_type: 'PEOPLE', total_count: 5, page: 4, page_size: 2, prospects: [] });
    const far = await leadsOf(stack, alice, people.id, 'page=999999');
    expect(far).toEqual({ success: true, search_type: 'PEOPLE', total_count: 5, page: 999999, page_size: 25, prospects: [] });
    const exact = await leadsOf(stack, alice, people.id, 'page_size=5');
    expect(exact.prospects?.map((p) => p.id)).toEqual([...peopleIds].sort((a, b) => a - b));
    const max = await leadsOf(stack, alice, people.id, 'page_size=100');
    expect(max).toMatchObject({ success: true, search_type: 'PEOPLE', page: 1, page_size: 100, total_count: 5 });
    expect(max.prospects?.map((p) => p.id)).toEqual([...peopleIds].sort((a, b) => a - b));
  });

  it('accepts the highest page, 1000000, and a page written as 1e3; the last of repeated paging parameters counts', async () => {
    const max = await leadsOf(stack, alice, people.id, 'page=1000000');
    expect(max).toEqual({ success: true, search_type: 'PEOPLE', total_count: 5, page: 1000000, page_size: 25, prospects: [] });
    const filtered = await leadsOf(stack, alice, people.id, 'page=1000000&page_size=100&job_title=cto');
    expect(filtered).toEqual({ success: true, search_type: 'PEOPLE', total_count: 1, page: 1000000, page_size: 100, prospects: [] });
    const exponent = await leadsOf(stack, alice, people.id, 'page=1e3');
    expect(exponent).toMatchObject({ page: 1000, total_count: 5, prospects: [] });
    const repeated = await leadsOf(stack, alice, people.id, 'page=1000001&page=2&page_size=2&sort_field=last_name');
    expect(repeated).toMatchObject({ page: 2, page_size: 2, total_count: 5 });
    expect(repeated.prospects?.map((p) => p.last_name)).toEqual(['de Vries', 'Meyer']);
  });

  it('lists an empty list as an empty page', async () => {
    const empty = await createList(stack, alice, 'Empty');
    const page = await leadsOf(stack, alice, empty.id, 'sort_field=first_name&sort_direction=desc');
    expect(page).toEqual({ success: true, search_type: 'PEOPLE', total_count: 0, page: 1, page_size: 25, prospects: [] });
    const filtered = await leadsOf(stack, alice, empty.id, 'job_title=cto');
    expect(filtered).toEqual({ success: true, search_type: 'PEOPLE', total_count: 0, page: 1, page_size: 25, prospects: [] });
  });

  it('filters by a field with a case- and accent-insensitive contains; total_count counts the matches', async () => {
    const cto = await leadsOf(stack, alice, people.id, 'job_title=cT');
    expect(cto.total_count).toBe(1);
    expect(cto.prospects?.map((p) => p.first_name)).toEqual(['anna']);
    const zurich = await leadsOf(stack, alice, people.id, 'location=zurich');
    expect(zurich.prospects?.map((p) => p.first_name)).toEqual(['Bob']);
    const none = await leadsOf(stack, alice, people.id, 'location=tokyo');
    expect(none).toEqual({ success: true, search_type: 'PEOPLE', total_count: 0, page: 1, page_size: 25, prospects: [] });
  });

  it('matches letters that have no accent to strip as they are read: strasse finds Straße, orsted Ørsted, lodz Łódź', async () => {
    const letters = await createList(stack, alice, 'Letters');
    await importLeads(stack, alice, letters.id, {
      leads: [
        person(101, { first_name: 'Jörg', location: 'Hauptstraße 5, Köln', company_name: 'Ørsted' }),
        person(102, { first_name: 'Ewa', location: 'Łódź', company_name: 'Æsir Labs' }),
      ],
    });
    for (const [query, expected] of [
      ['location=strasse', ['Jörg']],
      ['location=STRASSE', ['Jörg']],
      ['location=straße', ['Jörg']],
      ['company_name=orsted', ['Jörg']],
      ['location=lodz', ['Ewa']],
      ['company_name=aesir', ['Ewa']],
      ['company_name=Æsir', ['Ewa']],
    ] as const) {
      expect((await leadsOf(stack, alice, letters.id, query)).prospects?.map((p) => p.first_name), query).toEqual(expected);
    }
  });

  it('ignores invisible format characters inside a value: celine finds a name pasted with a direction mark', async () => {
    const pasted = await createList(stack, alice, 'Pasted');
    await importLeads(stack, alice, pasted.id, {
      leads: [person(111, { first_name: 'Cé\u200fline', job_title: 'Head\u00ad of Sales' }), person(112, { first_name: 'Celia' })],
    });
    for (const [query, expected] of [
      ['first_name=celine', ['Cé\u200fline']],
      ['job_title=head%20of', ['Cé\u200fline']],
      ['first_name=cel', ['Cé\u200fline', 'Celia']],
    ] as const) {
      expect((await leadsOf(stack, alice, pasted.id, query)).prospects?.map((p) => p.first_name), query).toEqual(expected);
    }
  });

  it('filters by company name and industry, combines filters with AND and repeated values with OR', async () => {
    const acme = await leadsOf(stack, alice, people.id, 'company_name=acme&sort_field=first_name');
    expect(acme.total_count).toBe(2);
    expect(acme.prospects?.map((p) => p.first_name)).toEqual(['Carla', 'Émile']);
    const alias = await leadsOf(stack, alice, people.id, 'company=ACME');
    expect(alias.total_count).toBe(2);
    const industry = await leadsOf(stack, alice, people.id, 'industry=software&location=berlin');
    expect(industry.prospects?.map((p) => p.first_name)).toEqual(['Émile']);
    const either = await leadsOf(stack, alice, people.id, 'location=utrecht&location=amsterdam&sort_field=location');
    expect(either.prospects?.map((p) => p.location)).toEqual(['Amsterdam', 'Utrecht']);
  });

  it('filters with sorting and paging together', async () => {
    const first = await leadsOf(stack, alice, people.id, 'company_industry=software&sort_field=first_name&sort_direction=desc&page_size=1');
    expect(first.total_count).toBe(2);
    expect(first.prospects?.map((p) => p.first_name)).toEqual(['Émile']);
    const second = await leadsOf(stack, alice, people.id, 'company_industry=software&sort_field=first_name&sort_direction=desc&page_size=1&page=2');
    expect(second.prospects?.map((p) => p.first_name)).toEqual(['Carla']);
    const third = await leadsOf(stack, alice, people.id, 'company_industry=software&sort_field=first_name&sort_direction=desc&page_size=1&page=3');
    expect(third).toEqual({ success: true, search_type: 'PEOPLE', total_count: 2, page: 3, page_size: 1, prospects: [] });
  });

  it('filters COMPANY lists by their fields', async () => {
    const software = await leadsOf(stack, alice, companies.id, 'industry=soft');
    expect(software.companies?.map((c) => c.name)).toEqual(['alpha GmbH']);
    const byName = await leadsOf(stack, alice, companies.id, 'company_name=BV');
    expect(byName.companies?.map((c) => c.name)).toEqual(['Charlie BV']);
    const size = await leadsOf(stack, alice, companies.id, 'amount_of_employees=1001');
    expect(size.companies?.map((c) => c.name)).toEqual(['Charlie BV']);
    const unknown = await stack.call('GET', `/public/lead-lists/${companies.id}/leads/?job_title=cto`, { apiKey: alice.key });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: "Unknown filter 'job_title'. Filters of COMPANY lists: name, website_url, network_url, industry, location, amount_of_employees, revenue",
    });
  });

  it('answers 404 "Lead list not found" for an unknown id, a non-numeric id and another workspace’s list', async () => {
    for (const [ws, id] of [
      [alice, 987654321],
      [alice, 'abc'],
      [bob, people.id],
    ] as const) {
      const response = await stack.call('GET', `/public/lead-lists/${id}/leads/`, { apiKey: ws.key });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Lead list not found' });
    }
  });
});
