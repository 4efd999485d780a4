import { trimInvisible } from '../validation';

/**
 * Normalisation of lead data before it is stored or matched: the same person or company must
 * always produce the same identity, however a CSV or a provider spelled it.
 */

/** Control characters other than tab and newlines, which never belong in a field. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * An address as mail systems take it: a dot-atom local part (letters and digits of any script,
 * marks, and RFC 5322's `!#$%&'*+/=?^_\`{|}~-`), and a domain of two or more labels of letters,
 * digits and inner hyphens. Brackets, semicolons, quotes, parentheses and invisible characters
 * (a zero-width space) make no address: before 2026-11-29 anything without spaces around an `@`
 * passed (`<x@y.example>`, `x@y.example;`), and one person became several prospects (a probe).
 */
const EMAIL = /^[\p{L}\p{N}\p{M}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}\p{M}!#$%&'*+/=?^_`{|}~-]+)*@[\p{L}\p{N}\p{M}](?:[\p{L}\p{N}\p{M}-]*[\p{L}\p{N}\p{M}])?(?:\.[\p{L}\p{N}\p{M}](?:[\p{L}\p{N}\p{M}-]*[\p{L}\p{N}\p{M}])?)+$/u;

/** Text without control characters, trimmed of white space and invisible characters at its ends; undefined when nothing is left. */
export function cleanText(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const cleaned = trimInvisible(value.replace(CONTROL, ''));
  return cleaned === '' ? undefined : cleaned;
}

/** Email addresses compare lower-cased and trimmed. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export const isEmail = (email: string): boolean => email.length <= 254 && EMAIL.test(email);

/** Digits grouped as people write them: spaces, dots, dashes, slashes, parentheses; a leading `+`. */
const PHONE = /^\+?[\d\s()./-]+$/;
const PHONE_EXTENSION = /\s*(?:ext\.?|x|#)\s*\d{1,6}$/i;

/**
 * A phone number as a lead source or a person writes one: an optional leading `+`, 7 to 15 digits
 * (E.164's most) in any usual grouping, and an optional extension (`ext. 12`, `x12`, `#12`).
 * Imports keep phone text as given (a row is never refused for it); this tells the ones that are
 * numbers from "n/a", "-" or "ask reception", which enrichment treats as no phone.
 */
export function isPhoneNumber(text: string): boolean {
  const number = text.trim().replace(PHONE_EXTENSION, '');
  if (!PHONE.test(number)) return false;
  const digits = number.replace(/\D/g, '').length;
  return digits >= 7 && digits <= 15;
}

/** Hosts of the professional network: every regional or mobile variant is one site. */
const NETWORK_HOST = /(^|\.)linkedin\.com$/;
const CANONICAL_NETWORK_HOST = 'www.linkedin.com';

function parseLooseUrl(input: string): URL | undefined {
  const trimmed = input.trim();
  if (trimmed === '' || /\s/.test(trimmed)) return undefined;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!url.hostname.includes('.') || url.hostname.endsWith('.')) return undefined;
  return url;
}

/**
 * A network path segment headed by a provider's member id: `ACoAA...` (classic), `ACwAA...` (Sales
 * Navigator, whose lead URLs follow it with `,NAME_SEARCH,<token>`), `AEMAA...` (Recruiter). Unlike a profile's slug the id
 * is case-sensitive: lower-cased, the provider no longer knows it. The segment is kept whole, so
 * its identity (pageUrlIdentity) is the one stored before ids kept their case.
 */
const PROVIDER_MEMBER_ID = /^(?:AC[ow]AA|AEMAA)[A-Za-z0-9_-]/;

/** Whether a network path segment is a provider's member id (case-sensitive), not a profile's slug. */
export const isProviderMemberId = (segment: string): boolean => PROVIDER_MEMBER_ID.test(segment);

/** Characters a URL path segment holds as they are; every other one is percent-encoded. */
const PATH_SEGMENT_CHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;

/**
 * A slug as text in a path segment: lower-cased, composed (`u` and a combining diaeresis, as macOS
 * pastes it, is `ü`), and percent-encoded where a path must be. `J%C3%9CRGEN`, `jürgen` and a
 * decomposed `jürgen` are all `j%C3%BCrgen`.
 */
export function slugSegment(text: string): string {
  return Array.from(text.normalize('NFC').toLowerCase(), (char) => (PATH_SEGMENT_CHAR.test(char) ? char : encodeURIComponent(char))).join('');
}

