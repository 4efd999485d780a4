import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type DomainErrorKind, isDomainError } from '../domain/errors';
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
  upstream: 502,
};

export type ErrorLogger = (message: string, details: Record<string, unknown>) => void;

const defaultLogger: ErrorLogger = (message, details) => console.error(JSON.stringify({ level: 'ERROR', message, ...details }));

/** Turns any error into a response. Only domain errors and body-parser errors say what went wrong; others are a bare 500. */
export function toErrorResponse(error: unknown, log: ErrorLogger = defaultLogger): APIGatewayProxyResult {
  if (isDomainError(error)) {
    return json(STATUS_BY_KIND[error.kind], { error: error.message, ...error.extra });
  }
  // @middy/http-json-body-parser signals a body that is not JSON with an exposed 4xx error.
  if (error instanceof Error && (error as { expose?: boolean }).expose && error.message.includes('JSON')) {
    return json(400, { error: 'Request body must be valid JSON' });
  }
  log('Unhandled error', { error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error) });
  return json(500, { error: 'Internal server error' });
}

export function errorMiddleware(log?: ErrorLogger): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (request) => {
      request.response = toErrorResponse(request.error, log);
    },
  };
}
