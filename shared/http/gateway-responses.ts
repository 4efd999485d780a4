/**
 * The bodies the gateway itself answers with, before or instead of a handler: written once, used
 * by the CDK stack's gateway responses (as mapping templates) and by the local gateway (as JSON).
 * Each entry names the API Gateway response types it covers.
 */
export interface GatewayAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, string>>;
  /** API Gateway response types rendered with this body (none: only the local gateway gives it). */
  readonly types: readonly string[];
  /** In AWS, keep the status API Gateway chose (500, 502, 504) and only give the body. */
  readonly keepsGatewayStatus?: boolean;
}

const answer = (status: number, body: Record<string, string>, types: string[], keepsGatewayStatus = false): GatewayAnswer => ({
  status,
  body,
  types,
  keepsGatewayStatus,
});

export const GATEWAY_ANSWERS = {
  /** No X-API-Key on an API-key route (the identity source is missing), or a retired usage key. */
  missingApiKey: answer(401, { error: 'Missing API key', message: 'Provide X-API-Key header' }, ['UNAUTHORIZED', 'INVALID_API_KEY']),
  /** The per-key usage plan (or the local token bucket) refused the request; comes with Retry-After. */
  rateLimited: answer(429, { error: 'Rate limit exceeded' }, ['THROTTLED', 'QUOTA_EXCEEDED']),
  /** A path or method no route has. */
  notFound: answer(404, { error: 'Not found' }, ['MISSING_AUTHENTICATION_TOKEN']),
  tooLarge: answer(413, { error: 'Request body too large' }, ['REQUEST_TOO_LARGE']),
  /** AWS only: a rule of the WAF web ACL's managed rule set blocked the request (docs/operations.md). */
  wafFiltered: answer(403, { error: 'Request blocked' }, ['WAF_FILTERED']),
  internal: answer(500, { error: 'Internal server error' }, ['DEFAULT_5XX'], true),
  /** A path whose percent-encoding does not decode: it cannot name any resource. */
  malformedPath: answer(400, { error: 'Malformed request path' }, []),
  /** A function that failed instead of answering (API Gateway's 502 for a Lambda error). */
  badGateway: answer(502, { error: 'Internal server error' }, []),
} as const;

/**
 * The authorizer's Deny: a 401 carrying the error and message the authorizer put in its context.
 * In AWS the body is this template; locally the same fields from the authorizer's result.
 */
/** The headers of every answer the gateway gives itself (deployed: its gateway responses; locally: the local gateway's). */
export const GATEWAY_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

export const ACCESS_DENIED = {
  status: 401,
  template: '{"error":"$context.authorizer.error","message":"$context.authorizer.message"}',
  body: (context: { error?: unknown; message?: unknown } | null | undefined) => ({
    error: String(context?.error ?? 'Access denied'),
    message: String(context?.message ?? ''),
  }),
  types: ['ACCESS_DENIED'],
} as const;

/** Any other 4xx API Gateway produces: its own message as `error` (messageString is already quoted JSON). */
export const DEFAULT_4XX_TEMPLATE = '{"error":$context.error.messageString}';
