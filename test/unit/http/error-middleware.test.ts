import { describe, expect, it } from 'vitest';
import { DomainError, notFound, unauthenticated, validationError } from '../../../shared/domain/errors';
import { toErrorResponse } from '../../../shared/http/error-middleware';

const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

describe('error mapping', () => {
  it('maps domain errors to their status with the message as `error`', () => {
    expect(toErrorResponse(validationError('name is required'))).toEqual({ statusCode: 400, headers: HEADERS, body: '{"error":"name is required"}' });
    expect(toErrorResponse(notFound('Lead list not found'))).toEqual({ statusCode: 404, headers: HEADERS, body: '{"error":"Lead list not found"}' });
    expect(JSON.parse(toErrorResponse(unauthenticated('Missing API key', 'Provide X-API-Key header')).body)).toEqual({
      error: 'Missing API key',
      message: 'Provide X-API-Key header',
    });
    expect(toErrorResponse(new DomainError('upstream', 'Failed'))).toEqual({ statusCode: 502, headers: HEADERS, body: '{"error":"Failed"}' });
  });

  it('answers anything unexpected with a bare 500 that leaks nothing, and logs it', () => {
    const logged: unknown[] = [];
    const response = toErrorResponse(new Error('secret table name xyz'), (_message, details) => logged.push(details));
    expect(response).toEqual({ statusCode: 500, headers: HEADERS, body: '{"error":"Internal server error"}' });
    expect(JSON.parse(response.body)).toEqual({ error: 'Internal server error' });
    expect(logged).toEqual([
      { error: { name: 'Error', message: 'secret table name xyz', stack: expect.stringMatching(/^Error: secret table name xyz\n {4}at /) } },
    ]);
  });
});
