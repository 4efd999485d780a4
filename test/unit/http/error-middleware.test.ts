import { describe, expect, it } from 'vitest';
import { DomainError, notFound, unauthenticated, validationError } from '../../../shared/domain/errors';
import { toErrorResponse } from '../../../shared/http/error-middleware';
import { createLogger } from '../../../shared/logging/logger';

const lines: string[] = [];
const logger = createLogger({ service: 'test', sink: (line) => lines.push(line) });

describe('error mapping', () => {
  it('maps domain errors to their status with the message as `error`', () => {
    lines.length = 0;
    expect(toErrorResponse(validationError('name is required'), logger)).toMatchObject({ statusCode: 400, body: '{"error":"name is required"}' });
    expect(toErrorResponse(notFound('Lead list not found'), logger).statusCode).toBe(404);
    expect(JSON.parse(toErrorResponse(unauthenticated('Missing API key', 'Provide X-API-Key header'), logger).body)).toEqual({
      error: 'Missing API key',
      message: 'Provide X-API-Key header',
    });
    expect(toErrorResponse(new DomainError('upstream', 'Failed'), logger).statusCode).toBe(502);
    // Domain errors are answers, not failures: nothing is logged for them.
    expect(lines).toEqual([]);
  });

  it('answers anything unexpected with a bare 500 that leaks nothing, and logs it', () => {
    lines.length = 0;
    const response = toErrorResponse(new Error('secret table name xyz'), logger);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ error: 'Internal server error' });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '{}');
    expect(entry).toMatchObject({ level: 'ERROR', message: 'Unhandled error', service: 'test' });
    expect(entry.error).toMatchObject({ name: 'Error', message: 'secret table name xyz' });
    expect(entry.error.stack).toMatch(/^Error: secret table name xyz\n\s+at /);
  });
});
