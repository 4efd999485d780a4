import * as v from 'valibot';
import { LIMITS, SEARCH_TYPES } from '../../../shared/domain/leads/lead';
import { SEARCH_SOURCES } from '../../../shared/domain/leads/prospect-search-service';
import { plainObject } from '../../../shared/http/request';

const PAGE_SIZE_MESSAGE = `page_size must be an integer between 1 and ${LIMITS.maxPageSize}`;

export const SearchBody = v.object({
  search_type: v.optional(v.picklist(SEARCH_TYPES, "search_type must be either 'PEOPLE' or 'COMPANY'"), 'PEOPLE'),
  source: v.optional(v.picklist(SEARCH_SOURCES, "source must be either 'DIRECTORY' or 'WORKSPACE'"), 'DIRECTORY'),
  page: v.optional(
    v.pipe(v.number('page must be a positive integer'), v.integer('page must be a positive integer'), v.minValue(1, 'page must be a positive integer')),
    1,
  ),
  page_size: v.optional(
    v.pipe(v.number(PAGE_SIZE_MESSAGE), v.integer(PAGE_SIZE_MESSAGE), v.minValue(1, PAGE_SIZE_MESSAGE), v.maxValue(LIMITS.maxPageSize, PAGE_SIZE_MESSAGE)),
    LIMITS.defaultPageSize,
  ),
  filters: v.optional(plainObject(v.record(v.string(), v.unknown()), 'filters must be an object'), {}),
});
