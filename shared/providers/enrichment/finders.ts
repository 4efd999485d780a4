import type { Finder, FinderInput, FinderOutcome, Finders } from '../../domain/enrichment/enrichment';
import { isProviderMemberId } from '../../domain/leads/normalize';

/**
 * Adapters of the enrichment providers (docs/enrichment.md; wire formats in the provider
 * reference): Hunter's and Prospeo's email finders and Lusha's phone lookup. The sandbox
 * enrichment server of the local runtime speaks the same protocols, so these run there too.
 */
export interface FinderConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

const base = (url: string) => url.replace(/\/+$/, '');

interface Answer {
  status: number;
  body: Record<string, unknown>;
  /** The provider's `Retry-After` in seconds, as milliseconds (an HTTP date is not read). */
  retryAfterMs?: number;
}

function retryAfterOf(response: Response): { retryAfterMs?: number } {
  const header = response.headers.get('retry-after')?.trim();
  return header && /^\d{1,6}$/.test(header) ? { retryAfterMs: Number(header) * 1000 } : {};
}

async function call(url: string, init: RequestInit, timeoutMs: number): Promise<Answer | { error: string }> {
  try {
    const response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    // The whole body within the same bound: one that stalls is a timeout (thrown on), not an empty
    // answer; one that is not JSON reads as nothing.
    let body: unknown = await response.json().catch((error: Error) => {
      if (error.name === 'TimeoutError') throw error;
      return undefined;
    });
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      // A success whose body is not a JSON object says nothing about the person: a provider error
      // (tried again, then failed and refunded), not "not found" (before 2026-11-28 it was read
      // as an empty answer, and FIND_EMAIL kept its credits: a probe). An error status is decided
      // by its status alone.
      if (response.ok) return { error: `unreadable answer (HTTP ${response.status})` };
      body = {};
    }
    return { status: response.status, body: body as Record<string, unknown>, ...retryAfterOf(response) };
  } catch (error) {
    return { error: (error as Error).name === 'TimeoutError' ? 'timed out' : String(error) };
  }
}

/**
 * A prospect a provider has nothing to search by (no company domain or name, and no profile it
 * takes): not asked, so no answer: failed and refunded, never "not found" (which FIND_EMAIL
 * charges). Before 2026-11-28 it was "not found", and a Sales Navigator lead URL without a company
 * was charged for a search nobody made (a probe).
 */
const notAsked = (provider: string): FinderOutcome => ({
  kind: 'error',
  message: `${provider}: not asked: nothing to search by (no company domain or name, no profile)`,
  final: true,
});

const failed = (what: string): FinderOutcome => ({ kind: 'error', message: what });

/** Statuses worth a second try: a rate limit, a timeout, the provider's own fault. */
const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * An answer that is neither a find nor "not found", by its status: tried again (after the wait the
 * provider asked for, if it did) when it may answer later, final when asking again changes nothing:
 * our key (401, 403), our plan or credits (402), our request (400, 422). Before 2026-11-28 every
 * one was tried three times, back to back.
 */
function refused(provider: string, answer: Answer, retryable = isRetryableStatus(answer.status), what = `HTTP ${answer.status}`): FinderOutcome {
  const message = `${provider}: ${what}`;
  if (!retryable) return { kind: 'error', message, final: true };
  return { kind: 'error', message, ...(answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs }) };
}

