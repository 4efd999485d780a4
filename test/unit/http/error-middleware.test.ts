import { describe, expect, it } from 'vitest';
import { DomainError, notFound, rateLimited, unauthenticated, validationError } from '../../../shared/domain/errors';
import { toErrorResponse } from '../../../shared/http/error-middleware';
import { createLogger } from '../../../shared/logging/logger';

const lines: string[] = [];
const logger = createLogger({ service: 'test', sink: (line) => lines.push(line) });

const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

describe('error mapping', () => {
  it('maps domain errors to their status with the message as `error`', () => {
    lines.length = 0;
    expect(toErrorResponse(validationError('name is required'), logger)).toEqual({ statusCode: 400, headers: HEADERS, body: '{"error":"name is required"}' });
    expect(toErrorResponse(notFound('Lead list not found'), logger)).toEqual({ statusCode: 404, headers: HEADERS, body: '{"error":"Lead list not found"}' });
    expect(JSON.parse(toErrorResponse(unauthenticated('Missing API key', 'Provide X-API-Key header'), logger).body)).toEqual({
      error: 'Missing API key',
      message: 'Provide X-API-Key header',
    });
    expect(toErrorResponse(new DomainError('upstream', 'Failed'), logger)).toEqual({ statusCode: 502, headers: HEADERS, body: '{"error":"Failed"}' });
    // A rate limit says when to come back.
    expect(toErrorResponse(rateLimited('Too many login attempts', 900), logger)).toEqual({
      statusCode: 429,
      headers: { ...HEADERS, 'retry-after': '900' },
      body: '{"error":"Too many login attempts"}',
    });
    // Domain errors are answers, not failures: nothing is logged for them.
    expect(lines).toEqual([]);
  });

  it('answers anything unexpected with a bare 500 that leaks nothing, and logs it with its stack', () => {
    lines.length = 0;
    const response = toErrorResponse(new Error('secret table name xyz'), logger);
    expect(response).toEqual({ statusCode: 500, headers: HEADERS, body: '{"error":"Internal server error"}' });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '{}');
    expect(entry).toMatchObject({ level: 'ERROR', message: 'Unhandled error', service: 'test' });
    expect(entry.error).toEqual({
      name: 'Error',
      // Where Powertools found the error (the first stack frame outside its own code).
      location: expect.stringMatching(/:\d+$/),
      message: 'secret table name xyz',
      stack: expect.stringMatching(/^Error: secret table name xyz\n {4}at /),
    });
  });
});
