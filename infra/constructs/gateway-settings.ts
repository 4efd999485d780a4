import { createHash } from 'node:crypto';
import { AccessLogField } from 'aws-cdk-lib/aws-apigateway';

/**
 * Values the public API's gateway is configured with (infra/constructs/public-api.ts): its
 * throttles, the session usage keys, the access log's fields and the Retry-After of its own 429s.
 */

/** A throttle of API Gateway: the steady rate in requests per second and the bucket (burst). */
export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

/**
 * The session pool's key values: 40 hex characters of sha256(seed, index), so they are stable
 * across deployments (CloudFormation does not churn the keys) and distinct per stack.
 *
 * They are usage identifiers only, never credentials: the API's key source is AUTHORIZER, so
 * API Gateway never reads a key from a request; only the authorizer, after it has checked a
 * session, hands one of these back as `usageIdentifierKey`. Knowing a value grants nothing.
 */
export function sessionUsageKeyValues(seed: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) =>
    createHash('sha256').update(`${seed}:session-usage-key:${index}`).digest('hex').slice(0, 40),
  );
}

/**
 * One JSON object per request in the access log (values are strings; `-` when API Gateway has
 * none). Who called: the caller's workspace, user, API key id and kind (`via`) from the authorizer's
 * context, and the gateway usage key (`usageKeyId`); what: method and route (the resource path,
 * never the path itself, which may carry an unsubscribe token); how it went: status, latencies,
 * the gateway's error and the authorizer's Deny. No header, query string or body is logged (API
 * Gateway does not escape the values it writes, so nothing a caller chooses, such as the user agent,
 * goes in: it could break or forge the JSON).
 */
export const ACCESS_LOG_FIELDS: Readonly<Record<string, string>> = {
  requestId: AccessLogField.contextRequestId(),
  extendedRequestId: AccessLogField.contextExtendedRequestId(),
  requestTime: AccessLogField.contextRequestTime(),
  ip: AccessLogField.contextIdentitySourceIp(),
  method: AccessLogField.contextHttpMethod(),
  resourcePath: AccessLogField.contextResourcePath(),
  status: AccessLogField.contextStatus(),
  responseLength: AccessLogField.contextResponseLength(),
  responseLatency: AccessLogField.contextResponseLatency(),
  integrationLatency: AccessLogField.contextIntegrationLatency(),
  integrationStatus: AccessLogField.contextIntegrationStatus(),
  authorizerLatency: AccessLogField.contextAuthorizerLatency(),
  workspaceId: AccessLogField.contextAuthorizer('workspaceId'),
  userId: AccessLogField.contextAuthorizer('userId'),
  apiKeyId: AccessLogField.contextAuthorizer('apiKeyId'),
  via: AccessLogField.contextAuthorizer('via'),
  usageKeyId: AccessLogField.contextIdentityApiKeyId(),
  authorizerError: AccessLogField.contextAuthorizer('error'),
  errorType: AccessLogField.contextErrorResponseType(),
  errorMessage: AccessLogField.contextErrorMessage(),
  xrayTraceId: AccessLogField.contextXrayTraceId(),
};

/** Whole seconds until a token bucket refilling at `perSecond` has one token back (the float's last bit aside). */
const refillSeconds = (perSecond: number): number => Math.ceil(1 / perSecond - 1e-9);

/**
 * `Retry-After` of the 429s API Gateway gives itself (THROTTLED, QUOTA_EXCEEDED). The header of a
 * gateway response is static, while the bucket that refused the request may be the per-key plan's,
 * the sessions plan's or a method throttle of the stage; each has its next token back within one
 * refill interval (1 / rate), so the longest of those, rounded up, is never shorter than the real
 * wait: with the defaults, the per-key plan's 60 / 50 = 1.2 s, so 2 s. (API Gateway applies its
 * throttles best-effort; the value is right for the buckets as configured.)
 */
export const retryAfterSeconds = (rateLimitPerMinute: number, otherRatesPerSecond: readonly number[] = []): number =>
  Math.max(Math.ceil(60 / rateLimitPerMinute), ...otherRatesPerSecond.map(refillSeconds));
