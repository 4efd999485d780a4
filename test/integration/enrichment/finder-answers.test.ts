import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFor } from '../../../shared/domain/enrichment/enrichment';
import { hunterFinder, lushaFinder, prospeoFinder } from '../../../shared/providers/enrichment/finders';

/**
 * What the enrichment adapters make of answers the sandbox providers never give, over real HTTP
 * from a server on loopback: a success whose body is not JSON, or never ends, is a provider error
 * (tried again, then failed and refunded), never "not found" (docs/enrichment.md, "Providers").
 */
describe('enrichment providers that answer 200 with nothing readable', () => {
  let server: http.Server;
  let base: string;
  let answer: 'html' | 'truncated' | 'stalled' = 'html';
  const open: http.ServerResponse[] = [];
  let calls = 0;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      request.resume();
      calls += 1;
      response.writeHead(200, { 'content-type': answer === 'html' ? 'text/html' : 'application/json' });
      if (answer === 'html') response.end('<html><body>Service temporarily unavailable</body></html>');
      else if (answer === 'truncated') response.end('{"data":{"email":"ada@acme.exa');
      else {
        response.write('{"data":');
        open.push(response);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const response of open) response.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const finders = () => {
    const config = { baseUrl: base, apiKey: 'key', timeoutMs: 300 };
    return { email: [hunterFinder(config), prospeoFinder(config)], phone: lushaFinder(config) };
  };
  const person = { firstName: 'Ada', lastName: 'Lovelace', domain: 'acme.example', networkProfileUrl: 'https://www.linkedin.com/in/ada-l' };

  it.each([
    ['html', 'unreadable answer (HTTP 200)'],
    ['truncated', 'unreadable answer (HTTP 200)'],
    ['stalled', 'timed out'],
  ] as const)('a %s answer fails each type after 3 tries of each provider', async (kind, reason) => {
    answer = kind;
    calls = 0;
    expect(await findFor('FIND_EMAIL', finders(), person)).toEqual({ outcome: { kind: 'error', message: `hunter: ${reason}` } });
    expect(await findFor('FIND_EMAIL_WATERFALL', finders(), person)).toEqual({ outcome: { kind: 'error', message: `prospeo: ${reason}` } });
    expect(await findFor('FIND_PHONE', finders(), person)).toEqual({ outcome: { kind: 'error', message: `lusha: ${reason}` } });
    // FIND_EMAIL 3, the waterfall 3 + 3, FIND_PHONE 3.
    expect(calls).toBe(12);
  });

  it('asks no provider about a prospect it has nothing to search by: failed, not "not found"', async () => {
    calls = 0;
    const bare = { firstName: 'Ned', lastName: 'Sales' };
    expect(await findFor('FIND_EMAIL', finders(), bare)).toEqual({
      outcome: { kind: 'error', message: 'hunter: not asked: nothing to search by (no company domain or name, no profile)' },
    });
    expect(calls).toBe(0);
  });
});