/** The handle of a network profile URL (the part after `/in/`), as Hunter's `linkedin_handle` takes it. */
export function profileHandle(url: string | undefined): string | undefined {
  const match = url ? /\/in\/([^/?#]+)/i.exec(url) : null;
  if (!match?.[1]) return undefined;
  // A member id (`ACoAA…`) is case-sensitive: kept as it is, as canonicalPageUrl keeps it (before
  // 2026-11-28 it was lower-cased, which no provider knows).
  if (isProviderMemberId(match[1])) return match[1];
  try {
    return decodeURIComponent(match[1]).toLowerCase();
  } catch {
    return match[1].toLowerCase(); // a malformed escape: the handle as written
  }
}

/**
 * Hunter `GET /v2/email-finder`: `valid` is verified, `accept_all`/`unknown` risky, no email not
 * found. Asked with the name and the company's domain (or name), and the profile's handle when
 * there is one (Hunter finds by `linkedin_handle` alone too).
 */
export function hunterFinder(config: FinderConfig): Finder {
  return {
    name: 'hunter',
    async find(input: FinderInput): Promise<FinderOutcome> {
      const handle = profileHandle(input.networkProfileUrl);
      if (!input.domain && !input.companyName && !handle) return notAsked('hunter');
      const query = new URLSearchParams({ first_name: input.firstName, last_name: input.lastName });
      if (input.domain) query.set('domain', input.domain);
      else if (input.companyName) query.set('company', input.companyName);
      if (handle) query.set('linkedin_handle', handle);
      const answer = await call(`${base(config.baseUrl)}/v2/email-finder?${query}`, { headers: { 'X-API-KEY': config.apiKey } }, config.timeoutMs);
      if ('error' in answer) return failed(`hunter: ${answer.error}`);
      if (answer.status === 404) return { kind: 'not_found' };
      // Hunter's own meanings (provider reference 4.1): 202 is a search still running (the same
      // call again), 403 its rate limit (again, later), 429 the plan's quota used up (final).
      if (answer.status === 202) return refused('hunter', answer, true, 'still searching (HTTP 202)');
      if (answer.status === 403) return refused('hunter', answer, true, 'rate limited (HTTP 403)');
      if (answer.status === 429) return refused('hunter', answer, false, 'plan quota used up (HTTP 429)');
      if (answer.status !== 200) return refused('hunter', answer);
      const data = answer.body.data as { email?: string | null; verification?: { status?: string } } | undefined;
      if (!data?.email) return { kind: 'not_found' };
      const status = data.verification?.status;
      if (status === 'invalid' || status === 'disposable') return { kind: 'not_found' };
      return { kind: 'found', value: data.email, verification: status === 'valid' ? 'verified' : 'risky' };
    },
  };
}

/** Prospeo's error codes (provider reference 4.2) that a later try may not meet. */
const PROSPEO_PASSING_ERRORS = new Set(['RATE_LIMITED', 'INTERNAL_ERROR']);

/** Prospeo `POST /enrich-person`: NO_MATCH is not found; VERIFIED verified, other statuses risky. */
export function prospeoFinder(config: FinderConfig): Finder {
  return {
    name: 'prospeo',
    async find(input: FinderInput): Promise<FinderOutcome> {
      if (!input.domain && !input.networkProfileUrl && !input.companyName) return notAsked('prospeo');
      const data: Record<string, string> = { first_name: input.firstName, last_name: input.lastName };
      if (input.domain) data.company_website = input.domain;
      if (input.companyName) data.company_name = input.companyName;
      if (input.networkProfileUrl) data.linkedin_url = input.networkProfileUrl;
      const answer = await call(
        `${base(config.baseUrl)}/enrich-person`,
        { method: 'POST', headers: { 'X-KEY': config.apiKey, 'Content-Type': 'application/json' }, body: JSON.stringify({ data }) },
        config.timeoutMs,
      );
      if ('error' in answer) return failed(`prospeo: ${answer.error}`);
      if (answer.body.error === true) {
        const code = String(answer.body.error_code);
        if (code === 'NO_MATCH') return { kind: 'not_found' };
        // Its rate limit and its own fault pass; our key, credits, account or request do not.
        return refused('prospeo', answer, PROSPEO_PASSING_ERRORS.has(code), code);
      }
      if (answer.status !== 200) return refused('prospeo', answer);
      const email = (answer.body.person as { email?: { email?: string; status?: string } } | undefined)?.email;
      if (!email?.email) return { kind: 'not_found' };
      return { kind: 'found', value: email.email, verification: email.status === 'VERIFIED' ? 'verified' : 'risky' };
    },
  };
}

/** Lusha `GET /v2/person`: the first phone number (not flagged `doNotCall` when another is not); 404 or none is not found. */
export function lushaFinder(config: FinderConfig): Finder {
  return {
    name: 'lusha',
    async find(input: FinderInput): Promise<FinderOutcome> {
      const query = new URLSearchParams({ firstName: input.firstName, lastName: input.lastName, revealPhones: 'true' });
      if (input.networkProfileUrl) query.set('linkedinUrl', input.networkProfileUrl);
      if (input.domain) query.set('companyDomain', input.domain);
      else if (input.companyName) query.set('companyName', input.companyName);
      if (!input.networkProfileUrl && !input.domain && !input.companyName) return notAsked('lusha');
      const answer = await call(`${base(config.baseUrl)}/v2/person?${query}`, { headers: { api_key: config.apiKey } }, config.timeoutMs);
      if ('error' in answer) return failed(`lusha: ${answer.error}`);
      if (answer.status === 404) return { kind: 'not_found' };
      if (answer.status !== 200) return refused('lusha', answer);
      const phones = ((answer.body.contact as { data?: { phoneNumbers?: { number?: string; doNotCall?: boolean }[] } } | undefined)?.data?.phoneNumbers ?? []).filter(
        (p) => p.number,
      );
      // A number on a do-not-call list only when Lusha has no other (sales teams call these).
      const first = (phones.find((p) => p.doNotCall !== true) ?? phones[0])?.number;
      return first ? { kind: 'found', value: first, verification: 'verified' } : { kind: 'not_found' };
    },
  };
}

export interface EnrichmentProviderSettings {
  enrichmentEmailFinders: readonly string[];
  hunterBaseUrl: string;
  hunterApiKey: string;
  prospeoBaseUrl: string;
  prospeoApiKey: string;
  lushaBaseUrl: string;
  lushaApiKey: string;
  enrichmentTimeoutMs: number;
}

/** The finders the configuration names, in its order. */
export function findersFrom(config: EnrichmentProviderSettings): Finders {
  const timeoutMs = config.enrichmentTimeoutMs;
  const byName: Record<string, () => Finder> = {
    hunter: () => hunterFinder({ baseUrl: config.hunterBaseUrl, apiKey: config.hunterApiKey, timeoutMs }),
    prospeo: () => prospeoFinder({ baseUrl: config.prospeoBaseUrl, apiKey: config.prospeoApiKey, timeoutMs }),
  };
  return {
    email: config.enrichmentEmailFinders.map((name) => {
      const make = byName[name];
      if (!make) throw new Error(`Unknown email finder ${name}`);
      return make();
    }),
    phone: lushaFinder({ baseUrl: config.lushaBaseUrl, apiKey: config.lushaApiKey, timeoutMs }),
  };
}
