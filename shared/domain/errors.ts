/**
 * Errors the domain raises. They carry a kind, never an HTTP status: the one mapping from kind
 * to status lives in shared/http/error-middleware.ts.
 */
export type DomainErrorKind =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'quota_exceeded'
  | 'rate_limited'
  | 'upstream';

/**
 * Fields an error body may carry besides `error`. `success: false` is for the endpoints whose
 * failures say so in the body (the spec's webhook test).
 */
export interface DomainErrorExtra {
  message?: string;
  details?: string;
  success?: false;
}

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly extra: DomainErrorExtra = {},
    /** For `rate_limited`: whole seconds until a retry can succeed (the response's Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const validationError = (message: string, details?: string) =>
  new DomainError('validation', message, details === undefined ? {} : { details });
export const notFound = (message: string) => new DomainError('not_found', message);
export const forbidden = (message = 'Access denied') => new DomainError('forbidden', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const upstreamError = (message: string, details?: string) =>
  new DomainError('upstream', message, details === undefined ? {} : { details });
export const unauthenticated = (message: string, hint?: string) =>
  new DomainError('unauthenticated', message, hint === undefined ? {} : { message: hint });

/** Too many requests: a 429 whose Retry-After is never shorter than the real wait. */
export const rateLimited = (message: string, retryAfterSeconds: number) => new DomainError('rate_limited', message, {}, retryAfterSeconds);

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError;
