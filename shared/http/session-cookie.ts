import { header } from './request';

/** Name of the HttpOnly cookie that carries the session JWT. */
export const SESSION_COOKIE = 'session';

export function sessionCookie(token: string, expiresAt: Date, now: Date, secure: boolean): string {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  return [`${SESSION_COOKIE}=${token}`, 'HttpOnly', 'SameSite=Lax', 'Path=/', `Max-Age=${maxAge}`, ...(secure ? ['Secure'] : [])].join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return [`${SESSION_COOKIE}=`, 'HttpOnly', 'SameSite=Lax', 'Path=/', 'Max-Age=0', ...(secure ? ['Secure'] : [])].join('; ');
}

/**
 * Whether a browser sent this request for a page of another site (docs/api.md, "Sessions and
 * cross-site requests"). Browsers say so in `Sec-Fetch-Site`; one too old for it still sends
 * `Origin` with a cross-origin POST (`null` from a sandboxed frame or a redirect). A request with
 * neither comes from no browser (curl, a server), which never carries a victim's cookie.
 */
export function isCrossSiteBrowserRequest(headers: Record<string, string | undefined> | null | undefined): boolean {
  const site = header(headers, 'sec-fetch-site')?.trim().toLowerCase();
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = header(headers, 'origin')?.trim();
  if (origin === undefined) return false;
  if (!URL.canParse(origin)) return true;
  return new URL(origin).host !== header(headers, 'host');
}

/** The methods that change nothing. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A change asked with nothing but the session cookie by a page of another site: what a form
 * elsewhere can make a browser send (cross-site request forgery). A Bearer token or an API key is
 * never sent by a browser on its own.
 */
export const isCrossSiteCookieChange = (request: {
  method: string;
  headers: Record<string, string | undefined> | null | undefined;
  bearerToken: string | undefined;
  apiKey: string | undefined;
  cookieToken: string | undefined;
}): boolean =>
  !READS.has(request.method.toUpperCase()) &&
  request.cookieToken !== undefined &&
  request.bearerToken === undefined &&
  request.apiKey === undefined &&
  isCrossSiteBrowserRequest(request.headers);

export const CROSS_SITE_COOKIE_CHANGE = {
  error: 'Cross-site request refused',
  message: "A change made with the session cookie must come from this API's own site; or send the session as Authorization: Bearer <token>",
} as const;
