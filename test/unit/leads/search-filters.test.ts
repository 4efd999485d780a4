import { describe, expect, it } from 'vitest';
import type { Company, Prospect } from '../../../shared/domain/leads/lead';
import {
  COMPANY_FACET_KEYS,
  CompanySearchFilters,
  PeopleSearchFilters,
  SEARCH_FILTERS,
  matchesFilters,
  parseSearchFilters,
  prospectFacets,
  searchFiltersSchema,
} from '../../../shared/domain/leads/search-filters';

describe('parseSearchFilters', () => {
  it('accepts a string, an array and {must, doesnt}, and maps aliases', () => {
    expect(
      parseSearchFilters('PEOPLE', {
        current_title: 'CTO',
        seniority: ['VP', ' ', 'Director'],
        company_name: { must: 'Acme', doesnt: ['Acme Labs'] },
        location: null,
      }),
    ).toEqual({
      job_title: { any: ['CTO'], none: [] },
      seniority: { any: ['VP', 'Director'], none: [] },
      company_name: { any: ['Acme'], none: ['Acme Labs'] },
    });
  });

  it('refuses more than 50 values', () => {
    expect(() => parseSearchFilters('PEOPLE', { industry: Array.from({ length: 51 }, (_, i) => `i${i}`) })).toThrow(
      'filters.industry may hold at most 50 values',
    );
  });

  const TYPE = 'filters.job_title must be a string, an array of strings or an object {must, doesnt}';
  const many = Array.from({ length: 51 }, (_, i) => `t${i}`);
  const long = 'x'.repeat(201);

  it.each([
    [{ job_title: 5 }, TYPE],
    [{ job_title: true }, TYPE],
    [{ job_title: ['CTO', 5] }, TYPE],
    [{ job_title: [['CTO']] }, TYPE],
    [{ job_title: [{ must: 'CTO' }] }, TYPE],
    [{ job_title: { must: 5 } }, TYPE],
    [{ job_title: { must: [5] } }, TYPE],
    [{ job_title: { must: { must: 'CTO' } } }, TYPE],
    [{ job_title: long }, 'filters.job_title values must be at most 200 characters'],
    [{ job_title: ['CTO', long] }, 'filters.job_title values must be at most 200 characters'],
    [{ job_title: { doesnt: [long] } }, 'filters.job_title values must be at most 200 characters'],
    [{ job_title: many }, 'filters.job_title may hold at most 50 values'],
    [{ job_title: { must: many } }, 'filters.job_title may hold at most 50 values'],
    [{ current_title: many }, 'filters.current_title may hold at most 50 values'],
    [{ job_title: { must: 'CTO', maybe: 'CEO' } }, "filters.job_title has an unknown key 'maybe': use must and doesnt"],
    [JSON.parse('{"job_title":{"__proto__":"CTO"}}'), "filters.job_title has an unknown key '__proto__': use must and doesnt"],
    [
      { shoe_size: '42' },
      "Unknown filter 'shoe_size'. Filters of PEOPLE searches: job_title, seniority, department, company_name, company_size, industry, location, keywords",
    ],
    [{ shoe_size: null }, expect.stringMatching(/^Unknown filter 'shoe_size'\. /)],
    [{ constructor: 'x' }, expect.stringMatching(/^Unknown filter 'constructor'\. /)],
    [JSON.parse('{"__proto__":"x"}'), expect.stringMatching(/^Unknown filter '__proto__'\. /)],
  ])('refuses %j', (filters, message) => {
    expect(() => parseSearchFilters('PEOPLE', filters)).toThrow(expect.objectContaining({ kind: 'validation', message }));
  });

  it('takes empty values as no filter and merges aliases into their key', () => {
    expect(parseSearchFilters('PEOPLE', { job_title: [], seniority: {}, department: '  ', location: { doesnt: [] } })).toEqual({});
    expect(parseSearchFilters('PEOPLE', { job_title: 'CTO', current_title: { must: ['CEO'], doesnt: 'Intern' }, prospect_location: 'Oslo' })).toEqual({
      job_title: { any: ['CTO', 'CEO'], none: ['Intern'] },
      location: { any: ['Oslo'], none: [] },
    });
    const filters = parseSearchFilters('COMPANY', { company_name: 'Acme', amount_of_employees: ['11-50'] });
    expect(filters).toEqual({ name: { any: ['Acme'], none: [] }, company_size: { any: ['11-50'], none: [] } });
    expect(Object.getPrototypeOf(filters)).toBeNull();
    expect(() => parseSearchFilters('COMPANY', { job_title: 'CTO' })).toThrow(
      "Unknown filter 'job_title'. Filters of COMPANY searches: name, industry, location, company_size, revenue, keywords",
    );
    expect(searchFiltersSchema('PEOPLE')).toBe(PeopleSearchFilters);
    expect(searchFiltersSchema('COMPANY')).toBe(CompanySearchFilters);
  });
});

