import * as v from 'valibot';
import { type Company, LIMITS, type Prospect, type SearchType, toCompanyView, toProspectView } from './lead';
import { canonicalPageUrl, foldText, rangeLowerBound, slugSegment } from './normalize';
import { validationError } from '../errors';
import { bareObject, firstProblemInInputOrder, validate } from '../validation';

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

/** Filters of a PEOPLE list in a request body, as the OpenAPI document shows them. */
export const PEOPLE_FILTERS_DOCUMENTED = {
  type: 'object',
  propertyNames: { enum: [...LIST_FILTERS.PEOPLE] },
  additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
};

/** Other names accepted for a filter key (the company's size is `amount_of_employees` in the API). */
const FILTER_ALIASES: Record<SearchType, ReadonlyMap<string, string>> = {
  PEOPLE: new Map([
    ['company', 'company_name'],
    ['amount_of_employees', 'company_size'],
  ]),
  COMPANY: new Map([
    ['company_name', 'name'],
    ['company_size', 'amount_of_employees'],
    ['company_industry', 'industry'],
    ['company_location', 'location'],
  ]),
};

/** Query parameters of list-leads that are not filters; each takes one value (the last one sent). */
const RESERVED_PARAMS: ReadonlySet<string> = new Set(['page', 'page_size', 'sort_field', 'sort_direction']);

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

const PAGE_MESSAGES = {
  invalid: 'page must be a positive integer',
  range: `page must be an integer between 1 and ${LIMITS.maxPage}`,
} as const;
const PAGE_SIZE_MESSAGE = `page_size must be an integer between 1 and ${LIMITS.maxPageSize}`;
const SORT_DIRECTION_MESSAGE = "sort_direction must be 'asc' or 'desc'";

/**
 * Number text (`25`, `007`, `-1`, `1.5`, `1e9`) is read as the number it writes, so that one too
 * large is told the range rather than called "not an integer". Empty text means the default.
 */
const NUMBER_TEXT = /^$|^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** An integer query parameter from 1 to `max`; blank or absent is `fallback`. */
function integerParam(fallback: number, max: number, messages: { invalid: string; range: string }) {
  return v.optional(
    v.pipe(
      v.string(messages.invalid),
      v.description(`An integer from 1 to ${max}; default ${fallback}.`),
      v.trim(),
      v.regex(NUMBER_TEXT, messages.invalid),
      v.transform((text) => (text === '' ? fallback : Number(text))),
      v.minValue(1, messages.invalid),
      v.maxValue(max, messages.range),
      v.integer(messages.invalid),
    ),
    String(fallback),
  );
}

/** `page` of list-leads: 1 to LIMITS.maxPage, default 1. */
export const PageParam = integerParam(1, LIMITS.maxPage, PAGE_MESSAGES);

/** `page_size` of list-leads: 1 to LIMITS.maxPageSize, default LIMITS.defaultPageSize. */
export const PageSizeParam = integerParam(LIMITS.defaultPageSize, LIMITS.maxPageSize, { invalid: PAGE_SIZE_MESSAGE, range: PAGE_SIZE_MESSAGE });

/** `sort_direction`: asc or desc in any case; blank or absent is asc. */
export const SortDirectionParam = v.optional(
  v.pipe(
    v.string(SORT_DIRECTION_MESSAGE),
    v.trim(),
    v.toLowerCase(),
    v.values(['', 'asc', 'desc'], SORT_DIRECTION_MESSAGE),
    v.transform((direction): SortDirection => (direction === 'desc' ? 'desc' : 'asc')),
  ),
  'asc',
);

function sortFieldParam(searchType: SearchType) {
  const fields: readonly string[] = SORT_FIELDS[searchType];
  const message = `sort_field must be one of: ${fields.join(', ')}`;
  return v.optional(
    v.pipe(v.string(message), v.trim(), v.values(['', ...fields], message), v.transform((field) => field || 'id')),
    'id',
  );
}

/** Filters on a network page URL: a whole URL in one is matched in the canonical form leads are stored in. */
const PAGE_URL_FILTERS: ReadonlySet<string> = new Set(['network_profile_url', 'network_url']);

