import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFor } from '../../../shared/domain/enrichment/enrichment';
import { hunterFinder, lushaFinder, prospeoFinder } from '../../../shared/providers/enrichment/finders';
import { type PlannedResponse, type Receiver, startReceiver } from '../../support/receiver';

/**
 * What the enrichment adapters make of answers the sandbox providers never give, over real HTTP
 * from a server on loopback: a success whose body is not JSON, or never ends, is a provider error
 * (tried again, then failed and refunded), never "not found" (docs/enrichment.md, "Providers").
 */
describe('enrichment providers that answer 200 with nothing readable', () => {
  let receiver: Receiver;
  const answers: Record<'html' | 'truncated' | 'stalled', PlannedResponse> = {
    html: { status: 200, body: '<html><body>Service temporarily unavailable</body></html>', headers: { 'content-type': 'text/html' } },
    truncated: { status: 200, body: '{"data":{"email":"ada@acme.exa', headers: { 'content-type': 'application/json' } },
    stalled: { status: 200, body: '{"data":', headers: { 'content-type': 'application/json' }, stallBody: true },
  };

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver?.stop());

  const finders = () => {
    const config = { baseUrl: receiver.url, apiKey: 'key', timeoutMs: 300 };
    return { email: [hunterFinder(config), prospeoFinder(config)], phone: lushaFinder(config) };
  };
  const person = { firstName: 'Ada', lastName: 'Lovelace', domain: 'acme.example', networkProfileUrl: 'https://www.linkedin.com/in/ada-l' };

  it.each([
    ['html', 'unreadable answer (HTTP 200)'],
    ['truncated', 'unreadable answer (HTTP 200)'],
    ['stalled', 'timed out'],
  ] as const)('a %s answer fails each type after 3 tries of each provider', async (kind, reason) => {
    receiver.reset();
    receiver.setDefault(answers[kind]);
    expect(await findFor('FIND_EMAIL', finders(), person)).toEqual({ outcome: { kind: 'error', message: `hunter: ${reason}` } });
    expect(await findFor('FIND_EMAIL_WATERFALL', finders(), person)).toEqual({ outcome: { kind: 'error', message: `prospeo: ${reason}` } });
    expect(await findFor('FIND_PHONE', finders(), person)).toEqual({ outcome: { kind: 'error', message: `lusha: ${reason}` } });
    // FIND_EMAIL 3, the waterfall 3 + 3, FIND_PHONE 3.
    expect(receiver.requests).toHaveLength(12);
  });

  it('asks no provider about a prospect it has nothing to search by: failed, not "not found"', async () => {
    receiver.reset();
    const bare = { firstName: 'Ned', lastName: 'Sales' };
    expect(await findFor('FIND_EMAIL', finders(), bare)).toEqual({
      outcome: { kind: 'error', message: 'hunter: not asked: nothing to search by (no company domain or name, no profile)', final: true },
    });
    expect(receiver.requests).toHaveLength(0);
  });
});
