import { describe, expect, it } from 'vitest';
import { matchesFilters, parseSearchFilters } from '../../../shared/domain/leads/search-filters';

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
