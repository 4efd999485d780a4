import type { APIGatewayProxyEvent } from 'aws-lambda';
import { validationError } from '../../../shared/domain/errors';

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
  // Null prototype: parameter names are the caller's, and `constructor` must not find Object's.
  const params: Record<string, string[]> = Object.create(null);
  const multi = event.multiValueQueryStringParameters;
  if (multi) for (const [key, values] of Object.entries(multi)) params[key] = values ?? [];
  else for (const [key, value] of Object.entries(event.queryStringParameters ?? {})) params[key] = value === undefined ? [] : [value];
  return params;
}
