import { buildCampaignsHandler } from '../../functions/http/campaigns/handler';
import { buildCampaignSchedulingHandler } from '../../functions/queues/campaign-scheduling/handler';
import { buildOutreachHandler } from '../../functions/queues/outreach/handler';
import { buildEnrichmentWorkerHandler } from '../../functions/queues/enrichment/handler';
import { buildEnrichmentSweeperHandler } from '../../functions/schedules/enrichment-sweeper/handler';
import { buildEnrichmentHandler } from '../../functions/http/enrichment/handler';
import { buildOutreachSchedulerHandler } from '../../functions/schedules/outreach-scheduler/handler';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { buildAuthorizer } from '../../functions/authorizer/handler';
import { buildAccountsHandler } from '../../functions/http/accounts/handler';
import { buildApiKeysHandler } from '../../functions/http/api-keys/handler';
import { buildAuthHandler } from '../../functions/http/auth/handler';
import { buildCampaignProspectsHandler } from '../../functions/http/campaign-prospects/handler';
import { buildChatsHandler } from '../../functions/http/chats/handler';
import { buildAnalyticsHandler } from '../../functions/http/analytics/handler';
import { buildConnectionsHandler } from '../../functions/http/connections/handler';
import { buildHealthHandler } from '../../functions/http/health/handler';
import { buildLeadListsHandler } from '../../functions/http/lead-lists/handler';
import { buildMembersHandler } from '../../functions/http/members/handler';
import { buildProspectsHandler } from '../../functions/http/prospects/handler';
import { buildProviderWebhooksHandler } from '../../functions/http/provider-webhooks/handler';
import { buildSuppressionsHandler } from '../../functions/http/suppressions/handler';
import { buildUnsubscribeHandler } from '../../functions/http/unsubscribe/handler';
import { buildUserWebhookHandler } from '../../functions/http/user-webhook/handler';
import { buildWebhookDeliveryHandler } from '../../functions/queues/webhook-delivery/handler';
import { buildInboundRetryHandler } from '../../functions/queues/inbound-retry/handler';
import { type AllSettings, settingsFrom } from '../../shared/config/settings';
import { AUTHORIZER, FUNCTION_GROUPS, type FunctionGroup, type GroupConfig } from '../../shared/http/route-table';
import { CAMPAIGN_SCHEDULING, ENRICHMENT, ENRICHMENT_SWEEPER, INBOUND_RETRY, OUTREACH, OUTREACH_SCHEDULER, QUEUES, SCHEDULES, WEBHOOK_DELIVERY } from '../../shared/runtime/catalog';
import type { FunctionDeps } from '../../shared/runtime/function-deps';
import { AUTHORIZER_TABLE_GRANT, GROUP_TABLE_GRANTS, QUEUE_TABLE_GRANTS, SCHEDULE_TABLE_GRANTS, type TableGrant } from '../table-access';
import { checkTableGrant } from './table-grant-check';
import type { ScheduledHandler } from './timer';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * The builder of every endpoint group's function, as its Lambda entry calls it. Keyed by group and
 * type-checked against the route table, so a new group cannot be left out of the local runtime.
 */
const HTTP_BUILDERS: { [G in FunctionGroup]: (config: GroupConfig<G>, deps: FunctionDeps) => ProxyHandler } = {
  health: buildHealthHandler,
  auth: buildAuthHandler,
  members: buildMembersHandler,
  apiKeys: buildApiKeysHandler,
  accounts: buildAccountsHandler,
  connections: buildConnectionsHandler,
  userWebhook: buildUserWebhookHandler,
  providerWebhooks: buildProviderWebhooksHandler,
  leadLists: buildLeadListsHandler,
  prospects: buildProspectsHandler,
  campaigns: buildCampaignsHandler,
  campaignProspects: buildCampaignProspectsHandler,
  unsubscribe: buildUnsubscribeHandler,
  suppressions: buildSuppressionsHandler,
  enrichment: buildEnrichmentHandler,
  chats: buildChatsHandler,
  analytics: buildAnalyticsHandler,
};

