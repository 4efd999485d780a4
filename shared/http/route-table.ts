/**
 * The one route registration. Each route is declared once, in its group's file under routes/,
 * with its method, path, authentication and schemas. From here:
 * - the CDK stack builds API Gateway resources, methods and one function per group;
 * - the authorizer learns which credentials each route accepts;
 * - the local gateway matches requests and enforces each route's body limit;
 * - each group's handler dispatches on its routes, its handler map type-checked against them;
 * - `npm run openapi` writes docs/openapi.json, and tests check every response against it.
 *
 * Paths carry no trailing slash: API Gateway matches `/api-keys/` to the resource `/api-keys`,
 * and the local gateway strips the slash the same way.
 */
import { ENRICHMENT_PROVIDER_SETTINGS, PROVIDER_SETTINGS, QUEUE_SETTINGS, type SettingName, type SettingsOf, TABLE_SETTINGS, WEBHOOK_SETTINGS } from '../config/settings';
import { API_KEYS_TIMEOUT_SECONDS } from '../gateway/key-call-retry';
import { accountRoutes } from './routes/accounts';
import { analyticsRoutes } from './routes/analytics';
import { apiKeyRoutes } from './routes/api-keys';
import { campaignFlowRoutes } from './routes/campaign-flow';
import { campaignRoutes } from './routes/campaigns';
import { authRoutes } from './routes/auth';
import { campaignProspectRoutes } from './routes/campaign-prospects';
import { chatRoutes } from './routes/chats';
import { connectionRoutes } from './routes/connections';
import { enrichmentRoutes } from './routes/enrichment';
import type { RouteDefinition } from './routes/define';
import { healthRoutes } from './routes/health';
import { leadListRoutes } from './routes/lead-lists';
import { memberRoutes } from './routes/members';
import { prospectStatusRoutes } from './routes/prospect-status';
import { prospectRoutes } from './routes/prospects';
import { providerWebhookRoutes } from './routes/provider-webhooks';
import { suppressionRoutes } from './routes/suppressions';
import { unsubscribeRoutes } from './routes/unsubscribe';
import { userWebhookRoutes } from './routes/user-webhook';

export { API_PREFIX, type AuthMode, type HttpMethod, type RouteDefinition, isRateLimited, routeKey } from './routes/define';

/** What one endpoint group's Lambda function is: its entry, its routes and the settings it reads. */
export interface FunctionGroupDefinition {
  /** The Lambda entry file, relative to the repo root; it only parses settings and calls the builder. */
  readonly entry: string;
  readonly routes: Readonly<Record<string, RouteDefinition>>;
  readonly settings: readonly SettingName[];
  /** Function timeout when the 10 s default ({@link DEFAULT_FUNCTION_TIMEOUT_SECONDS}) is too short. */
  readonly timeoutSeconds?: number;
}

/** An endpoint group's function timeout unless its group says otherwise. */
export const DEFAULT_FUNCTION_TIMEOUT_SECONDS = 10;

/** The chats function's time: under API Gateway's 29 s, for a manual message's provider calls and its look (manual-reply.ts). */
export const CHATS_TIMEOUT_SECONDS = 28;

const group = <const Definition extends FunctionGroupDefinition>(definition: Definition) => definition;

