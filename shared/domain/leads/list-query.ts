import { validationError } from '../errors';
import { type Company, LIMITS, type Prospect, type SearchType } from './lead';
import { foldText, rangeLowerBound } from './normalize';

/** Spec: sortable fields per list type; `id` is the default. */
export const SORT_FIELDS = {
  PEOPLE: ['id', 'first_name', 'last_name', 'job_title', 'location', 'created_at'],
  COMPANY: ['id', 'name', 'industry', 'location', 'amount_of_employees', 'revenue'],
} as const satisfies Record<SearchType, readonly string[]>;

/** Filter keys of list-leads queries: case-insensitive "contains" on the lead's field. */
export const LIST_FILTERS = {
  PEOPLE: [
    'first_name',
    'last_name',
    'email',
    'phone_number',
    'network_profile_url',
    'job_title',
    'location',
    'headline',
    'industry',
    'company_name',
    'company_industry',
    'company_location',
    'company_size',
    'company_website_url',
  ],
  COMPANY: ['name', 'website_url', 'network_url', 'industry', 'location', 'amount_of_employees', 'revenue'],
} as const satisfies Record<SearchType, readonly string[]>;

/** Other names accepted for a filter key (the company's size is `amount_of_employees` in the API). */
const FILTER_ALIASES: Record<SearchType, Record<string, string>> = {
  PEOPLE: { company: 'company_name', amount_of_employees: 'company_size' },
  COMPANY: { company_name: 'name', company_size: 'amount_of_employees', company_industry: 'industry', company_location: 'location' },
};

/** Query parameters of list-leads that are not filters. */
const RESERVED_PARAMS = new Set(['page', 'page_size', 'sort_field', 'sort_direction']);

export type SortDirection = 'asc' | 'desc';

export interface ListFilter {
  key: string;
  /** Folded (lower-case, no diacritics) values; a lead matches if its field contains any. */
  values: string[];
}

export interface LeadsQuery {
  page: number;
  pageSize: number;
  sortField: string;
  direction: SortDirection;
  filters: ListFilter[];
}

const MAX_FILTER_VALUE_LENGTH = 200;
/** Filter values in one request: keeps the DynamoDB filter expression far below its 4 KB limit. */
const MAX_FILTER_VALUES = 50;
const MAX_PAGE = 1_000_000;

function positiveInteger(raw: string | undefined, fallback: number, max: number): number | undefined {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d{1,9}$/.test(raw.trim())) return undefined;
  const value = Number(raw.trim());
  return value >= 1 && value <= max ? value : undefined;
}

/**
 * Reads page, page_size, sort_field, sort_direction and the filters of a list-leads request.
 * Repeated parameters: the last page/sort value wins; repeated filter values are alternatives.
 */
export function parseLeadsQuery(searchType: SearchType, params: Record<string, string[]>): LeadsQuery {
  const last = (name: string) => params[name]?.at(-1);
  const page = positiveInteger(last('page'), 1, MAX_PAGE);
  if (page === undefined) throw validationError('page must be a positive integer');
  const pageSize = positiveInteger(last('page_size'), LIMITS.defaultPageSize, LIMITS.maxPageSize);
  if (pageSize === undefined) throw validationError(`page_size must be an integer between 1 and ${LIMITS.maxPageSize}`);

  const sortFields: readonly string[] = SORT_FIELDS[searchType];
  const sortField = (last('sort_field') ?? '').trim() || 'id';
  if (!sortFields.includes(sortField)) {
    throw validationError(`sort_field must be one of: ${sortFields.join(', ')}`);
  }
  const direction = (last('sort_direction') ?? '').trim().toLowerCase() || 'asc';
  if (direction !== 'asc' && direction !== 'desc') throw validationError("sort_direction must be 'asc' or 'desc'");

  const allowed: readonly string[] = LIST_FILTERS[searchType];
  const filters = new Map<string, string[]>();
  for (const [name, values] of Object.entries(params)) {
    if (RESERVED_PARAMS.has(name)) continue;
    const key = FILTER_ALIASES[searchType][name] ?? name;
    if (!allowed.includes(key)) {
      throw validationError(`Unknown filter '${name}'. Filters of ${searchType} lists: ${allowed.join(', ')}`);
    }
    for (const value of values) {
      if (value.length > MAX_FILTER_VALUE_LENGTH) {
        throw validationError(`Filter ${name} must be at most ${MAX_FILTER_VALUE_LENGTH} characters`);
      }
      const folded = foldText(value);
      if (folded) filters.set(key, [...(filters.get(key) ?? []), folded]);
    }
  }
  const valueCount = [...filters.values()].reduce((sum, values) => sum + values.length, 0);
  if (valueCount > MAX_FILTER_VALUES) throw validationError(`At most ${MAX_FILTER_VALUES} filter values per request`);
  return {
    page,
    pageSize,
    sortField,
    direction,
    filters: [...filters].map(([key, values]) => ({ key, values: [...new Set(values)] })),
  };
}