/** Queue consumers by queue name (the catalog's). */
const QUEUE_BUILDERS: Record<string, (settings: Partial<AllSettings>, deps: FunctionDeps) => SqsHandler> = {
  [WEBHOOK_DELIVERY.name]: (settings, deps) => buildWebhookDeliveryHandler(settingsFrom(WEBHOOK_DELIVERY.settings, settings), deps),
  [CAMPAIGN_SCHEDULING.name]: (settings, deps) => buildCampaignSchedulingHandler(settingsFrom(CAMPAIGN_SCHEDULING.settings, settings), deps),
  [OUTREACH.name]: (settings, deps) => buildOutreachHandler(settingsFrom(OUTREACH.settings, settings), deps),
  [ENRICHMENT.name]: (settings, deps) => buildEnrichmentWorkerHandler(settingsFrom(ENRICHMENT.settings, settings), deps),
  [INBOUND_RETRY.name]: (settings, deps) => buildInboundRetryHandler(settingsFrom(INBOUND_RETRY.settings, settings), deps),
};

/** Scheduled jobs by name (the catalog's). */
const SCHEDULE_BUILDERS: Record<string, (settings: Partial<AllSettings>, deps: FunctionDeps) => ScheduledHandler> = {
  [OUTREACH_SCHEDULER.name]: (settings, deps) => buildOutreachSchedulerHandler(settingsFrom(OUTREACH_SCHEDULER.settings, settings), deps),
  [ENRICHMENT_SWEEPER.name]: (settings, deps) => buildEnrichmentSweeperHandler(settingsFrom(ENRICHMENT_SWEEPER.settings, settings), deps),
};

export interface LocalFunctions {
  http: Record<FunctionGroup, ProxyHandler>;
  authorizer: AuthorizerHandler;
  consumers: Record<string, SqsHandler>;
  schedules: Record<string, ScheduledHandler>;
  /** Table calls a function's deployed role would refuse (see table-grant-check.ts), oldest first. */
  tableGrantViolations: string[];
}

/**
 * Builds every function of the stack with plain config objects, as the Lambda entries do from
 * their environment: each gets exactly the settings its registration declares, so a function that
 * reads a setting it did not declare fails here just as it would in AWS.
 */
export function buildLocalFunctions(settings: Partial<AllSettings>, deps: FunctionDeps): LocalFunctions {
  const tableGrantViolations: string[] = [];
  // Each function's table client allows what its deployed role allows, no more.
  const granted = (name: string, grant: TableGrant | undefined): FunctionDeps => ({ ...deps, onTableClient: checkTableGrant(name, grant, tableGrantViolations) });
  const http = {} as Record<FunctionGroup, ProxyHandler>;
  for (const group of Object.keys(FUNCTION_GROUPS) as FunctionGroup[]) {
    const build = HTTP_BUILDERS[group] as (config: unknown, deps: FunctionDeps) => ProxyHandler;
    http[group] = build(settingsFrom(FUNCTION_GROUPS[group].settings, settings), granted(group, GROUP_TABLE_GRANTS[group]));
  }
  const consumers: Record<string, SqsHandler> = {};
  for (const queue of QUEUES) {
    const build = QUEUE_BUILDERS[queue.name];
    if (!build) throw new Error(`No local consumer for queue ${queue.name}`);
    consumers[queue.name] = build(settings, granted(`queue:${queue.name}`, QUEUE_TABLE_GRANTS[queue.name]));
  }
  const schedules: Record<string, ScheduledHandler> = {};
  for (const job of SCHEDULES) {
    const build = SCHEDULE_BUILDERS[job.name];
    if (!build) throw new Error(`No local handler for scheduled job ${job.name}`);
    schedules[job.name] = build(settings, granted(`schedule:${job.name}`, SCHEDULE_TABLE_GRANTS[job.name]));
  }
  const authorizer = buildAuthorizer(settingsFrom(AUTHORIZER.settings, settings), granted('authorizer', AUTHORIZER_TABLE_GRANT));
  return { http, authorizer, consumers, schedules, tableGrantViolations };
}