/**
 * A network path segment: a member id as it is, a slug as text (slugSegment). Undefined for one
 * that names nobody: percent-encoding that does not decode (`%zz`) or a control character (`%00`).
 */
function canonicalNetworkSegment(segment: string): string | undefined {
  if (PROVIDER_MEMBER_ID.test(segment)) return segment;
  let text: string;
  try {
    text = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  // A slug of spaces or invisible characters alone (`%20`, a zero-width space) names no one either.
  if (/\p{Cc}/u.test(text) || text.replace(/[\s\p{Cf}]/gu, '') === '') return undefined;
  // No slug holds an invisible format character: one inside (a soft hyphen, a zero-width space a
  // copy picked up) is dropped, so the URL matches its lead (before 2026-11-29 it made a new one).
  return slugSegment(text.replace(/\p{Cf}/gu, ''));
}

/** Network pages whose path goes on past the page's own (`/in/<slug>/details/experience`, `/company/<slug>/about`). */
const NETWORK_PAGE_KINDS = new Set(['in', 'company', 'school', 'showcase']);

/** Network sections whose next segment is the member or company id (`/sales/lead/<id>`, `/talent/profile/<id>`). */
const NETWORK_ID_SECTIONS: ReadonlySet<string> = new Set(['sales/lead', 'sales/people', 'sales/company', 'talent/profile']);

/** The legacy profile page, `/profile/view?id=<member id>`. */
const LEGACY_PROFILE_PAGE = 'profile/view';

/** The member a legacy profile page's URL names in its query (`/profile/view?id=<id>`), if it is one. */
export function legacyProfileMember(url: URL): string | undefined {
  const path = url.pathname.split('/').filter(Boolean).join('/').toLowerCase();
  return path === LEGACY_PROFILE_PAGE ? url.searchParams.get('id')?.trim() || undefined : undefined;
}

/**
 * One canonical form of a profile or company page URL: https, lower-case host without `www.`/`m.`
 * (every host of the network becomes `www.linkedin.com`), no port, query, fragment or trailing
 * slash; network paths are lower-cased (their slugs are case-insensitive) but for a segment headed
 * by a provider's member id, which keeps its case, and a profile's or company's subpage is that
 * page. Undefined when the input is not an http(s) URL with a path, or a network page that names
 * no one (a page kind without its slug, a segment that does not decode or holds a control character).
 */
export function canonicalPageUrl(input: string): string | undefined {
  const url = parseLooseUrl(input);
  if (!url) return undefined;
  let host = url.hostname.toLowerCase();
  const isNetwork = NETWORK_HOST.test(host);
  if (isNetwork) host = CANONICAL_NETWORK_HOST;
  else host = host.replace(/^(www|m)\./, '');
  let path = url.pathname.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  if (isNetwork) {
    const segments = path.split('/');
    // A profile's or company's subpage is that page: `/in/<slug>/details/experience` is `/in/<slug>`.
    const kind = NETWORK_PAGE_KINDS.has((segments[1] ?? '').toLowerCase());
    // `/in/` or `/company/` alone names no one: as an identity, it would merge everyone sent with it.
    // Nor does a page of one segment (`/feed`), or one whose id is still to come (`/sales/lead/`).
    if (segments.length < 3) return undefined;
    const section = `${segments[1]}/${segments[2]}`.toLowerCase();
    if (NETWORK_ID_SECTIONS.has(section) && segments.length < 4) return undefined;
    const page = kind && segments.length > 3 ? segments.slice(0, 3) : segments;
    const canonical = page.map((segment) => (segment === '' ? '' : canonicalNetworkSegment(segment)));
    if (canonical.some((segment) => segment === undefined)) return undefined;
    path = canonical.join('/');
    // The legacy profile page names its member by the query the canonical form otherwise drops.
    if (section === LEGACY_PROFILE_PAGE) {
      const member = legacyProfileMember(url);
      if (!member) return undefined;
      return `https://${host}${path}?id=${encodeURIComponent(member)}`;
    }
  }
  if (path === '') return undefined;
  return `https://${host}${path}`;
}

/**
 * The last segment of a canonical page URL, decoded (`https://www.linkedin.com/company/acme-corp`
 * -> `acme-corp`): what names a company that a row gave no other name for.
 */
export function pageSlug(canonicalUrl: string): string | undefined {
  const url = new URL(canonicalUrl);
  const segments = url.pathname.split('/').filter(Boolean);
  // A network page's kind is no slug: `/company/` alone names no company.
  if (url.hostname === CANONICAL_NETWORK_HOST && segments.length === 1 && NETWORK_PAGE_KINDS.has(segments[0]?.toLowerCase() ?? '')) return undefined;
  const segment = segments.at(-1);
  if (!segment) return undefined;
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not percent-encoding that decodes: the segment as written.
  }
  // A name, as a typed one is: no control or invisible format characters (`%00`, a zero-width
  // space), not blank.
  return cleanText(decoded.replace(/\p{Cf}/gu, ''));
}

