import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { SettingsOf } from '../../shared/config/settings';
import { DynamoAccountRepository } from '../../shared/db/account-repository';
import { DynamoApiKeyRepository } from '../../shared/db/api-key-repository';
import { DynamoSessionRepository } from '../../shared/db/session-repository';
import { type AcceptedCredentials, type Authenticator, createAuthenticator } from '../../shared/domain/auth/authenticator';
import { toAuthorizerContext } from '../../shared/http/caller';
import { cookie, header } from '../../shared/http/request';
import { type AUTHORIZER, ROUTES, routeKey } from '../../shared/http/route-table';
import { CROSS_SITE_COOKIE_CHANGE, SESSION_COOKIE, isCrossSiteCookieChange } from '../../shared/http/session-cookie';
import { type FunctionDeps, loggerFor } from '../../shared/runtime/function-deps';
import { tableAccess } from '../../shared/runtime/table';
import { SessionTokens } from '../../shared/security/session-tokens';

const ACCEPTED_BY_ROUTE = new Map(
  ROUTES.filter((route) => route.auth !== 'none').map((route) => [routeKey(route.method, route.path), route.auth as AcceptedCredentials]),
);

/** The policy covers the whole API, so it stays right if caching is ever switched on. */
const wholeApi = (methodArn: string): string => {
  const [arnPrefix, stage] = methodArn.split('/');
  return `${arnPrefix}/${stage}/*/*`;
};

const policy = (effect: 'Allow' | 'Deny', methodArn: string) => ({
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: wholeApi(methodArn) }],
});

const bearer = (value: string | undefined): string | undefined => {
  const match = value?.match(/^Bearer\s+(.+)$/i);
  return match?.[1]?.trim();
};

/**
 * The REQUEST authorizer: checks the credentials the route accepts and returns the caller as
 * context plus the usage identifier the usage plan counts. Failures are a Deny carrying the error
 * text, which the ACCESS_DENIED gateway response renders as a 401 JSON body.
 */
export function makeAuthorizer(authenticator: Authenticator) {
  return async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const accepted = ACCEPTED_BY_ROUTE.get(routeKey(event.httpMethod, event.resource)) ?? 'apiKey';
    const apiKey = header(event.headers, 'x-api-key');
    const bearerToken = bearer(header(event.headers, 'authorization'));
    const cookieToken = cookie(event.headers, SESSION_COOKIE);
    const deny = (context: { error: string; message: string }): APIGatewayAuthorizerResult => ({
      principalId: 'anonymous',
      policyDocument: policy('Deny', event.methodArn),
      context,
    });
    // Cross-site request forgery: a page elsewhere can make a browser post with the cookie.
    if (accepted !== 'apiKey' && isCrossSiteCookieChange({ method: event.httpMethod, headers: event.headers, apiKey, bearerToken, cookieToken })) {
      return deny(CROSS_SITE_COOKIE_CHANGE);
    }
    const outcome = await authenticator.authenticate(accepted, { apiKey, sessionToken: bearerToken ?? cookieToken });
    if (!outcome.ok) return deny({ error: outcome.error, message: outcome.message ?? '' });
    return {
      principalId: outcome.caller.via === 'apiKey' ? `key:${outcome.caller.apiKeyId}` : `user:${outcome.caller.userId}`,
      policyDocument: policy('Allow', event.methodArn),
      context: toAuthorizerContext(outcome.caller),
      ...(outcome.usageKey === undefined ? {} : { usageIdentifierKey: outcome.usageKey }),
    };
  };
}

/** The authorizer function: API keys and sessions over the table. */
export function buildAuthorizer(config: SettingsOf<typeof AUTHORIZER.settings>, deps: FunctionDeps) {
  const { db, tableName } = tableAccess(config, deps);
  const logger = loggerFor('authorizer', deps);
  return makeAuthorizer(
    createAuthenticator({
      keys: new DynamoApiKeyRepository(db, tableName),
      sessions: new DynamoSessionRepository(db, tableName),
      memberships: new DynamoAccountRepository(db, tableName),
      tokens: new SessionTokens(config.sessionSecret, deps.clock),
      clock: deps.clock,
      sessionUsageKeys: config.sessionUsageKeys,
      onRecordUseFailure: (keyId, error) => logger.warn('Last use of an API key not recorded', { keyId, error: String(error) }),
    }),
  );
}
