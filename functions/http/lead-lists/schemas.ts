import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as v from 'valibot';
import { validationError } from '../../../shared/domain/errors';
import { CsvMapping } from '../../../shared/domain/leads/import-schemas';
import { LIMITS, SEARCH_TYPES } from '../../../shared/domain/leads/lead';

export const CreateLeadListBody = v.object({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('name is required'),
    v.maxLength(LIMITS.maxListNameLength, `name must be at most ${LIMITS.maxListNameLength} characters`),
  ),
  search_type: v.optional(v.picklist(SEARCH_TYPES, "search_type must be either 'PEOPLE' or 'COMPANY'"), 'PEOPLE'),
});

export const LeadIdsBody = v.object({
  prospect_ids: v.optional(v.unknown()),
  company_ids: v.optional(v.unknown()),
});

export const ImportBody = v.object({
  leads: v.optional(v.array(v.unknown(), 'leads must be an array of lead objects')),
  csv: v.optional(v.string('csv must be a string holding the CSV text')),
  mapping: v.optional(CsvMapping),
});

/**
 * An id list: a JSON array of positive integers. Numeric strings and a comma-separated string
 * (as some no-code tools send) are accepted too. Undefined when absent.
 */
export function idList(value: unknown, field: string): number[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = typeof value === 'string' ? value.split(',').map((part) => part.trim()).filter((part) => part !== '') : value;
  if (!Array.isArray(items)) throw validationError(`${field} must be an array of integer ids`);
  return items.map((item) => {
    const id = typeof item === 'string' && /^\d{1,16}$/.test(item.trim()) ? Number(item.trim()) : item;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) throw validationError(`${field} must be an array of integer ids`);
    return id;
  });
}

/** Query parameters with every value of repeated ones. */
export function queryParams(event: APIGatewayProxyEvent): Record<string, string[]> {
  const multi = event.multiValueQueryStringParameters;
  if (multi) return Object.fromEntries(Object.entries(multi).map(([key, values]) => [key, values ?? []]));
  return Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).map(([key, value]) => [key, value === undefined ? [] : [value]]));
}
