import type { RegisteredRoute } from '../../shared/http/route-table';
import { DEFAULT_MAX_BODY_BYTES } from '../../shared/http/routes/define';

/**
 * What the edge (the WAF web ACL and the stage's throttles) needs to know of the route table,
 * derived from it so a new route is covered without editing a list here.
 */

/** The provider's webhooks: few source addresses, a few retries and then dropped; each checks its own secret. */
export const isProviderWebhook = (route: RegisteredRoute): boolean => route.group === 'providerWebhooks';

/**
 * The anonymous routes people reach by hand (signup, login, the unsubscribe link): no credentials,
 * so no usage plan counts them. Not the health check (no work behind it) nor the provider's webhooks.
 */
export const isAnonymous = (route: RegisteredRoute): boolean =>
  route.auth === 'none' && route.group !== 'health' && !isProviderWebhook(route);

export const bodyLimitOf = (route: RegisteredRoute): number => route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

/** WAF refuses a regular expression longer than this. */
export const MAX_WAF_REGEX_LENGTH = 512;

/** Escapes what is special in a regex outside a character class (`/` and `-` are not). */
const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A WAF regular expression matching the URI path of a request to any of the paths: with the stage
 * in front (the execute-api URL: `/v1/api/v1/...`) or without (a custom domain's root mapping), with
 * or without a trailing slash (API Gateway matches both); `{param}` matches one segment. WAF regexes
 * have no capturing groups, so every group is `(?:`.
 */
export function pathPattern(paths: readonly string[], stageName: string): string {
  const alternatives = [...new Set(paths)].sort().map((path) =>
    path
      .split('/')
      .map((segment) => (/^\{.+\}$/.test(segment) ? '[^/]+' : escapeRegex(segment)))
      .join('/'),
  );
  if (alternatives.length === 0) throw new Error('pathPattern needs at least one path');
  const pattern = `^(?:/${escapeRegex(stageName)})?(?:${alternatives.join('|')})/?$`;
  if (pattern.length > MAX_WAF_REGEX_LENGTH) throw new Error(`The WAF pattern of ${paths.length} paths is ${pattern.length} characters, over WAF's ${MAX_WAF_REGEX_LENGTH}`);
  return pattern;
}

/**
 * A regular expression matching the decimal integers greater than `limit` (a Content-Length over
 * a body limit): any number with more digits, or as many digits and larger at the first place it
 * differs. Leading zeros are allowed, as HTTP allows them.
 */
export function greaterThanPattern(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`greaterThanPattern needs a whole number, got ${limit}`);
  const digits = String(limit);
  const alternatives = [`[1-9][0-9]{${digits.length},}`];
  for (let place = 0; place < digits.length; place += 1) {
    const digit = Number(digits[place]);
    if (digit === 9) continue;
    const rest = digits.length - place - 1;
    const tail = rest === 0 ? '' : rest === 1 ? '[0-9]' : `[0-9]{${rest}}`;
    alternatives.push(`${digits.slice(0, place)}[${digit + 1}-9]${tail}`);
  }
  return `^0*(?:${alternatives.join('|')})$`;
}

/**
 * The edge's body-size tiers: each route body limit from the default (256 KB) up, with the paths of
 * the routes that accept more. A request whose Content-Length is over a tier's limit, to a path
 * none of those routes has, is refused at the edge with the 413 its route would give. Smaller
 * limits (the 8 KB unsubscribe post) are left to the routes themselves: listing the 70-odd routes
 * above them would not fit a WAF regex.
 */
export function bodyLimitTiers(routes: readonly RegisteredRoute[]): { limit: number; largerPaths: string[] }[] {
  const limits = [...new Set(routes.map(bodyLimitOf))].filter((limit) => limit >= DEFAULT_MAX_BODY_BYTES).sort((a, b) => a - b);
  return limits.map((limit) => ({
    limit,
    largerPaths: [...new Set(routes.filter((route) => bodyLimitOf(route) > limit).map((route) => route.path))].sort(),
  }));
}
