import type { APIGatewayProxyEvent } from 'aws-lambda';

/** Query parameters with every value of repeated ones. */
export function queryParams(event: APIGatewayProxyEvent): Record<string, string[]> {
  // Null prototype: parameter names are the caller's, and `constructor` must not find Object's.
  const params: Record<string, string[]> = Object.create(null);
  const multi = event.multiValueQueryStringParameters;
  if (multi) for (const [key, values] of Object.entries(multi)) params[key] = values ?? [];
  else for (const [key, value] of Object.entries(event.queryStringParameters ?? {})) params[key] = value === undefined ? [] : [value];
  return params;
}
