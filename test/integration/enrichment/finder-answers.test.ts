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

/**
 * How the adapters sort a provider's refusals (docs/enrichment.md, "Providers"): a rate limit or a
 * fault of its own is tried again after a wait (the one it asked for with Retry-After, at most
 * 5 s), a refusal of our key, plan or request is final at once.
 */
describe('enrichment providers that refuse', () => {
  let receiver: Receiver;
  const json = (status: number, body: unknown, headers: Record<string, string> = {}): PlannedResponse => ({
    status,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
  const hunterFound = json(200, { data: { email: 'ada@acme.example', verification: { status: 'valid' } } });
  const lushaFound = json(200, { contact: { data: { phoneNumbers: [{ number: '+44 20 7946 0000' }] } } });
  const person = { firstName: 'Ada', lastName: 'Lovelace', domain: 'acme.example', networkProfileUrl: 'https://www.linkedin.com/in/ada-l' };

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver?.stop());

  /** Asks with a pause that records each wait and returns at once (no test sleeps). */
  const ask = async (type: 'FIND_EMAIL' | 'FIND_EMAIL_WATERFALL' | 'FIND_PHONE', ...planned: PlannedResponse[]) => {
    receiver.reset();
    receiver.plan(...planned);
    const config = { baseUrl: receiver.url, apiKey: 'key', timeoutMs: 1000 };
    const waits: number[] = [];
    const found = await findFor(type, { email: [hunterFinder(config), prospeoFinder(config)], phone: lushaFinder(config) }, person, () => true, async (ms) => {
      waits.push(ms);
    });
    return { found, waits, calls: receiver.requests.length };
  };

  it('asks Hunter again while it is still searching (202), waiting 250 ms then 1 s', async () => {
    expect(await ask('FIND_EMAIL', json(202, {}), json(202, {}), hunterFound)).toEqual({
      found: { outcome: { kind: 'found', value: 'ada@acme.example', verification: 'verified' }, provider: 'hunter' },
      waits: [250, 1000],
      calls: 3,
    });
  });

  it('waits the Retry-After a rate limit asks for (at most 5 s), and does not keep it in the outcome', async () => {
    expect(await ask('FIND_PHONE', json(429, {}, { 'retry-after': '2' }), lushaFound)).toEqual({
      found: { outcome: { kind: 'found', value: '+44 20 7946 0000', verification: 'verified' }, provider: 'lusha' },
      waits: [2000],
      calls: 2,
    });
    expect(await ask('FIND_PHONE', json(429, {}, { 'retry-after': '60' }), json(503, {}), json(503, {}))).toEqual({
      found: { outcome: { kind: 'error', message: 'lusha: HTTP 503' } },
      waits: [5000, 1000],
      calls: 3,
    });
  });

  it.each([
    ['FIND_EMAIL', json(401, { errors: [{ id: 'authentication_failed' }] }), 'hunter: HTTP 401'],
    ['FIND_EMAIL', json(429, { errors: [{ id: 'too_many_requests' }] }), 'hunter: plan quota used up (HTTP 429)'],
    ['FIND_PHONE', json(402, {}), 'lusha: HTTP 402'],
    ['FIND_PHONE', json(403, {}), 'lusha: HTTP 403'],
  ] as const)('%s: a refusal of our key, plan or credits is final at once (%s)', async (type, answer, message) => {
    expect(await ask(type, answer)).toEqual({ found: { outcome: { kind: 'error', message, final: true } }, waits: [], calls: 1 });
  });

  it('Lusha: the first number not flagged do-not-call, the flagged one only when it is all there is', async () => {
    const numbers = (...phones: { number: string; doNotCall?: boolean }[]) => json(200, { contact: { data: { phoneNumbers: phones } } });
    expect((await ask('FIND_PHONE', numbers({ number: '+1 555 010 0001', doNotCall: true }, { number: '+1 555 010 0002', doNotCall: false }))).found).toEqual({
      outcome: { kind: 'found', value: '+1 555 010 0002', verification: 'verified' },
      provider: 'lusha',
    });
    expect((await ask('FIND_PHONE', numbers({ number: '+1 555 010 0001', doNotCall: true }))).found).toEqual({
      outcome: { kind: 'found', value: '+1 555 010 0001', verification: 'verified' },
      provider: 'lusha',
    });
  });

  it('Hunter’s 403 is its rate limit: asked again', async () => {
    expect(await ask('FIND_EMAIL', json(403, {}), hunterFound)).toMatchObject({ waits: [250], calls: 2, found: { provider: 'hunter' } });
  });

  it('Prospeo: INSUFFICIENT_CREDITS is final and the waterfall goes on without it; RATE_LIMITED is asked again', async () => {
    // The waterfall: Hunter finds nothing (404), Prospeo refuses.
    expect(await ask('FIND_EMAIL_WATERFALL', json(404, {}), json(400, { error: true, error_code: 'INSUFFICIENT_CREDITS' }))).toEqual({
      found: { outcome: { kind: 'not_found' } },
      waits: [],
      calls: 2,
    });
    expect(
      await ask(
        'FIND_EMAIL_WATERFALL',
        json(404, {}),
        json(429, { error: true, error_code: 'RATE_LIMITED' }),
        json(200, { error: false, person: { email: { email: 'ada@acme.example', status: 'VERIFIED' } } }),
      ),
    ).toEqual({ found: { outcome: { kind: 'found', value: 'ada@acme.example', verification: 'verified' }, provider: 'prospeo' }, waits: [250], calls: 3 });
  });
});
