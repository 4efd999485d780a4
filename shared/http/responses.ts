import type { APIGatewayProxyResult } from 'aws-lambda';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const;

/** Every JSON response goes through here, so headers are set in one place. */
export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** A response carrying several Set-Cookie headers or other repeated headers. */
export function withCookies(response: APIGatewayProxyResult, cookies: string[]): APIGatewayProxyResult {
  return { ...response, multiValueHeaders: { ...response.multiValueHeaders, 'set-cookie': cookies } };
}
