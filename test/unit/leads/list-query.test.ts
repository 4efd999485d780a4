import { describe, expect, it } from 'vitest';
import type { Company, Prospect } from '../../../shared/domain/leads/lead';
import {
  CompanyLeadsQuery,
  PeopleLeadsQuery,
  companyProjection,
  leadsQueryInput,
  leadsQuerySchema,
  parseLeadsQuery,
  prospectProjection,
} from '../../../shared/domain/leads/list-query';

const prospect = (overrides: Partial<Prospect> = {}): Prospect => ({
  id: 1,
  workspaceId: 9,
  firstName: 'Émile',
  lastName: 'Zola',
  status: 'NEW',
  listIds: [],
  version: 1,
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
  ...overrides,
});

const company = (overrides: Partial<Company> = {}): Company => ({
  id: 2,
  workspaceId: 9,
  name: 'Acme',
  listIds: [],
  version: 1,
  membersSyncedVersion: 1,
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
  ...overrides,
});

describe('parseLeadsQuery', () => {
  it('applies the defaults', () => {
    expect(parseLeadsQuery('PEOPLE', {})).toEqual({ page: 1, pageSize: 25, sortField: 'id', direction: 'asc', filters: [] });
  });

  it('reads paging, sorting and filters; repeated filter values are alternatives; aliases map to their key', () => {
    expect(
      parseLeadsQuery('PEOPLE', {
        page: ['3'],
        page_size: ['50'],
        sort_field: ['last_name'],
        sort_direction: ['DESC'],
        location: ['Zürich', 'Berlin', ''],
        company: ['ACME'],
      }),
    ).toEqual({
      page: 3,
      pageSize: 50,
      sortField: 'last_name',
      direction: 'desc',
      filters: [
        { key: 'location', values: ['zurich', 'berlin'] },
        { key: 'company_name', values: ['acme'] },
      ],
    });
  });

  it('matches a network page URL filter written as people paste it in the form leads are stored in', () => {
    expect(parseLeadsQuery('PEOPLE', { network_profile_url: ['http://linkedin.com/in/ACoAAZz9/?trk=x', 'ada-b'] }).filters).toEqual([
      { key: 'network_profile_url', values: ['https://www.linkedin.com/in/acoaazz9', 'ada-b'] },
    ]);
    expect(parseLeadsQuery('COMPANY', { network_url: ['linkedin.com/company/Acme/'] }).filters).toEqual([{ key: 'network_url', values: ['https://www.linkedin.com/company/acme'] }]);
    // A part of a slug beyond ASCII, as the stored URL holds it.
    expect(parseLeadsQuery('PEOPLE', { network_profile_url: ['Jürgen'] }).filters).toEqual([{ key: 'network_profile_url', values: ['j%c3%bcrgen'] }]);
  });

  it('takes a network URL naming no one as the prefix every such page URL contains, from its host on', () => {
    for (const written of ['https://linkedin.com/in/', 'HTTP://uk.LinkedIn.com/in/', ' www.linkedin.com/in/']) {
      expect(parseLeadsQuery('PEOPLE', { network_profile_url: [written] }).filters).toEqual([{ key: 'network_profile_url', values: ['linkedin.com/in/'] }]);
    }
    expect(parseLeadsQuery('COMPANY', { network_url: ['https://www.linkedin.com/company/'] }).filters).toEqual([{ key: 'network_url', values: ['linkedin.com/company/'] }]);
  });

  it('ignores a filter whose values are all empty', () => {
    expect(parseLeadsQuery('COMPANY', { industry: ['  '] }).filters).toEqual([]);
  });

  it.each([
    [{ page: ['0'] }, 'page must be a positive integer'],
    [{ page_size: ['101'] }, 'page_size must be an integer between 1 and 100'],
    [{ sort_field: ['email'] }, 'sort_field must be one of: id, first_name, last_name, job_title, location, created_at'],
    [{ sort_direction: ['sideways'] }, "sort_direction must be 'asc' or 'desc'"],
    [{ job_title: ['x'.repeat(201)] }, 'Filter job_title must be at most 200 characters'],
    [{ location: Array.from({ length: 51 }, (_, i) => `city${i}`) }, 'At most 50 filter values per request'],
  ])('refuses %j', (params, message) => {
    expect(() => parseLeadsQuery('PEOPLE', params)).toThrow(message);
  });

  const PAGE_RANGE = 'page must be an integer between 1 and 1000000';
  const PAGE_INVALID = 'page must be a positive integer';

  it.each([
    ['1e9', PAGE_RANGE],
    ['1000000000', PAGE_RANGE],
    ['99999999999', PAGE_RANGE],
    ['1000001', PAGE_RANGE],
    ['1e400', PAGE_RANGE],
    ['1000000.5', PAGE_RANGE],
    ['0', PAGE_INVALID],
    ['-1', PAGE_INVALID],
    ['-1e9', PAGE_INVALID],
    ['abc', PAGE_INVALID],
    ['1.5', PAGE_INVALID],
    ['0x10', PAGE_INVALID],
    ['+5', PAGE_INVALID],
    ['Infinity', PAGE_INVALID],
  ])('answers page=%s with "%s"', (page, message) => {
    expect(() => parseLeadsQuery('PEOPLE', { page: [page] })).toThrow(message);
  });

  it.each([
    ['1000000', 1_000_000],
    ['1', 1],
    ['007', 7],
    [' 7 ', 7],
    ['1e3', 1000],
    ['2.0', 2],
    ['', 1],
  ])('reads page=%j as %d', (page, expected) => {
    expect(parseLeadsQuery('PEOPLE', { page: [page] }).page).toBe(expected);
  });

  it('takes the last of repeated paging and sorting parameters', () => {
    expect(parseLeadsQuery('PEOPLE', { page: ['1000001', '2'], page_size: ['500', '10'], sort_field: ['email', 'first_name'] })).toMatchObject({
      page: 2,
      pageSize: 10,
      sortField: 'first_name',
    });
  });

  it.each([
    ['1e1', 10],
    ['100', 100],
    ['', 25],
  ])('reads page_size=%j as %d', (pageSize, expected) => {
    expect(parseLeadsQuery('PEOPLE', { page_size: [pageSize] }).pageSize).toBe(expected);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'])('calls %s an unknown filter', (name) => {
    const params: Record<string, string[]> = JSON.parse(`{${JSON.stringify(name)}: ["x"]}`);
    expect(Object.keys(params)).toEqual([name]);
    expect(() => parseLeadsQuery('PEOPLE', params)).toThrow(`Unknown filter '${name}'. Filters of PEOPLE lists: first_name, last_name,`);
  });

  it('reads COMPANY queries: aliases join their key, values are folded and counted once', () => {
    expect(
      parseLeadsQuery('COMPANY', { company_name: ['Ärzte', 'arzte'], name: ['Beta'], company_size: ['11-50'], sort_field: [' revenue '], sort_direction: [' DESC '] }),
    ).toEqual({
      page: 1,
      pageSize: 25,
      sortField: 'revenue',
      direction: 'desc',
      filters: [
        { key: 'name', values: ['beta', 'arzte'] },
        { key: 'amount_of_employees', values: ['11-50'] },
      ],
    });
    expect(() => parseLeadsQuery('COMPANY', { sort_field: ['first_name'] })).toThrow(
      'sort_field must be one of: id, name, industry, location, amount_of_employees, revenue',
    );
    expect(() => parseLeadsQuery('COMPANY', { job_title: ['cto'] })).toThrow(
      "Unknown filter 'job_title'. Filters of COMPANY lists: name, website_url, network_url, industry, location, amount_of_employees, revenue",
    );
  });

  it('counts filter values across aliases: 50 pass, 51 do not; blank values do not count', () => {
    const cities = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    expect(parseLeadsQuery('PEOPLE', { company: cities(25, 'a'), company_name: cities(25, 'b'), location: ['', ' '] }).filters).toHaveLength(1);
    expect(() => parseLeadsQuery('PEOPLE', { company: cities(25, 'a'), company_name: cities(26, 'b') })).toThrow('At most 50 filter values per request');
  });

  it('shapes the query for its schema: one value for paging and sorting, every value for filters, keys kept as sent', () => {
    const input = leadsQueryInput(JSON.parse('{"page":["1","2"],"sort_direction":[],"location":["a","b"],"__proto__":["x"]}'));
    expect(Object.getPrototypeOf(input)).toBeNull();
    expect(Object.entries(input)).toEqual([
      ['page', '2'],
      ['location', ['a', 'b']],
      ['__proto__', ['x']],
    ]);
    expect(leadsQuerySchema('PEOPLE')).toBe(PeopleLeadsQuery);
    expect(leadsQuerySchema('COMPANY')).toBe(CompanyLeadsQuery);
  });
});

