import * as v from 'valibot';
import type { Company, Prospect, SearchType } from './lead';
import { foldText } from './normalize';
import { validationError } from '../errors';
import { bareObject, firstProblemInInputOrder, isPlainObject, validate } from '../validation';

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

const ALIASES: Record<SearchType, ReadonlyMap<string, string>> = {
  PEOPLE: new Map([
    ['current_title', 'job_title'],
    ['prospect_location', 'location'],
    ['company', 'company_name'],
    ['amount_of_employees', 'company_size'],
  ]),
  COMPANY: new Map([
    ['company_name', 'name'],
    ['amount_of_employees', 'company_size'],
  ]),
};

const MAX_VALUES = 50;
const MAX_VALUE_LENGTH = 200;

/**
 * `filters` of a search as the OpenAPI document shows it: every name either search type accepts
 * (the reader refuses one its type does not, naming that type's filters), and the value shapes
 * of {@link searchFilterValue}.
 */
export const SEARCH_FILTERS_DOCUMENTED = (() => {
  const text = { type: 'string', maxLength: MAX_VALUE_LENGTH };
  const values = { anyOf: [text, { type: 'array', items: text, maxItems: MAX_VALUES }] };
  const aliases = (['PEOPLE', 'COMPANY'] as const)
    .flatMap((type) => [...ALIASES[type]].map(([alias, key]) => `${alias} (${type}: ${key})`))
    .join(', ');
  const names = [...new Set([...SEARCH_FILTERS.PEOPLE, ...SEARCH_FILTERS.COMPANY, ...ALIASES.PEOPLE.keys(), ...ALIASES.COMPANY.keys()])];
  return {
    type: 'object',
    description: `Filter name -> value. PEOPLE searches: ${SEARCH_FILTERS.PEOPLE.join(', ')}; COMPANY searches: ${SEARCH_FILTERS.COMPANY.join(', ')}; other names taken for them: ${aliases}. A value is a string, an array of strings (any of) or {must, doesnt}; null is no filter.`,
    propertyNames: { enum: names },
    additionalProperties: {
      anyOf: [...values.anyOf, { type: 'object', properties: { must: values, doesnt: values }, additionalProperties: false }, { type: 'null' }],
    },
  };
})();

export const EXACT_KEYS: ReadonlySet<string> = new Set(['seniority', 'department', 'company_size']);

export interface FilterClause {
  /** The lead matches at least one (no constraint when empty). */
  any: string[];
  /** The lead matches none. */
  none: string[];
}

export type SearchFilters = Record<string, FilterClause>;

type FilterValue = string | string[] | { must?: string | string[]; doesnt?: string | string[] };

const trimmed = (value: string | string[] | undefined): string[] =>
  (typeof value === 'string' ? [value] : (value ?? [])).map((item) => item.trim()).filter((item) => item !== '');

function toClause(value: FilterValue): FilterClause {
  if (typeof value === 'string' || Array.isArray(value)) return { any: trimmed(value), none: [] };
  return { any: trimmed(value.must), none: trimmed(value.doesnt) };
}

/**
 * One filter's value: a string, an array of strings (any of) or `{must, doesnt}`, each of which is
 * a string or an array of strings. null means no filter. The output is the clause it stands for.
 */
export function searchFilterValue(name: string) {
  const typeMessage = `filters.${name} must be a string, an array of strings or an object {must, doesnt}`;
  const text = v.pipe(v.string(typeMessage), v.maxLength(MAX_VALUE_LENGTH, `filters.${name} values must be at most ${MAX_VALUE_LENGTH} characters`));
  const list = v.pipe(v.array(text, typeMessage), v.maxLength(MAX_VALUES, `filters.${name} may hold at most ${MAX_VALUES} values`));
  // When no option fits, valibot reports the union itself: the option that got furthest (a value
  // too long, too many values, an unknown key of {must, doesnt}) says more than the type does.
  const furthest = (issue: v.UnionIssue<v.BaseIssue<unknown>>) => issue.issues?.find((sub) => sub.message !== typeMessage)?.message ?? typeMessage;
  const values = v.union([text, list], furthest);
  // valibot takes a non-empty array for an object with keys '0', '1', ...: that is a type error, not an unknown key.
  const isUnknownKey = (issue: v.BaseIssue<unknown>) =>
    issue.type === 'strict_object' && issue.expected === 'never' && !Array.isArray(issue.path?.[0]?.input);
  const clause = v.strictObject({ must: v.optional(values), doesnt: v.optional(values) }, (issue) =>
    isUnknownKey(issue) ? `filters.${name} has an unknown key '${String(issue.input)}': use must and doesnt` : typeMessage,
  );
  const value = v.union([text, list, clause], furthest);
  return v.optional(v.nullable(v.pipe(value, v.transform(toClause))));
}

