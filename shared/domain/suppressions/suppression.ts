import { domainToASCII } from 'node:url';
/**
 * The workspace suppression list (docs/engine.md, "Unsubscribes and suppression"): addresses and
 * domains no email step of the workspace sends to. An address is suppressed when it is on the list
 * itself or its domain is (exact domain: a listed `example.com` does not cover `mail.example.com`).
 * Pure rules; the service is suppression-service.ts.
 */

export type SuppressionType = 'EMAIL' | 'DOMAIN';
/** Why a value is on the list: the recipient unsubscribed, an email to it hard-bounced, or a user put it there. */
export type SuppressionReason = 'UNSUBSCRIBED' | 'HARD_BOUNCE' | 'MANUAL';

export interface Suppression {
  id: number;
  workspaceId: number;
  type: SuppressionType;
  /** Lowercase: the address, or the domain. */
  value: string;
  reason: SuppressionReason;
  /** The prospect and campaign it came from (an unsubscribe or a bounce); null for manual entries. */
  prospectId: number | null;
  campaignId: number | null;
  createdAt: string;
}

/** Values one request may add. */
export const MAX_SUPPRESSIONS_PER_REQUEST = 1000;
/** Entries of a page of the list. */
export const SUPPRESSIONS_PAGE_SIZE = 100;

const LOCAL_PART = /^[^\s@<>(),;:"[\]\\]+$/;
// Labels as mail systems accept them (underscores included); internationalized names are compared in their ASCII (punycode) form.
const DOMAIN = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)+$/;

/** The address as the list keeps it (trimmed, lowercase, its domain in ASCII), or undefined when it is not an email address. */
export function suppressionEmail(input: string): string | undefined {
  const email = input.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  if (at < 1 || email.length > 254 || !LOCAL_PART.test(email.slice(0, at))) return undefined;
  const domain = suppressionDomain(email.slice(at + 1));
  return domain ? `${email.slice(0, at)}@${domain}` : undefined;
}

/** The domain as the list keeps it (trimmed, lowercase, ASCII, no trailing dot), or undefined when it is not a domain name. */
export function suppressionDomain(input: string): string | undefined {
  const domain = input.trim().toLowerCase().replace(/\.$/, '');
  const ascii = /^[ -~]*$/.test(domain) ? domain : domainToASCII(domain);
  // A top-level label of digits only is no domain name: an IPv4 address (127.0.0.1) is refused.
  return DOMAIN.test(ascii) && !/\.[0-9]+$/.test(ascii) ? ascii : undefined;
}

/** The list entries that would suppress an address: the address and its domain. */
export function suppressionKeysOf(email: string): { type: SuppressionType; value: string }[] {
  const address = suppressionEmail(email);
  if (!address) return [];
  return [
    { type: 'EMAIL', value: address },
    { type: 'DOMAIN', value: address.slice(address.lastIndexOf('@') + 1) },
  ];
}
