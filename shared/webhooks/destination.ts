import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { DestinationPolicy } from '../domain/webhooks/ports';
import { MAX_WEBHOOK_URL_LENGTH, webhookTypeOf } from '../domain/webhooks/webhook';

/** The IPv6 global unicast range (RFC 4291); everything outside it is reserved, local or special. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Where a webhook may point (SSRF guard, part 1 of 2: the URL). Only public unicast addresses are
 * allowed: loopback, private (RFC 1918), link-local (incl. the 169.254.169.254 metadata service),
 * CGNAT, unspecified, broadcast, multicast, reserved, IPv6 ULA (incl. fd00:ec2::254) and
 * link-local, NAT64/6to4/Teredo and IPv4-mapped forms of any of these are refused. Odd IPv4
 * spellings (2130706433, 0177.0.0.1, 0x7f.1) are normalised by the WHATWG URL parser to dotted
 * form before the check. Part 2 (http-sender.ts) checks every address a name resolves to, at
 * connect time. Loopback is allowed only where `allowLoopback` is set: the local runtime, by
 * explicit configuration, never a deployed stack.
 */
export type AddressClass = 'public' | 'loopback' | 'forbidden';

export function classifyAddress(address: string): AddressClass {
  if (!ipaddr.isValid(address)) return 'forbidden';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === 'loopback') return 'loopback';
  if (range !== 'unicast') return 'forbidden';
  // ipaddr.js calls any IPv6 it has no name for unicast, the IPv4-compatible ::a.b.c.d (::/96,
  // deprecated, which embeds 169.254.169.254 as ::a9fe:a9fe) among them: only global unicast
  // (2000::/3) is public.
  return parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST) ? 'public' : 'forbidden';
}

export interface DestinationOptions {
  allowLoopback: boolean;
}

/** The host without IPv6 brackets or a trailing dot, lower-cased. */
export const bareHost = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();

const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/** A loopback literal or a `localhost` name (RFC 6761: always loopback). */
export function isLoopbackHost(url: URL): boolean {
  const host = bareHost(url);
  return isIP(host) ? classifyAddress(host) === 'loopback' : isLocalhostName(host);
}

export const REFUSED_ADDRESS = 'webhook_url must not point to a private, loopback, link-local or reserved address';

/** The checks that need no DNS: syntax, scheme, credentials, and literal addresses. */
export function checkDestination(raw: string, options: DestinationOptions): { ok: true; url: URL } | { ok: false; reason: string } {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: `webhook_url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, reason: 'webhook_url must be a valid URL' };
  }
  const loopbackHost = isLoopbackHost(url);
  const httpAllowed = options.allowLoopback && loopbackHost;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed)) {
    return { ok: false, reason: options.allowLoopback ? 'webhook_url must use https:// (or http:// to this machine)' : 'webhook_url must use https://' };
  }
  if (url.username || url.password) return { ok: false, reason: 'webhook_url must not contain a user name or password' };
  const host = bareHost(url);
  if (!host) return { ok: false, reason: 'webhook_url must be a valid URL' };
  if (isIP(host)) {
    const verdict = classifyAddress(host);
    if (verdict === 'forbidden' || (verdict === 'loopback' && !options.allowLoopback)) return { ok: false, reason: REFUSED_ADDRESS };
  }
  url.hash = '';
  return { ok: true, url };
}

export function createDestinationPolicy(options: DestinationOptions): DestinationPolicy {
  return {
    check(raw) {
      const checked = checkDestination(raw, options);
      return checked.ok ? { ok: true, url: checked.url.href } : checked;
    },
    webhookType(raw) {
      let anyHost = false;
      try {
        anyHost = options.allowLoopback && isLoopbackHost(new URL(raw));
      } catch {
        anyHost = false;
      }
      return webhookTypeOf(raw, { anyHost });
    },
  };
}