/** Canonical filter key of every accepted filter name, aliases included. */
function filterKeys(searchType: SearchType): ReadonlyMap<string, string> {
  return new Map([...SEARCH_FILTERS[searchType].map((key): [string, string] => [key, key]), ...ALIASES[searchType]]);
}

/** The clause the filters schema read for a name (the object's type knows no names). */
const clauseOf = (filters: object, name: string): FilterClause | null | undefined =>
  (filters as Readonly<Record<string, FilterClause | null | undefined>>)[name];

/**
 * `filters` of a prospect search of one type. An unknown key is refused; aliases join their key
 * (their values are alternatives to its own); filters without values are left out.
 */
const unknownFilter = (searchType: SearchType) => (name: string) =>
  `Unknown filter '${name}'. Filters of ${searchType} searches: ${SEARCH_FILTERS[searchType].join(', ')}`;

/** The value schema of every accepted filter name of a search type. */
const filterEntries = (searchType: SearchType) => new Map([...filterKeys(searchType).keys()].map((name) => [name, searchFilterValue(name)]));
const FILTER_ENTRIES = { PEOPLE: filterEntries('PEOPLE'), COMPANY: filterEntries('COMPANY') };

function searchFilters(searchType: SearchType) {
  const keys = filterKeys(searchType);
  const entries = Object.fromEntries(FILTER_ENTRIES[searchType]);
  return v.pipe(
    v.strictObject(entries, (issue) => (issue.expected === 'never' ? unknownFilter(searchType)(String(issue.input)) : 'filters must be an object')),
    v.transform((raw) => {
      const filters: SearchFilters = bareObject<FilterClause>();
      for (const [name, key] of keys) {
        const clause = clauseOf(raw, name);
        if (!clause || (clause.any.length === 0 && clause.none.length === 0)) continue;
        const previous = Object.hasOwn(filters, key) ? filters[key] : undefined;
        filters[key] = previous ? { any: [...previous.any, ...clause.any], none: [...previous.none, ...clause.none] } : clause;
      }
      return filters;
    }),
  );
}

export const PeopleSearchFilters = searchFilters('PEOPLE');
export const CompanySearchFilters = searchFilters('COMPANY');

/** The search filters schema of a search type. */
export const searchFiltersSchema = (searchType: SearchType) => (searchType === 'PEOPLE' ? PeopleSearchFilters : CompanySearchFilters);

/**
 * The filters of a search, or a 400 naming the first problem in the order the caller wrote the
 * filters (an unknown name or a bad value, whichever comes first), as the service always answered.
 */
export function parseSearchFilters(searchType: SearchType, raw: Record<string, unknown>): SearchFilters {
  const checked = validate(searchFiltersSchema(searchType), raw);
  if (checked.ok) return checked.value;
  const inOrder = isPlainObject(raw) ? firstProblemInInputOrder(raw, FILTER_ENTRIES[searchType], unknownFilter(searchType)) : undefined;
  throw validationError(inOrder ?? checked.message);
}

/** Whether a lead whose field values for each key are `facets` passes every clause. */
export function matchesFilters(facets: Record<string, (string | undefined)[]>, filters: SearchFilters): boolean {
  for (const [key, clause] of Object.entries(filters)) {
    const values = (Object.hasOwn(facets, key) ? (facets[key] ?? []) : []).filter((item): item is string => !!item).map(foldText);
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

/**
 * The PEOPLE filter keys whose values (in prospectFacets) come from the prospect's company: only
 * searches filtering on one of them need each candidate's company before matching.
 */
export const COMPANY_FACET_KEYS: ReadonlySet<string> = new Set(['company_name', 'company_size', 'industry', 'keywords']);

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
