import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type DomainErrorKind, isDomainError } from '../domain/errors';
import type { Logger } from '../logging/logger';
import { json } from './responses';

/** The one mapping from domain error kinds to HTTP statuses. */
export const STATUS_BY_KIND: Record<DomainErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  quota_exceeded: 429,
  rate_limited: 429,
  upstream: 502,
};

/** What the error mapping needs of a logger. */
export type ErrorLogger = Pick<Logger, 'error'>;

/**
 * Turns any error into a response. Only domain errors and body-parser errors say what went wrong;
 * anything else is a bare 500, logged with its stack (never echoed to the caller).
 */
export function toErrorResponse(error: unknown, logger: ErrorLogger): APIGatewayProxyResult {
  if (isDomainError(error)) {
    const headers: Record<string, string> = error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
    return json(STATUS_BY_KIND[error.kind], { error: error.message, ...error.extra }, headers);
  }
  // @middy/http-json-body-parser signals a body that is not JSON with an exposed 4xx error.
  if (error instanceof Error && (error as { expose?: boolean }).expose && error.message.includes('JSON')) {
    return json(400, { error: 'Request body must be valid JSON' });
  }
  if (error instanceof Error) logger.error('Unhandled error', error);
  else logger.error('Unhandled error', { error: String(error) });
  return json(500, { error: 'Internal server error' });
}

export function errorMiddleware(logger: ErrorLogger): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (request) => {
      request.response = toErrorResponse(request.error, logger);
    },
  };
}
