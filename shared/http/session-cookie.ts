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
 * Whether a request declares a JSON body. A page of another site can make a browser send the
 * session cookie with a form (text/plain, URL-encoded, multipart) but not with this content type:
 * that takes a CORS preflight, which this API never grants (docs/api.md, "Sessions and cross-site
 * requests"). So the cookie logs in, and changes anything, only in a request that says JSON.
 */
export function declaresJson(headers: Record<string, string | undefined> | null | undefined): boolean {
  const type = header(headers, 'content-type');
  return type?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** The methods that change nothing: a cookie needs no JSON declaration for them. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A change asked with nothing but the session cookie, in a request that does not say JSON: what a cross-site form can send. */
export const isCookieOnlyFormChange = (request: {
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
  !declaresJson(request.headers);

export const COOKIE_FORM_CHANGE = {
  error: 'Session cookie without a JSON request',
  message: 'A change made with the session cookie must say Content-Type: application/json; or send the session as Authorization: Bearer <token>',
} as const;
