import type { APIGatewayProxyResult } from 'aws-lambda';

// nosniff: a JSON answer is never read as a script or a page, whatever a browser would guess.
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

/** Every JSON response goes through here, so headers are set in one place. */
export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // A page of ours never loads anything, runs no script and is never framed.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

/** An HTML page (routes that `produce: 'html'`: public pages opened in a browser). */
export function html(statusCode: number, body: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { ...HTML_HEADERS, ...headers }, body };
}

/** Whether a response is an HTML page. */
export const isHtml = (response: APIGatewayProxyResult): boolean => String(response.headers?.['content-type'] ?? '').startsWith('text/html');

/** A response carrying several Set-Cookie headers or other repeated headers. */
export function withCookies(response: APIGatewayProxyResult, cookies: string[]): APIGatewayProxyResult {
  return { ...response, multiValueHeaders: { ...response.multiValueHeaders, 'set-cookie': cookies } };
}
