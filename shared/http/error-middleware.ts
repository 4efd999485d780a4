import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { isStorageBusy } from '../db/conflict-retries';
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
export type ErrorLogger = Pick<Logger, 'error' | 'warn'>;

/** Seconds a caller is told to wait after a 503: DynamoDB's throttling usually passes within one. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Turns any error into a response. Only domain errors and body-parser errors say what went wrong;
 * a call DynamoDB or API Gateway refused for being busy (throttled or in conflict past every retry) is a 503
 * the caller may send again after Retry-After (every write converges or is conditional, so a
 * repeat is safe, as after any failure); anything else is a bare 500,
 * logged with its stack (never echoed to the caller).
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
  if (isStorageBusy(error)) {
    // With its stack: a conflict that a request's own writes caused would be a bug, not load.
    logger.warn('Busy: answered 503', error as Error);
    return json(503, { error: 'The service is busy, try again in a moment' }, { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) });
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
