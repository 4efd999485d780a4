import { describe, expect, it } from 'vitest';
import { createLogger, readableLine } from '../../../shared/logging/logger';

describe('the logger', () => {
  it('writes one JSON entry per line with the service name', () => {
    const lines: string[] = [];
    const logger = createLogger({ service: 'api-keys', sink: (line) => lines.push(line) });
    logger.appendKeys({ workspace_id: 7 });
    logger.info('Usage key not retired', { usageKeyId: 'abc' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 'INFO',
      message: 'Usage key not retired',
      service: 'api-keys',
      workspace_id: 7,
      usageKeyId: 'abc',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it('prints readable lines locally: time, level, service, message, then the other fields', () => {
    const line = JSON.stringify({
      level: 'ERROR',
      message: 'Unhandled error',
      timestamp: '2026-11-23T12:00:01.234Z',
      service: 'lead-lists',
      sampling_rate: 0,
      workspace_id: 7,
      error: { name: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' },
    });
    expect(readableLine(line)).toBe('12:00:01.234 ERROR [lead-lists] Unhandled error workspace_id=7 error.name=Error error.message=boom \nError: boom\n    at x (y.ts:1:1)');
    expect(readableLine('not json')).toBe('not json');
  });

  it('sends readable lines to the sink when asked', () => {
    const lines: string[] = [];
    createLogger({ service: 'auth', format: 'readable', sink: (line) => lines.push(line) }).warn('Slow', { ms: 12 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} WARN {2}\[auth\] Slow ms=12$/);
  });
});