describe('member projections', () => {
  it('folds sortable text and puts blanks after every value, astral characters included, in UTF-8 byte order', () => {
    const titles = ['cto', undefined, 'Zookeeper', 'Ärzte', '🚀 Growth'];
    const sorted = titles
      .map((jobTitle) => prospectProjection(prospect({ jobTitle }), undefined).sort.job_title as string)
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(sorted).toEqual(['arzte', 'cto', 'zookeeper', '🚀 growth', '\u{10FFFF}']);
  });

  it('cuts a long sort value by code points, never inside a character', () => {
    const first = `${'a'.repeat(199)}😀x`;
    expect(prospectProjection(prospect({ firstName: first }), undefined).sort.first_name).toBe(`${'a'.repeat(199)}😀`);
  });

  it('sorts size and revenue ranges by their lower bound', () => {
    const sizes = ['1001-5000', '11-50', '201-500', '10001+'];
    const keys = sizes.map((size) => companyProjection(company({ amountOfEmployees: size })).sort.amount_of_employees as string);
    const order = [...keys].sort().map((key) => sizes[keys.indexOf(key)]);
    expect(order).toEqual(['11-50', '201-500', '1001-5000', '10001+']);
  });

  it('carries the company’s values as prospect filters, and the industry falls back to the company’s', () => {
    const projection = prospectProjection(prospect({ jobTitle: 'Head of Sales' }), company({ name: 'Acme Inc', industry: 'Software', location: 'Paris' }));
    expect(projection.filter).toMatchObject({
      first_name: 'emile',
      job_title: 'head of sales',
      company_name: 'acme inc',
      company_industry: 'software',
      company_location: 'paris',
      industry: 'software',
    });
    expect(projection.filter.email).toBeUndefined();
  });
});

describe('list-leads queries with several problems', () => {
  const people =
    'first_name, last_name, email, phone_number, network_profile_url, job_title, location, headline, industry, company_name, company_industry, company_location, company_size, company_website_url';
  const long = 'x'.repeat(201);
  it('name paging and sorting first, then the first filter problem in the order the parameters were written', () => {
    expect(() => parseLeadsQuery('PEOPLE', { foo: ['x'], first_name: [long] })).toThrow(`Unknown filter 'foo'. Filters of PEOPLE lists: ${people}`);
    expect(() => parseLeadsQuery('PEOPLE', { first_name: [long], foo: ['x'] })).toThrow(/^Filter first_name must be at most 200 characters$/);
    expect(() => parseLeadsQuery('PEOPLE', { last_name: [long], first_name: [long] })).toThrow(/^Filter last_name must be at most 200 characters$/);
    expect(() => parseLeadsQuery('PEOPLE', { foo: ['x'], page: ['0'] })).toThrow(/^page must be a positive integer$/);
  });
});
