/**
 * Which mailbox provider receives a domain's mail, from its MX records (providers.md §4.7). A
 * "premium" address (the HAS_EMAIL_PREMIUM condition) is hosted at Google Workspace or Microsoft 365.
 */

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** DNS as the domain sees it: the MX records of a domain, [] when it has none (NXDOMAIN, no data, null MX). */
export interface MxResolver {
  resolveMx(domain: string): Promise<MxRecord[]>;
}

export type MailboxProvider = 'GOOGLE' | 'MICROSOFT' | 'OTHER' | 'NONE';

const GOOGLE = [/(^|\.)aspmx\.l\.google\.com$/, /^alt\d\.aspmx\.l\.google\.com$/, /^aspmx\d\.googlemail\.com$/, /^smtp\.google\.com$/];
// Consumer Outlook/Hotmail (`*.olc.protection.outlook.com`) is not Microsoft 365.
const MICROSOFT = [/\.mail\.protection\.outlook\.com$/, /\.mx\.microsoft$/];

/** The provider of the lowest-priority (most preferred) exchange that names one; NONE without mail exchangers. */
export function mailboxProviderOf(records: readonly MxRecord[]): MailboxProvider {
  const exchanges = [...records]
    .sort((a, b) => a.priority - b.priority)
    .map((record) => record.exchange.toLowerCase().replace(/\.$/, ''))
    // A null MX (RFC 7505: "."): the domain receives no mail.
    .filter((exchange) => exchange !== '');
  if (exchanges.length === 0) return 'NONE';
  for (const exchange of exchanges) {
    if (GOOGLE.some((pattern) => pattern.test(exchange))) return 'GOOGLE';
    if (MICROSOFT.some((pattern) => pattern.test(exchange))) return 'MICROSOFT';
  }
  return 'OTHER';
}

export const isPremiumMailbox = (provider: MailboxProvider): boolean => provider === 'GOOGLE' || provider === 'MICROSOFT';

/** The domain of an address, lowercase; undefined when it has none. */
export function domainOfEmail(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  const domain = at < 0 ? '' : email.slice(at + 1).trim().toLowerCase();
  return domain || undefined;
}
