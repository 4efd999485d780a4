/**
 * The one route table. The CDK stack builds API Gateway resources and methods from it and the
 * local gateway matches requests against it, so the deployed API and `npm start` serve the
 * same routes with the same authentication.
 *
 * Paths carry no trailing slash: API Gateway matches `/api-keys/` to the resource `/api-keys`,
 * and the local gateway strips the slash the same way.
 */

/**
 * How a route authenticates its caller.
 * - `none`: anonymous (health, signup, login).
 * - `apiKey`: `X-API-Key` only; counted against the key's rate limit.
 * - `session`: a session token (cookie or Bearer) only.
 * - `apiKeyOrSession`: either; API-key calls are counted against the key's rate limit.
 */
export type AuthMode = 'none' | 'apiKey' | 'session' | 'apiKeyOrSession';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Endpoint groups: one Lambda function each. The value is the entry file, relative to the repo root. */
export const FUNCTION_GROUPS = {
  health: 'functions/http/health/handler.ts',
  auth: 'functions/http/auth/handler.ts',
  apiKeys: 'functions/http/api-keys/handler.ts',
  accounts: 'functions/http/accounts/handler.ts',
  connections: 'functions/http/connections/handler.ts',
  userWebhook: 'functions/http/user-webhook/handler.ts',
  providerWebhooks: 'functions/http/provider-webhooks/handler.ts',
  leadLists: 'functions/http/lead-lists/handler.ts',
  prospects: 'functions/http/prospects/handler.ts',
} as const;

export type FunctionGroup = keyof typeof FUNCTION_GROUPS;

/** Entry file of the Lambda REQUEST authorizer shared by every authenticated route. */
export const AUTHORIZER_ENTRY = 'functions/authorizer/handler.ts';

export interface RouteDefinition {
  method: HttpMethod;
  /** API Gateway resource path, e.g. `/api/v1/api-keys/{id}/rotate`. */
  path: string;
  group: FunctionGroup;
  auth: AuthMode;
}

export const API_PREFIX = '/api/v1';

const route = (method: HttpMethod, path: string, group: FunctionGroup, auth: AuthMode): RouteDefinition => ({
  method,
  path: `${API_PREFIX}${path}`,
  group,
  auth,
});

export const ROUTES: readonly RouteDefinition[] = [
  route('GET', '/health', 'health', 'none'),

  route('POST', '/auth/signup', 'auth', 'none'),
  route('POST', '/auth/login', 'auth', 'none'),
  route('POST', '/auth/logout', 'auth', 'session'),
  route('GET', '/auth/me', 'auth', 'apiKeyOrSession'),
  route('GET', '/workspaces', 'auth', 'apiKeyOrSession'),
  route('POST', '/workspaces', 'auth', 'apiKeyOrSession'),
  route('POST', '/workspaces/{id}/select', 'auth', 'session'),

  route('GET', '/api-keys', 'apiKeys', 'apiKeyOrSession'),
  route('POST', '/api-keys', 'apiKeys', 'apiKeyOrSession'),
  route('POST', '/api-keys/{id}/rotate', 'apiKeys', 'apiKeyOrSession'),
  route('POST', '/api-keys/{id}/revoke', 'apiKeys', 'apiKeyOrSession'),

  route('GET', '/public/accounts', 'accounts', 'apiKey'),
  route('POST', '/public/accounts', 'accounts', 'apiKey'),
  route('POST', '/public/accounts/connect-link', 'accounts', 'apiKey'),
  route('DELETE', '/public/accounts/{id}', 'accounts', 'apiKey'),

  route('GET', '/public/prospects/{prospect_id}/connection-status', 'connections', 'apiKey'),
  route('GET', '/prospects/{prospect_id}/connection-status', 'connections', 'session'),

  route('GET', '/user/webhook', 'userWebhook', 'apiKeyOrSession'),
  route('PUT', '/user/webhook', 'userWebhook', 'apiKeyOrSession'),
  route('POST', '/user/webhook/test', 'userWebhook', 'session'),
  route('POST', '/user/webhook/secret/rotate', 'userWebhook', 'apiKeyOrSession'),
  route('GET', '/user/webhook/deliveries', 'userWebhook', 'apiKeyOrSession'),

  // Called by the provider, never with an API key: each checks its own secret (see the handler).
  route('POST', '/webhooks/provider', 'providerWebhooks', 'none'),
  route('POST', '/webhooks/provider/hosted-auth', 'providerWebhooks', 'none'),

  route('GET', '/public/lead-lists', 'leadLists', 'apiKey'),
  route('POST', '/public/lead-lists', 'leadLists', 'apiKey'),
  route('GET', '/public/lead-lists/{id}/leads', 'leadLists', 'apiKey'),
  route('POST', '/public/lead-lists/{id}/add-leads', 'leadLists', 'apiKey'),
  route('DELETE', '/public/lead-lists/{id}/delete-leads', 'leadLists', 'apiKey'),
  route('POST', '/public/lead-lists/{id}/import', 'leadLists', 'apiKey'),

  route('POST', '/public/prospects/search', 'prospects', 'apiKey'),
];

/** The key a handler dispatches on: API Gateway's `${httpMethod} ${resource}`. */
export const routeKey = (method: string, path: string): string => `${method} ${path}`;

/** Whether the usage plan (the per-key rate limit) applies: every route that accepts an API key. */
export const isRateLimited = (auth: AuthMode): boolean => auth === 'apiKey' || auth === 'apiKeyOrSession';