/**
 * What a canonical page URL is matched by: a network page's URL lower-cased (its slug is
 * case-insensitive, and a member id in it is told apart by more than its case), any other as it is.
 * Every identity stored before member ids kept their case is this form.
 */
export function pageUrlIdentity(canonicalUrl: string): string {
  return canonicalUrl.startsWith(`https://${CANONICAL_NETWORK_HOST}/`) ? canonicalUrl.toLowerCase() : canonicalUrl;
}

/**
 * The page URL a lead keeps when a row gives one for the same page: the given one, unless it only
 * lower-cases what the stored one has in capitals (a member id: lower-cased, the provider no longer
 * knows it; a re-import of a lower-cased export would otherwise undo the id's case).
 */
export function keptPageUrl(stored: string | undefined, given: string): string {
  if (!stored || stored === given || pageUrlIdentity(stored) !== pageUrlIdentity(given)) return given;
  return given === given.toLowerCase() ? stored : given;
}

/** The registrable part a website is known by: lower-case host without `www.`; undefined if not a URL. */
export function websiteDomain(input: string): string | undefined {
  const url = parseLooseUrl(input);
  if (!url) return undefined;
  return url.hostname.toLowerCase().replace(/^www\./, '');
}

/**
 * Letters that no decomposition takes apart, as a reader still matches them: `strasse` finds
 * "Straße", `orsted` "Ørsted", `lodz` "Łódź" (folded as written before 2026-11-29).
 */
const UNDECOMPOSED: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ħ: 'h' };
// Matched after lower-casing (ẞ, Æ, Ø, Ł, ... are lower-cased first).
const UNDECOMPOSED_LETTER = /[ßæœøłđðþıħ]/gu;

const HOLDS_UNDECOMPOSED = new RegExp(UNDECOMPOSED_LETTER.source, 'u');

/** Whether a value folded before 2026-11-29 may still hold a letter foldText now spells out. */
export const holdsUndecomposed = (folded: string): boolean => HOLDS_UNDECOMPOSED.test(folded);

/**
 * Lower-case, without diacritics, invisible format characters and with single spaces: what filters
 * and sorting compare. A direction mark or zero-width space inside a name (a paste picks them up)
 * no longer hides it from a filter (since 2026-11-29; values folded before keep theirs until the
 * lead is written again).
 */
export function foldText(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\p{M}\p{Cf}]/gu, '')
    .toLowerCase()
    .replace(UNDECOMPOSED_LETTER, (letter) => UNDECOMPOSED[letter] ?? letter)
    .replace(/\s+/g, ' ')
    .trim();
}

const UPPER_BOUND_ONLY = /^\s*(?:<|≤|less than\b|under\b|up to\b|below\b|fewer than\b)/i;

/**
 * The first amount in a range string, as a number: `51-200` -> 51, `10,001+` -> 10001,
 * `$10M-$50M` -> 10000000, `1.5B` -> 1500000000, `<$1M` or `Less than 10` -> 0. Undefined when the
 * string holds no number.
 */
export function rangeLowerBound(value: string): number | undefined {
  // "Less than $1M", "<10", "under 50", "up to 10": a range that starts at nothing (before
  // 2026-11-28 it sorted as if it started at its upper bound).
  if (UPPER_BOUND_ONLY.test(value) && /\d/.test(value)) return 0;
  const match = value.replace(/,/g, '').match(/(\d+(?:\.\d+)?)\s*([kmb])?/i);
  if (!match?.[1]) return undefined;
  const multiplier = { k: 1e3, m: 1e6, b: 1e9 }[(match[2] ?? '').toLowerCase() as 'k' | 'm' | 'b'] ?? 1;
  const amount = Math.round(Number(match[1]) * multiplier);
  return Number.isFinite(amount) ? amount : undefined;
}