describe('matchesFilters', () => {
  const facets = { job_title: ['Senior Software Engineer'], seniority: ['Senior'], company_size: ['51-200'], industry: [undefined, 'Software'] };

  it('matches text by folded contains and categories by whole value', () => {
    expect(matchesFilters(facets, parseSearchFilters('PEOPLE', { job_title: 'software ENG', industry: 'soft' }))).toBe(true);
    expect(matchesFilters(facets, parseSearchFilters('PEOPLE', { seniority: 'Sen' }))).toBe(false);
    expect(matchesFilters(facets, parseSearchFilters('PEOPLE', { company_size: ['1-10', '51-200'] }))).toBe(true);
    expect(matchesFilters(facets, parseSearchFilters('PEOPLE', { company_size: '1-200' }))).toBe(false);
  });

  it('requires one of must and none of doesnt', () => {
    expect(matchesFilters(facets, parseSearchFilters('PEOPLE', { job_title: { must: ['engineer', 'cto'], doesnt: ['senior'] } }))).toBe(false);
    expect(matchesFilters(facets, parseSearchFilters('PEOPLE', { job_title: { doesnt: ['manager'] } }))).toBe(true);
  });
});

describe('prospect facets', () => {
  it('names exactly the PEOPLE filter keys whose values come from the company (a workspace search reads companies only for those)', () => {
    const T = '2026-11-21T12:00:00.000Z';
    const prospect: Prospect = {
      ...{ id: 1, workspaceId: 7, firstName: 'Ada', lastName: 'Lovelace', status: 'NEW', listIds: [], version: 1, createdAt: T, updatedAt: T },
      ...{ jobTitle: 'CTO', seniority: 'C-Level', department: 'Engineering', industry: 'Software', location: 'London', headline: 'Builds' },
    };
    const company: Company = {
      ...{ id: 2, workspaceId: 7, name: 'Acme', industry: 'Energy', amountOfEmployees: '51-200', location: 'Paris' },
      ...{ listIds: [], version: 1, membersSyncedVersion: 1, createdAt: T, updatedAt: T },
    };
    const withCompany = prospectFacets(prospect, company);
    const without = prospectFacets(prospect, undefined);
    const fromCompany = SEARCH_FILTERS.PEOPLE.filter((key) => JSON.stringify(withCompany[key]) !== JSON.stringify(without[key]));
    expect(fromCompany).toEqual([...COMPANY_FACET_KEYS]);
  });
});

describe('search filters with several problems', () => {
  const people = 'job_title, seniority, department, company_name, company_size, industry, location, keywords';
  it('name the first problem in the order the filters were written', () => {
    expect(() => parseSearchFilters('PEOPLE', { foo: 1, job_title: 5 })).toThrow(new RegExp(`^Unknown filter 'foo'. Filters of PEOPLE searches: ${people}$`));
    expect(() => parseSearchFilters('PEOPLE', { job_title: 5, foo: 1 })).toThrow(
      /^filters\.job_title must be a string, an array of strings or an object \{must, doesnt\}$/,
    );
    expect(() => parseSearchFilters('PEOPLE', { location: 'x'.repeat(201), job_title: 5 })).toThrow(/^filters\.location values must be at most 200 characters$/);
  });
});
