import { Resolver } from 'node:dns/promises';
import type { MxRecord, MxResolver } from '../domain/mail/mailbox-provider';
import type { Clock } from '../time/clock';

/**
 * MX lookups for the HAS_EMAIL_PREMIUM condition: real DNS with a timeout (deployed), or the
 * sandbox resolver of the local runtime (its answers are set through the sandbox control API,
 * `PUT /_sandbox/dns/mx/{domain}`), both behind a per-container cache.
 */

/** Answers that mean "this domain has no MX records", not "DNS failed". */
const NO_RECORDS = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

export class DnsMxResolver implements MxResolver {
  private readonly resolver: Resolver;

  constructor(timeoutMs: number) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  }

  async resolveMx(domain: string): Promise<MxRecord[]> {
    try {
      return await this.resolver.resolveMx(domain);
    } catch (error) {
      if (NO_RECORDS.has((error as { code?: string }).code ?? '')) return [];
      throw error;
    }
  }
}

/** The sandbox resolver: `GET {baseUrl}/_sandbox/dns/mx/{domain}` answers `{records: [{exchange, priority}]}`. */
export class SandboxMxResolver implements MxResolver {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async resolveMx(domain: string): Promise<MxRecord[]> {
    const response = await fetch(`${this.baseUrl}/_sandbox/dns/mx/${encodeURIComponent(domain)}`, { signal: AbortSignal.timeout(this.timeoutMs) });
    if (!response.ok) throw new Error(`Sandbox resolver answered HTTP ${response.status}`);
    const body = (await response.json()) as { records?: MxRecord[] };
    return body.records ?? [];
  }
}

/** How long an answer is kept; failures are not kept. */
export const MX_CACHE_TTL_MS = 60 * 60_000;
const MX_CACHE_ENTRIES = 5_000;

/** A per-container cache in front of a resolver (a domain is asked once an hour, however many prospects share it). */
export class CachedMxResolver implements MxResolver {
  private readonly answers = new Map<string, { records: MxRecord[]; until: number }>();

  constructor(
    private readonly inner: MxResolver,
    private readonly clock: Clock,
    private readonly ttlMs = MX_CACHE_TTL_MS,
  ) {}

  async resolveMx(domain: string): Promise<MxRecord[]> {
    const key = domain.toLowerCase();
    const now = this.clock.now().getTime();
    const cached = this.answers.get(key);
    if (cached && cached.until > now) return cached.records;
    const records = await this.inner.resolveMx(key);
    if (this.answers.size >= MX_CACHE_ENTRIES) this.answers.delete(this.answers.keys().next().value as string);
    this.answers.set(key, { records, until: now + this.ttlMs });
    return records;
  }
}
