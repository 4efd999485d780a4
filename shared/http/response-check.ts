import type { APIGatewayProxyResult } from 'aws-lambda';
import * as v from 'valibot';
import type { Logger } from '../logging/logger';
import { isHtml, json } from './responses';
import { ErrorBody, type RouteDefinition, documentedErrors } from './routes/define';

/**
 * Why a response breaks its route's contract, or undefined when it keeps it: a success status must
 * be one the route registers and its body must match that status's schema; an error status must
 * be one the route (or every route) documents, with the error body shape.
 */
export function responseViolation(route: RouteDefinition, response: APIGatewayProxyResult): string | undefined {
  const status = response.statusCode;
  if (isHtml(response)) {
    // A page: the route must produce pages, and the status must be one it documents.
    if (route.produces !== 'html') return `status ${status}: an HTML page from a JSON route`;
    const documented = status >= 400 ? documentedErrors(route).includes(status) : route.responses[status] !== undefined;
    if (!documented) return `status ${status} is not documented`;
    return response.body ? undefined : `status ${status}: an empty page`;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return `status ${status}: the body is not JSON`;
  }
  const isError = status >= 400;
  if (isError && !documentedErrors(route).includes(status)) return `status ${status} is not documented`;
  const schema = isError ? ErrorBody : route.responses[status];
  if (!schema) return `status ${status} is not documented`;
  const result = v.safeParse(schema, body);
  if (result.success) return undefined;
  const issue = result.issues[0];
  return `status ${status}: ${v.getDotPath(issue) ?? '(body)'}: ${issue.message}`;
}

/**
 * Used by the test stacks: a response that breaks its contract is logged and replaced by a 500
 * naming the mismatch, so the route's OpenAPI description can never silently drift from the code.
 */
export function checkResponse(route: RouteDefinition, response: APIGatewayProxyResult, logger: Logger): APIGatewayProxyResult {
  const violation = responseViolation(route, response);
  if (!violation) return response;
  const error = `Response does not match ${route.method} ${route.path}: ${violation}`;
  logger.error(error);
  return json(500, { error });
}