/**
 * A page URL filter's value: a network page's URL written as people paste it
 * (`https://linkedin.com/in/ada-b/`) in its canonical form (`https://www.linkedin.com/in/ada-b`),
 * which "contains" then finds; any other value as it is (`ada-b` still matches).
 */
const pageUrlFilterValue = (value: string): string => {
  if (/linkedin\.com\//i.test(value)) {
    // A URL naming no one (`https://linkedin.com/in/`) is a prefix: from the host on, it is contained in every such page's URL.
    return canonicalPageUrl(value) ?? value.trim().replace(/^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[a-z0-9-]+\.)*(?=linkedin\.com\/)/i, '');
  }
  // A part of a slug with letters beyond ASCII (`jürgen`) as the stored URL holds it, percent-encoded.
  return Array.from(value).some((char) => char.charCodeAt(0) > 0x7f) ? slugSegment(value) : value;
};

/** The values of one filter parameter, folded; blank ones are dropped. */
function filterValuesParam(name: string) {
  const message = `Filter ${name} must be at most ${MAX_FILTER_VALUE_LENGTH} characters`;
  const asWritten = PAGE_URL_FILTERS.has(name) ? pageUrlFilterValue : (value: string) => value;
  return v.optional(
    v.pipe(
      v.array(v.pipe(v.string(message), v.maxLength(MAX_FILTER_VALUE_LENGTH, message)), message),
      v.transform((values) => values.map((value) => foldText(asWritten(value))).filter((value) => value !== '')),
    ),
  );
}

function unknownFilterMessage(searchType: SearchType) {
  const allowed = LIST_FILTERS[searchType].join(', ');
  return (issue: v.StrictObjectIssue) =>
    issue.expected === 'never'
      ? `Unknown filter '${String(issue.input)}'. Filters of ${searchType} lists: ${allowed}`
      : 'The query must be an object of parameters';
}

/** The folded values the query schema read for a filter parameter (the object's type only knows the paging keys). */
const valuesOf = (query: object, name: string): string[] => (query as Readonly<Record<string, string[] | undefined>>)[name] ?? [];

/** Canonical filter key of every accepted filter parameter name, aliases included. */
function filterKeys(searchType: SearchType): ReadonlyMap<string, string> {
  return new Map([...LIST_FILTERS[searchType].map((key): [string, string] => [key, key]), ...FILTER_ALIASES[searchType]]);
}

/**
 * The query of `GET /public/lead-lists/{id}/leads/` for one list type, as `leadsQueryInput`
 * shapes it: `page`, `page_size`, `sort_field` and `sort_direction` are single strings; the other
 * parameters are filters, each with all its values, and one that names no filter of the list type
 * is refused. The output is the LeadsQuery the repository pages with.
 */
function leadsQuery(searchType: SearchType) {
  const keys = filterKeys(searchType);
  const filters: Record<string, ReturnType<typeof filterValuesParam>> = {};
  for (const name of keys.keys()) filters[name] = filterValuesParam(name);
  return v.pipe(
    v.strictObject(
      { page: PageParam, page_size: PageSizeParam, sort_field: sortFieldParam(searchType), sort_direction: SortDirectionParam, ...filters },
      unknownFilterMessage(searchType),
    ),
    v.check(
      (query) => [...keys.keys()].reduce((sum, name) => sum + valuesOf(query, name).length, 0) <= MAX_FILTER_VALUES,
      `At most ${MAX_FILTER_VALUES} filter values per request`,
    ),
    v.transform((query): LeadsQuery => {
      const merged = new Map<string, string[]>();
      for (const [name, key] of keys) {
        const values = valuesOf(query, name);
        if (values.length > 0) merged.set(key, [...(merged.get(key) ?? []), ...values]);
      }
      return {
        page: query.page,
        pageSize: query.page_size,
        sortField: query.sort_field,
        direction: query.sort_direction,
        filters: [...merged].map(([key, values]) => ({ key, values: [...new Set(values)] })),
      };
    }),
  );
}

export const PeopleLeadsQuery = leadsQuery('PEOPLE');
export const CompanyLeadsQuery = leadsQuery('COMPANY');

/** The list-leads query schema of a list type. */
export const leadsQuerySchema = (searchType: SearchType) => (searchType === 'PEOPLE' ? PeopleLeadsQuery : CompanyLeadsQuery);

