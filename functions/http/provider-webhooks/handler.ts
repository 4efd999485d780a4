import { DynamoOutcomeLog } from '../../../shared/db/outcome-log';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { providerWebhookRoutes } from '../../../shared/http/routes/provider-webhooks';
import { sqsInboundRetries } from '../../../shared/messaging/inbound-retry-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { logPullFailures } from '../../../shared/runtime/campaign-slots';
import { senderAccountServiceFrom } from '../../../shared/runtime/integrations';
import { inboundRouterFrom } from '../../../shared/runtime/replies';
import { type TableAccess, tableAccess } from '../../../shared/runtime/table';
import type { Clock } from '../../../shared/time/clock';
import type { Logger } from '../../../shared/logging/logger';
import { createProviderEvents } from './provider-events';
import { providerWebhookHandlers } from './routes';

type ProviderEventSettings = GroupConfig<'providerWebhooks'>;

/** What a provider event changes, over the table: the webhook's function and the inbound-retry consumer run the same. */
export function providerEventsFrom(
  config: Omit<ProviderEventSettings, 'inboundRetryQueueUrl'>,
  table: TableAccess,
  clock: Clock,
  logger: Pick<Logger, 'info' | 'warn'>,
  accounts: Pick<ReturnType<typeof senderAccountServiceFrom>, 'applyProviderStatus'> = senderAccountServiceFrom(config, table, clock),
) {
  return createProviderEvents({
    accounts,
    inbound: inboundRouterFrom(config, table, clock, logPullFailures(logger)),
    sentEmails: new DynamoOutcomeLog(table.db, table.tableName, clock),
    logger,
  });
}

/** The provider-webhooks function: account status, hosted-connect completion and replies. */
export function buildProviderWebhooksHandler(config: ProviderEventSettings, deps: FunctionDeps) {
  const logger = loggerFor('provider-webhooks', deps);
  const table = tableAccess(config, deps);
  const accounts = senderAccountServiceFrom(config, table, deps.clock);
  const handlers = providerWebhookHandlers({
    accounts,
    events: providerEventsFrom(config, table, deps.clock, logger, accounts),
    retries: sqsInboundRetries(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.inboundRetryQueueUrl),
    secret: config.providerWebhookSecret,
    logger,
  });
  return httpHandler(providerWebhookRoutes, handlers, { logger, checkResponses: deps.checkResponses });
}
