import { describe, expect, it } from 'vitest';
import { DomainError, notFound, rateLimited, unauthenticated, validationError } from '../../../shared/domain/errors';
import { StorageBusyError } from '../../../shared/db/conflict-retries';
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

describe('a busy storage or gateway', () => {
  const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`${name} happened`), { name, ...extra });
  const cancelled = (...codes: string[]) => named('TransactionCanceledException', { CancellationReasons: codes.map((Code) => ({ Code })) });

  it('answers 503 with Retry-After for throttling and conflicts past the retries, logged as a warning', () => {
    lines.length = 0;
    for (const error of [
      named('ProvisionedThroughputExceededException'),
      named('ThrottlingException'),
      named('RequestLimitExceeded'),
      named('TooManyRequestsException'),
      named('TransactionConflictException'),
      new StorageBusyError('BatchWriteItem left requests unprocessed after retries'),
      cancelled('None', 'ThrottlingError'),
      cancelled('TransactionConflict', 'None'),
    ]) {
      expect(toErrorResponse(error, logger)).toEqual({
        statusCode: 503,
        headers: { ...HEADERS, 'retry-after': '1' },
        body: '{"error":"The service is busy, try again in a moment"}',
      });
    }
    expect(lines.map((line) => JSON.parse(line)).map((entry) => [entry.level, entry.message, entry.error.name])).toEqual([
      ['WARN', 'Busy: answered 503', 'ProvisionedThroughputExceededException'],
      ['WARN', 'Busy: answered 503', 'ThrottlingException'],
      ['WARN', 'Busy: answered 503', 'RequestLimitExceeded'],
      ['WARN', 'Busy: answered 503', 'TooManyRequestsException'],
      ['WARN', 'Busy: answered 503', 'TransactionConflictException'],
      ['WARN', 'Busy: answered 503', 'StorageBusyError'],
      ['WARN', 'Busy: answered 503', 'TransactionCanceledException'],
      ['WARN', 'Busy: answered 503', 'TransactionCanceledException'],
    ]);
    // Logged with where it came from.
    expect(JSON.parse(lines[0] ?? '{}').error.stack).toMatch(/^ProvisionedThroughputExceededException: ProvisionedThroughputExceededException happened\n {4}at /);
  });

  it('keeps a transaction refused by a condition, or any other storage error, a 500', () => {
    lines.length = 0;
    expect(toErrorResponse(cancelled('ConditionalCheckFailed', 'ThrottlingError'), logger).statusCode).toBe(500);
    expect(toErrorResponse(named('ValidationException'), logger).statusCode).toBe(500);
    expect(lines.map((line) => JSON.parse(line).level)).toEqual(['ERROR', 'ERROR']);
  });
});
