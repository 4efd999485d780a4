import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Caller } from '../domain/auth/authenticator';
import { unauthenticated } from '../domain/errors';

/** Authorizer context values are strings, numbers or booleans; this is their flat form. */
export type AuthorizerContext = Record<string, string | number | boolean>;

export function toAuthorizerContext(caller: Caller): AuthorizerContext {
  return {
    userId: caller.userId,
    workspaceId: caller.workspaceId,
    via: caller.via,
    ...(caller.apiKeyId === undefined ? {} : { apiKeyId: caller.apiKeyId }),
    ...(caller.sessionId === undefined ? {} : { sessionId: caller.sessionId }),
  };
}

/**
 * The caller the authorizer established. API Gateway hands context values to the integration as
 * strings, so they are converted back here. A route without an authorizer has no caller.
 */
export function requireCaller(event: APIGatewayProxyEvent): Caller {
  const context = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  const userId = Number(context?.userId);
  const workspaceId = Number(context?.workspaceId);
  if (!context || !Number.isSafeInteger(userId) || !Number.isSafeInteger(workspaceId)) {
    throw unauthenticated('Authentication required');
  }
  const via = context.via === 'session' ? 'session' : 'apiKey';
  return {
    userId,
    workspaceId,
    via,
    ...(context.apiKeyId === undefined ? {} : { apiKeyId: Number(context.apiKeyId) }),
    ...(context.sessionId === undefined ? {} : { sessionId: String(context.sessionId) }),
  };
}

/** A session-only operation (log out, switch workspace) called with an API key. */
export function requireSession(event: APIGatewayProxyEvent): Caller & { sessionId: string } {
  const caller = requireCaller(event);
  if (caller.via !== 'session' || !caller.sessionId) throw unauthenticated('Authentication required', 'This endpoint needs a session');
  return caller as Caller & { sessionId: string };
}
