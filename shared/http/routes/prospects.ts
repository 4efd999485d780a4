import * as v from 'valibot';
import { LIMITS, SEARCH_SOURCES, SEARCH_TYPES } from '../../domain/leads/lead';
import { CURSOR_NOT_VALID, MAX_CURSOR_LENGTH } from '../../domain/leads/search-cursor';
import { SEARCH_FILTERS_DOCUMENTED } from '../../domain/leads/search-filters';
import { closed, jsonObject, unknownFieldOf } from '../../domain/validation';
import { Count, PageNumber, defineRoute } from './define';
import { CompanyView, ProspectView } from './lead-views';

const PAGE_SIZE_MESSAGE = `page_size must be an integer between 1 and ${LIMITS.maxPageSize}`;

/**
 * A field it does not know is a 400 naming it: a misspelt `filter` ran an unfiltered search, and a
 * misspelt `searchType` a PEOPLE one, each spending a directory search (probe, 2026-11-28).
 */
export const SearchBody = closed({
  // null is the default, as when a list is created (docs/api.md; it was a 400 here before 2026-11-29).
  search_type: v.nullish(v.picklist(SEARCH_TYPES, "search_type must be either 'PEOPLE' or 'COMPANY'"), 'PEOPLE'),
  source: v.optional(v.picklist(SEARCH_SOURCES, "source must be either 'DIRECTORY' or 'WORKSPACE'"), 'DIRECTORY'),
  page: v.optional(
    v.pipe(v.number('page must be a positive integer'), v.integer('page must be a positive integer'), v.minValue(1, 'page must be a positive integer')),
    1,
  ),
  page_size: v.optional(
    v.pipe(v.number(PAGE_SIZE_MESSAGE), v.integer(PAGE_SIZE_MESSAGE), v.minValue(1, PAGE_SIZE_MESSAGE), v.maxValue(LIMITS.maxPageSize, PAGE_SIZE_MESSAGE)),
    LIMITS.defaultPageSize,
  ),
  // Every key kept as sent: an unknown filter, even one named `constructor`, is the documented 400.
  filters: v.optional(v.pipe(jsonObject('filters must be an object'), v.metadata(SEARCH_FILTERS_DOCUMENTED)), {}),
  // The `next_cursor` of a previous WORKSPACE search (null: none). Whether it fits this search is the service's check.
  cursor: v.optional(v.nullable(v.pipe(v.string('cursor must be a string'), v.maxLength(MAX_CURSOR_LENGTH, CURSOR_NOT_VALID)))),
}, unknownFieldOf('a search'));

const envelope = {
  success: v.literal(true),
  source: v.picklist(SEARCH_SOURCES),
  page: PageNumber,
  page_size: PageNumber,
  // null: a WORKSPACE search with filters (exact only by reading the whole workspace).
  total_count: v.nullable(Count),
  // Where a WORKSPACE search continues; null at its end and for DIRECTORY.
  next_cursor: v.nullable(v.string()),
};

/** Spec: POST /public/prospects/search/ (API key). */
export const prospectRoutes = {
  searchProspects: defineRoute('prospects', {
    method: 'POST',
    path: '/public/prospects/search',
    auth: 'apiKey',
    summary: 'Searches the B2B directory (saving what it finds to the workspace) or the workspace itself.',
    request: { body: SearchBody },
    // A workspace search only reads; a directory search spends one of the month's searches.
    asksOnly: (body) => typeof body === 'object' && body !== null && (body as { source?: unknown }).source === 'WORKSPACE',
    responses: {
      200: v.union([
        v.strictObject({ ...envelope, search_type: v.literal('PEOPLE'), results: v.array(ProspectView) }),
        v.strictObject({ ...envelope, search_type: v.literal('COMPANY'), results: v.array(CompanyView) }),
      ]),
    },
    errors: [429, 502],
  }),
};