// ---- What a list member carries so that sorting and filtering never read the leads ----

/** What a list member stores to be sorted and filtered: sortable strings and folded filter values. */
export interface MemberProjection {
  /** Per sort field except `id`: a string whose byte order is the field's order. */
  sort: Record<string, string>;
  /** Per filter key: the folded value; absent when the lead has none. */
  filter: Record<string, string>;
}

/** Empty values sort after every other value ascending (and first descending), as NULLs do in SQL. */
const BLANK = '\uffff';
const SORT_VALUE_LENGTH = 200;

const textSort = (value: string | undefined): string => {
  const folded = value ? foldText(value).slice(0, SORT_VALUE_LENGTH) : '';
  return folded || BLANK;
};

/** Ranges sort by their lower bound (`11-50` before `201-500`); text without a number after numbers. */
const rangeSort = (value: string | undefined): string => {
  if (!value) return BLANK;
  const bound = rangeLowerBound(value);
  return bound === undefined ? `T${textSort(value)}` : `N${String(bound).padStart(16, '0')}`;
};

function folded(entries: Record<string, string | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(entries)) {
    const text = value ? foldText(value).slice(0, MAX_FILTER_VALUE_LENGTH * 5) : '';
    if (text) result[key] = text;
  }
  return result;
}

export function prospectProjection(prospect: Prospect, company: Company | undefined): MemberProjection {
  return {
    sort: {
      first_name: textSort(prospect.firstName),
      last_name: textSort(prospect.lastName),
      job_title: textSort(prospect.jobTitle),
      location: textSort(prospect.location),
      created_at: prospect.createdAt,
    },
    filter: folded({
      first_name: prospect.firstName,
      last_name: prospect.lastName,
      email: prospect.email,
      phone_number: prospect.phoneNumber,
      network_profile_url: prospect.networkProfileUrl,
      job_title: prospect.jobTitle,
      location: prospect.location,
      headline: prospect.headline,
      industry: prospect.industry ?? company?.industry,
      company_name: company?.name,
      company_industry: company?.industry,
      company_location: company?.location,
      company_size: company?.amountOfEmployees,
      company_website_url: company?.websiteUrl,
    }),
  };
}

export function companyProjection(company: Company): MemberProjection {
  return {
    sort: {
      name: textSort(company.name),
      industry: textSort(company.industry),
      location: textSort(company.location),
      amount_of_employees: rangeSort(company.amountOfEmployees),
      revenue: rangeSort(company.revenue),
    },
    filter: folded({
      name: company.name,
      website_url: company.websiteUrl,
      network_url: company.networkUrl,
      industry: company.industry,
      location: company.location,
      amount_of_employees: company.amountOfEmployees,
      revenue: company.revenue,
    }),
  };
}

/** Whether a prospect's list members must be rewritten after its company changed from `before` to `after`. */
export function companyChangeAffectsProspects(before: Company, after: Company): boolean {
  return (
    before.name !== after.name ||
    before.industry !== after.industry ||
    before.location !== after.location ||
    before.amountOfEmployees !== after.amountOfEmployees ||
    before.websiteUrl !== after.websiteUrl
  );
}
