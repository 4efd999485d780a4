import { describe, expect, it } from 'vitest';
import type { Company, Prospect } from '../../../shared/domain/leads/lead';
import { companyProjection, parseLeadsQuery, prospectProjection } from '../../../shared/domain/leads/list-query';

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
});

describe('member projections', () => {
  it('folds sortable text and puts blanks after every value', () => {
    const sorted = [prospect({ jobTitle: 'cto' }), prospect({ jobTitle: undefined }), prospect({ jobTitle: 'Zookeeper' }), prospect({ jobTitle: 'Ärzte' })]
      .map((p) => prospectProjection(p, undefined).sort.job_title as string)
      .sort();
    expect(sorted.slice(0, 3)).toEqual(['arzte', 'cto', 'zookeeper']);
    expect(sorted[3]).toBe('\uffff');
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
