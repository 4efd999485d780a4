import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { profileHandle } from '../../shared/providers/enrichment/finders';

/**
 * Sandbox enrichment providers: one local HTTP server speaking Hunter's email finder
 * (`GET /v2/email-finder`), Prospeo's `POST /enrich-person` and Lusha's `GET /v2/person`, so the
 * real adapters run against it. Outcomes a person can predict: with a company domain an email
 * finder finds `first.last@domain` (verified); without one nothing is found; phones are found only
 * where the control API gives one. The control API (`/_sandbox/enrichment/...`) sets an outcome per
 * prospect name or profile URL, optionally for one provider only, and lists the calls made.
 */
export type SandboxOutcome = 'found' | 'not_found' | 'risky' | 'error';

export interface SandboxRule {
  /** `First Last` (case-insensitive) or a profile URL. */
  match: string;
  provider?: 'hunter' | 'prospeo' | 'lusha';
  outcome: SandboxOutcome;
  email?: string;
  phone?: string;
}

export interface SandboxCall {
  provider: 'hunter' | 'prospeo' | 'lusha';
  name: string;
  domain: string | null;
}

export interface SandboxEnrichment {
  url: string;
  keys: { hunter: string; prospeo: string; lusha: string };
  calls: SandboxCall[];
  rules: SandboxRule[];
  stop(): Promise<void>;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = '';
    request.on('data', (chunk) => {
      data += chunk;
    });
    request.on('end', () => resolve(data));
  });

const slug = (text: string) => text.normalize('NFKD').replace(/[^A-Za-z0-9]/g, '').toLowerCase();

export async function startSandboxEnrichment(): Promise<SandboxEnrichment> {
  const keys = { hunter: `hunter-${randomBytes(8).toString('hex')}`, prospeo: `prospeo-${randomBytes(8).toString('hex')}`, lusha: `lusha-${randomBytes(8).toString('hex')}` };
  const calls: SandboxCall[] = [];
  const rules: SandboxRule[] = [];

  // A profile URL rule matches by the profile's handle: Hunter is given the handle, Prospeo and Lusha the URL.
  const ruleFor = (provider: SandboxCall['provider'], name: string, handle: string | undefined) =>
    [...rules]
      .reverse()
      .find((rule) => (!rule.provider || rule.provider === provider) && (rule.match.toLowerCase() === name.toLowerCase() || (handle !== undefined && profileHandle(rule.match) === handle)));

  /** The provider's answer for a person: found value and verification, or none, or an error. */
  function decide(provider: SandboxCall['provider'], first: string, last: string, domain: string | undefined, handle: string | undefined) {
    const name = `${first} ${last}`;
    calls.push({ provider, name, domain: domain ?? null });
    const rule = ruleFor(provider, name, handle);
    const guess = domain ? `${slug(first)}.${slug(last)}@${domain}` : undefined;
    if (rule) {
      if (rule.outcome === 'error') return { error: true as const };
      if (rule.outcome === 'not_found') return { value: undefined };
      const value = provider === 'lusha' ? rule.phone : (rule.email ?? guess ?? `${slug(first)}.${slug(last)}@example.com`);
      return { value, verified: rule.outcome === 'found' };
    }
    if (provider === 'lusha') return { value: undefined };
    return { value: guess, verified: true };
  }

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://sandbox');
    if (url.pathname === '/_sandbox/enrichment/rules' && request.method === 'POST') {
      const body = JSON.parse((await readBody(request)) || '{}') as SandboxRule;
      rules.push(body);
      return json(response, 200, { ok: true, rules: rules.length });
    }
    if (url.pathname === '/_sandbox/enrichment/rules' && request.method === 'DELETE') {
      rules.length = 0;
      calls.length = 0;
      return json(response, 200, { ok: true });
    }
    if (url.pathname === '/_sandbox/enrichment/calls') return json(response, 200, { calls });

    if (url.pathname === '/v2/email-finder' && request.method === 'GET') {
      if (request.headers['x-api-key'] !== keys.hunter) return json(response, 401, { errors: [{ id: 'authentication_failed', code: 401 }] });
      const handle = url.searchParams.get('linkedin_handle')?.toLowerCase() || undefined;
      const answer = decide('hunter', url.searchParams.get('first_name') ?? '', url.searchParams.get('last_name') ?? '', url.searchParams.get('domain') ?? undefined, handle);
      if ('error' in answer) return json(response, 503, { errors: [{ id: 'service_unavailable', code: 503 }] });
      return json(response, 200, {
        data: { email: answer.value ?? null, score: answer.value ? 95 : 0, verification: { status: answer.verified ? 'valid' : 'accept_all' } },
      });
    }
    if (url.pathname === '/enrich-person' && request.method === 'POST') {
      if (request.headers['x-key'] !== keys.prospeo) return json(response, 401, { error: true, error_code: 'INVALID_API_KEY' });
      const { data } = JSON.parse((await readBody(request)) || '{}') as { data?: Record<string, string> };
      const answer = decide('prospeo', data?.first_name ?? '', data?.last_name ?? '', data?.company_website, profileHandle(data?.linkedin_url));
      if ('error' in answer) return json(response, 500, { error: true, error_code: 'INTERNAL_ERROR' });
      if (!answer.value) return json(response, 200, { error: true, error_code: 'NO_MATCH' });
      return json(response, 200, { error: false, person: { email: { email: answer.value, status: answer.verified ? 'VERIFIED' : 'UNVERIFIED', revealed: true } } });
    }
    if (url.pathname === '/v2/person' && request.method === 'GET') {
      if (request.headers.api_key !== keys.lusha) return json(response, 401, { message: 'Unauthorized' });
      const answer = decide(
        'lusha',
        url.searchParams.get('firstName') ?? '',
        url.searchParams.get('lastName') ?? '',
        url.searchParams.get('companyDomain') ?? undefined,
        profileHandle(url.searchParams.get('linkedinUrl') ?? undefined),
      );
      if ('error' in answer) return json(response, 503, { message: 'Service unavailable' });
      if (!answer.value) return json(response, 404, { message: 'Contact not found' });
      return json(response, 200, { contact: { data: { phoneNumbers: [{ number: answer.value, phoneType: 'mobile' }] } } });
    }
    return json(response, 404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    keys,
    calls,
    rules,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