/** Endpoint groups: one Lambda function each. */
export const FUNCTION_GROUPS = {
  // Liveness only: no table, no secret, no queues.
  health: group({ entry: 'functions/http/health/lambda.ts', routes: healthRoutes, settings: [] }),
  // Login is throttled per (email, IP) pair and per IP address, in the table (docs/rate-limits.md).
  auth: group({
    entry: 'functions/http/auth/lambda.ts',
    routes: authRoutes,
    settings: [...TABLE_SETTINGS, 'sessionSecret', 'sessionTtlDays', 'loginFailuresBeforeDelay', 'loginMaxDelaySeconds', 'loginFailuresPerIpPerHour'],
  }),
  // Workspace members. Removing one revokes their keys for the workspace, so it retires usage
  // keys (a gateway call per key); it never creates any, so it has no usage plan id.
  // Removing a member deletes their gateway keys, each call retried on throttling like the api-keys
  // function's: the same 27 s. The keys are revoked in the table first (the authorizer refuses them),
  // so a gateway key a timeout leaves behind is an orphan on the gateway, never a working key.
  members: group({ entry: 'functions/http/members/lambda.ts', routes: memberRoutes, settings: [...TABLE_SETTINGS], timeoutSeconds: API_KEYS_TIMEOUT_SECONDS }),
  // Up to three API Gateway key calls a request (create, attach, delete), each retried on throttling:
  // 27 s (shared/gateway/key-call-retry.ts), so a key made on the gateway is stored or deleted in time.
  apiKeys: group({
    entry: 'functions/http/api-keys/lambda.ts',
    routes: apiKeyRoutes,
    settings: [...TABLE_SETTINGS, 'usagePlanId', 'maxActiveKeysPerUser'],
    timeoutSeconds: API_KEYS_TIMEOUT_SECONDS,
  }),
  // Provider calls are bounded at 8 s (providerTimeoutMs); the rest is a few table reads and writes.
  accounts: group({
    entry: 'functions/http/accounts/lambda.ts',
    routes: accountRoutes,
    settings: [...TABLE_SETTINGS, ...PROVIDER_SETTINGS, 'providerWebhookSecret', 'publicApiUrl', 'sqsEndpoint', 'campaignSchedulingQueueUrl'],
    timeoutSeconds: 12,
  }),
  connections: group({
    entry: 'functions/http/connections/lambda.ts',
    routes: connectionRoutes,
    settings: [...TABLE_SETTINGS, ...PROVIDER_SETTINGS],
    timeoutSeconds: 12,
  }),
  // The test send is bounded at 10 s (webhookTimeoutMs): its own timeout answer must come first.
  userWebhook: group({
    entry: 'functions/http/user-webhook/lambda.ts',
    routes: userWebhookRoutes,
    // The queue: an event whose delivery failed, sent again on request.
    settings: [...TABLE_SETTINGS, ...WEBHOOK_SETTINGS, ...QUEUE_SETTINGS],
    timeoutSeconds: 15,
  }),
  providerWebhooks: group({
    entry: 'functions/http/provider-webhooks/lambda.ts',
    routes: providerWebhookRoutes,
    settings: [...TABLE_SETTINGS, ...PROVIDER_SETTINGS, ...QUEUE_SETTINGS, 'providerWebhookSecret', 'publicApiUrl', 'maxLeadsPerList', 'inboundRetryQueueUrl'],
    timeoutSeconds: 12,
  }),
  // Imports of up to 1000 rows: within API Gateway's 29 s integration timeout. The queue: a
  // campaign's completion check that failed after leads left it is asked again there.
  leadLists: group({
    entry: 'functions/http/lead-lists/lambda.ts',
    routes: leadListRoutes,
    settings: [...TABLE_SETTINGS, 'maxLeadsPerList', 'sqsEndpoint', 'campaignSchedulingQueueUrl'],
    timeoutSeconds: 28,
  }),
  // The directory call is bounded at 10 s; saving up to 100 results follows it. One prospect and its
  // pipeline stage (which stops its sequence) too.
  prospects: group({
    entry: 'functions/http/prospects/lambda.ts',
    routes: { ...prospectRoutes, ...prospectStatusRoutes },
    settings: [...TABLE_SETTINGS, 'directoryBaseUrl', 'directoryApiKey', 'searchQuotaPerMonth', 'maxLeadsPerList'],
    timeoutSeconds: 20,
  }),
  // Campaigns, their settings, status and flow: a few small reads and writes each.
  campaigns: group({
    entry: 'functions/http/campaigns/lambda.ts',
    routes: { ...campaignRoutes, ...campaignFlowRoutes },
    settings: [...TABLE_SETTINGS, 'sqsEndpoint', 'campaignSchedulingQueueUrl'],
  }),
  // Moves of up to 1,000 prospects a request (and imports of 1,000 rows): within the gateway's 29 s.
  campaignProspects: group({
    entry: 'functions/http/campaign-prospects/lambda.ts',
    routes: campaignProspectRoutes,
    settings: [...TABLE_SETTINGS, 'maxLeadsPerList', 'sqsEndpoint', 'campaignSchedulingQueueUrl'],
    timeoutSeconds: 28,
  }),
  // The public unsubscribe link (no credentials; a per-IP limit in the handler): a token check, a
  // suppression entry and a sequence stop (the prospect's status through its lists).
  unsubscribe: group({
    entry: 'functions/http/unsubscribe/lambda.ts',
    routes: unsubscribeRoutes,
    settings: [...TABLE_SETTINGS, 'unsubscribeSecret', 'unsubscribeRateLimitPerMinute', 'maxLeadsPerList'],
  }),
  // The workspace suppression list: up to 1,000 conditional Puts a request.
  // Adds of up to 1,000 values a request (20 transactions): within the gateway's 29 s, as imports.
  // At 10 s, a few bulk adds at once timed out on DynamoDB Local, which runs transactions one at a
  // time (a 500 after every value was written; a probe, 2026-11-28).
  suppressions: group({
    entry: 'functions/http/suppressions/lambda.ts',
    routes: suppressionRoutes,
    settings: [...TABLE_SETTINGS],
    timeoutSeconds: 28,
  }),
  // Credits and enrichment. Sync mode works up to 25 prospects in the request (providers bounded at 8 s, three tries).
  enrichment: group({
    entry: 'functions/http/enrichment/lambda.ts',
    routes: enrichmentRoutes,
    settings: [...TABLE_SETTINGS, ...QUEUE_SETTINGS, ...ENRICHMENT_PROVIDER_SETTINGS, 'webhookAllowLoopback', 'enrichmentQueueUrl', 'maxLeadsPerList'],
    timeoutSeconds: 28,
  }),
  // The inbox: a few reads; a manual message is up to two provider calls (8 s bound each) and two
  // writes, and a network message whose answer was lost a look in the chat in what time is left.
  chats: group({
    entry: 'functions/http/chats/lambda.ts',
    routes: chatRoutes,
    // maxLeadsPerList: a manual email the provider refuses ends the sequence (a status write).
    settings: [...TABLE_SETTINGS, ...PROVIDER_SETTINGS, 'maxLeadsPerList'],
    timeoutSeconds: CHATS_TIMEOUT_SECONDS,
  }),
  // Analytics: reads of the daily aggregates only (O(days in range), docs/analytics.md).
  analytics: group({
    entry: 'functions/http/analytics/lambda.ts',
    routes: analyticsRoutes,
    settings: [...TABLE_SETTINGS],
  }),
} as const;

