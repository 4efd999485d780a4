import { validationError } from '../errors';
import type { Company, Prospect, SearchType } from './lead';
import { foldText } from './normalize';

/**
 * Filters of `POST /public/prospects/search/`. A value is a string, an array (any of) or
 * `{must: [...], doesnt: [...]}`: the lead must match one of `must` and none of `doesnt`.
 * Text keys match by case-insensitive "contains"; the keys in EXACT_KEYS are categories and
 * match whole values.
 */
export const SEARCH_FILTERS = {
  PEOPLE: ['job_title', 'seniority', 'department', 'company_name', 'company_size', 'industry', 'location', 'keywords'],
  COMPANY: ['name', 'industry', 'location', 'company_size', 'revenue', 'keywords'],
} as const satisfies Record<SearchType, readonly string[]>;

const ALIASES: Record<SearchType, Record<string, string>> = {
  PEOPLE: { current_title: 'job_title', prospect_location: 'location', company: 'company_name', amount_of_employees: 'company_size' },
  COMPANY: { company_name: 'name', amount_of_employees: 'company_size' },
};

export const EXACT_KEYS: ReadonlySet<string> = new Set(['seniority', 'department', 'company_size']);

export interface FilterClause {
  /** The lead matches at least one (no constraint when empty). */
  any: string[];
  /** The lead matches none. */
  none: string[];
}

export type SearchFilters = Record<string, FilterClause>;

const MAX_VALUES = 50;
const MAX_VALUE_LENGTH = 200;

function strings(key: string, value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length > MAX_VALUES) throw validationError(`filters.${key} may hold at most ${MAX_VALUES} values`);
  return list.map((item) => {
    if (typeof item !== 'string') {
      throw validationError(`filters.${key} must be a string, an array of strings or an object {must, doesnt}`);
    }
    if (item.length > MAX_VALUE_LENGTH) throw validationError(`filters.${key} values must be at most ${MAX_VALUE_LENGTH} characters`);
    return item.trim();
  }).filter((item) => item !== '');
}

export function parseSearchFilters(searchType: SearchType, raw: Record<string, unknown>): SearchFilters {
  const allowed: readonly string[] = SEARCH_FILTERS[searchType];
  const filters: SearchFilters = {};
  for (const [name, value] of Object.entries(raw)) {
    const key = ALIASES[searchType][name] ?? name;
    if (!allowed.includes(key)) {
      throw validationError(`Unknown filter '${name}'. Filters of ${searchType} searches: ${allowed.join(', ')}`);
    }
    if (value === null || value === undefined) continue;
    let clause: FilterClause;
    if (typeof value === 'object' && !Array.isArray(value)) {
      const { must, doesnt, ...rest } = value as Record<string, unknown>;
      const [extra] = Object.keys(rest);
      if (extra !== undefined) throw validationError(`filters.${name} has an unknown key '${extra}': use must and doesnt`);
      clause = { any: must === undefined ? [] : strings(name, must), none: doesnt === undefined ? [] : strings(name, doesnt) };
    } else {
      clause = { any: strings(name, value), none: [] };
    }
    if (clause.any.length === 0 && clause.none.length === 0) continue;
    const previous = filters[key];
    filters[key] = previous ? { any: [...previous.any, ...clause.any], none: [...previous.none, ...clause.none] } : clause;
  }
  return filters;
}

/** Whether a lead whose field values for each key are `facets` passes every clause. */
export function matchesFilters(facets: Record<string, (string | undefined)[]>, filters: SearchFilters): boolean {
  for (const [key, clause] of Object.entries(filters)) {
    const values = (facets[key] ?? []).filter((v): v is string => !!v).map(foldText);
    const exact = EXACT_KEYS.has(key);
    const hit = (wanted: string) => {
      const folded = foldText(wanted);
      return values.some((value) => (exact ? value === folded : value.includes(folded)));
    };
    if (clause.any.length > 0 && !clause.any.some(hit)) return false;
    if (clause.none.some(hit)) return false;
  }
  return true;
}

/** A workspace prospect's searchable values, keyed like SEARCH_FILTERS.PEOPLE. */
export function prospectFacets(prospect: Prospect, company: Company | undefined): Record<string, (string | undefined)[]> {
  return {
    job_title: [prospect.jobTitle],
    seniority: [prospect.seniority],
    department: [prospect.department],
    company_name: [company?.name],
    company_size: [company?.amountOfEmployees],
    industry: [prospect.industry, company?.industry],
    location: [prospect.location],
    keywords: [prospect.headline, prospect.jobTitle, prospect.industry, company?.name, company?.industry, prospect.firstName, prospect.lastName],
  };
}

export function companyFacets(company: Company): Record<string, (string | undefined)[]> {
  return {
    name: [company.name],
    industry: [company.industry],
    location: [company.location],
    company_size: [company.amountOfEmployees],
    revenue: [company.revenue],
    keywords: [company.name, company.industry, company.domain, company.location],
  };
}