/**
 * The input of the query schemas from the query string's parameters (every value of repeated
 * ones): the last value of a paging or sorting parameter wins; repeated filter values are
 * alternatives.
 */
export function leadsQueryInput(params: Record<string, string[]>): Record<string, string | string[]> {
  const input = bareObject<string | string[]>();
  for (const [name, values] of Object.entries(params)) {
    if (!RESERVED_PARAMS.has(name)) input[name] = values;
    else if (values.length > 0) input[name] = values.at(-1) as string;
  }
  return input;
}

/** Reads page, page_size, sort_field, sort_direction and the filters of a list-leads request. */
/** The value schema of every accepted filter parameter of a list type. */
const filterParamEntries = (searchType: SearchType) => new Map([...filterKeys(searchType).keys()].map((name) => [name, filterValuesParam(name)]));
const FILTER_PARAMS = { PEOPLE: filterParamEntries('PEOPLE'), COMPANY: filterParamEntries('COMPANY') };
/** Paging and sorting alone, which are checked before any filter. */
const pagingParams = (searchType: SearchType) =>
  v.object({ page: PageParam, page_size: PageSizeParam, sort_field: sortFieldParam(searchType), sort_direction: SortDirectionParam });
const PAGING_PARAMS = { PEOPLE: pagingParams('PEOPLE'), COMPANY: pagingParams('COMPANY') };

/**
 * The query of a list-leads request, or a 400 naming its first problem as the service always
 * answered: paging and sorting first, then the filters in the order the caller wrote them (an
 * unknown name or a bad value, whichever comes first).
 */
export function parseLeadsQuery(searchType: SearchType, params: Record<string, string[]>): LeadsQuery {
  const input = leadsQueryInput(params);
  const checked = validate(leadsQuerySchema(searchType), input);
  if (checked.ok) return checked.value;
  const allowed = LIST_FILTERS[searchType].join(', ');
  const unknown = (name: string) => `Unknown filter '${name}'. Filters of ${searchType} lists: ${allowed}`;
  const paging = validate(PAGING_PARAMS[searchType], input);
  const inOrder = paging.ok ? firstProblemInInputOrder(input, FILTER_PARAMS[searchType], unknown, RESERVED_PARAMS) : undefined;
  throw validationError(inOrder ?? checked.message);
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
/** U+10FFFF: above every character in UTF-8 byte order (as DynamoDB compares), astral ones included. */
const BLANK = '\u{10FFFF}';
const SORT_VALUE_LENGTH = 200;

const textSort = (value: string | undefined): string => {
  // Cut by code points: half of a surrogate pair would not order as the character does.
  const folded = value ? Array.from(foldText(value)).slice(0, SORT_VALUE_LENGTH).join('') : '';
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

/** What a lead's list members hold: the projection they are ordered and filtered by, and the page's view. */
export interface MemberState {
  projection: MemberProjection;
  /** A prospect's company, kept in the list's digest so company changes find their members. */
  companyId?: number;
  /** A prospect's campaign, kept in the list's digest so add-to-campaign selects without reading leads. */
  campaignId?: number;
  /** The API object a list page returns for the lead. */
  view: Record<string, unknown>;
}

export const prospectMember = (prospect: Prospect, company: Company | undefined): MemberState => ({
  projection: prospectProjection(prospect, company),
  ...(prospect.companyId === undefined ? {} : { companyId: prospect.companyId }),
  ...(prospect.campaignId === undefined ? {} : { campaignId: prospect.campaignId }),
  view: toProspectView(prospect, company),
});

export const companyMember = (company: Company): MemberState => ({ projection: companyProjection(company), view: toCompanyView(company) });

/** Whether a prospect's list members must be rewritten after its company changed from `before` to `after`. */
export function companyChangeAffectsProspects(before: Company, after: Company): boolean {
  return (
    before.name !== after.name ||
    before.industry !== after.industry ||
    before.location !== after.location ||
    before.amountOfEmployees !== after.amountOfEmployees ||
    before.websiteUrl !== after.websiteUrl ||
    before.networkUrl !== after.networkUrl
  );
}