export type FunctionGroup = keyof typeof FUNCTION_GROUPS;

/** The timeout of a group's function: what the stack deploys and what the local gateway gives each call. */
export function functionTimeoutSeconds(group: FunctionGroup): number {
  const definition: FunctionGroupDefinition = FUNCTION_GROUPS[group];
  return definition.timeoutSeconds ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS;
}

/** The config object a group's builder takes: the settings its group declares. */
export type GroupConfig<G extends FunctionGroup> = SettingsOf<(typeof FUNCTION_GROUPS)[G]['settings']>;

/** The Lambda REQUEST authorizer shared by every authenticated route. */
export const AUTHORIZER = {
  entry: 'functions/authorizer/lambda.ts',
  settings: [...TABLE_SETTINGS, 'sessionSecret', 'sessionUsageKeys'],
} as const;

/** A registered route: its group is one of the function groups. */
export type RegisteredRoute = RouteDefinition<FunctionGroup>;

/** Every route with its name (the key in its group's registration), in registration order. */
export const NAMED_ROUTES: readonly (readonly [name: string, route: RegisteredRoute])[] = Object.values(FUNCTION_GROUPS).flatMap(
  (definition) => Object.entries(definition.routes as Readonly<Record<string, RegisteredRoute>>),
);

/** Every route, in registration order. */
export const ROUTES: readonly RegisteredRoute[] = NAMED_ROUTES.map(([, route]) => route);
