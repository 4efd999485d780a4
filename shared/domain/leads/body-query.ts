import { validationError } from '../errors';
import { isPlainObject } from '../validation';
import { LIST_FILTERS, type LeadsQuery, SORT_FIELDS, parseLeadsQuery } from './list-query';

/** The parts of a POST body that select a PEOPLE list's leads as list-leads' query does. */
export interface LeadsSelectionBody {
  filters?: unknown;
  sort_field?: unknown;
  sort_direction?: unknown;
}

const NOT_FILTERS: ReadonlySet<string> = new Set(['page', 'page_size', 'sort_field', 'sort_direction']);

const FILTERS_MESSAGE = 'filters must be an object of filter name -> value or list of values';

/**
 * A body's `filters` (filter name -> value or list of values), `sort_field` and `sort_direction`
 * read as the list-leads query of a PEOPLE list, with its messages: one reader, so that
 * add-to-campaign and an enrichment start answer a bad selection with the same 400.
 */
export function leadsQueryOfBody(body: LeadsSelectionBody): LeadsQuery {
  if (body.filters !== undefined && body.filters !== null && !isPlainObject(body.filters)) throw validationError(FILTERS_MESSAGE);
  const params: Record<string, string[]> = Object.create(null);
  if (body.sort_field !== undefined && body.sort_field !== null) {
    if (typeof body.sort_field !== 'string') throw validationError(`sort_field must be one of: ${SORT_FIELDS.PEOPLE.join(', ')}`);
    params.sort_field = [body.sort_field];
  }
  if (body.sort_direction !== undefined && body.sort_direction !== null) {
    if (typeof body.sort_direction !== 'string') throw validationError("sort_direction must be 'asc' or 'desc'");
    params.sort_direction = [body.sort_direction];
  }
  for (const [key, value] of Object.entries((body.filters ?? {}) as Record<string, unknown>)) {
    // Paging and sorting are the body's own fields, not filters.
    if (NOT_FILTERS.has(key)) throw validationError(`Unknown filter '${key}'. Filters of PEOPLE lists: ${LIST_FILTERS.PEOPLE.join(', ')}`);
    const values = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item !== 'string')) throw validationError(`Filter ${key} must be a string or a list of strings`);
    params[key] = values as string[];
  }
  return parseLeadsQuery('PEOPLE', params);
}
