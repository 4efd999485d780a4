import { describe, expect, it } from 'vitest';
import { DomainError, notFound, unauthenticated, validationError } from '../../../shared/domain/errors';
import { toErrorResponse } from '../../../shared/http/error-middleware';

describe('error mapping', () => {
  it('maps domain errors to their status with the message as `error`', () => {
    expect(toErrorResponse(validationError('name is required'))).toMatchObject({ statusCode: 400, body: '{"error":"name is required"}' });
    expect(toErrorResponse(notFound('Lead list not found')).statusCode).toBe(404);
    expect(JSON.parse(toErrorResponse(unauthenticated('Missing API key', 'Provide X-API-Key header')).body)).toEqual({
      error: 'Missing API key',
      message: 'Provide X-API-Key header',
    });
    expect(toErrorResponse(new DomainError('upstream', 'Failed')).statusCode).toBe(502);
  });

  it('answers anything unexpected with a bare 500 that leaks nothing, and logs it', () => {
    const logged: unknown[] = [];
    const response = toErrorResponse(new Error('secret table name xyz'), (_message, details) => logged.push(details));
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ error: 'Internal server error' });
    expect(JSON.stringify(logged)).toContain('secret table name xyz');
  });
});
