import { DynamoOutcomeLog } from '../../../shared/db/outcome-log';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { providerWebhookRoutes } from '../../../shared/http/routes/provider-webhooks';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { senderAccountServiceFrom } from '../../../shared/runtime/integrations';
import { inboundRouterFrom } from '../../../shared/runtime/replies';
import { tableAccess } from '../../../shared/runtime/table';
import { providerWebhookHandlers } from './routes';

/** The provider-webhooks function: account status, hosted-connect completion and replies. */
export function buildProviderWebhooksHandler(config: GroupConfig<'providerWebhooks'>, deps: FunctionDeps) {
  const logger = loggerFor('provider-webhooks', deps);
  const table = tableAccess(config, deps);
  const handlers = providerWebhookHandlers({
    accounts: senderAccountServiceFrom(config, table, deps.clock),
    inbound: inboundRouterFrom(config, table, deps.clock),
    sentEmails: new DynamoOutcomeLog(table.db, table.tableName, deps.clock),
    secret: config.providerWebhookSecret,
    logger,
  });
  return httpHandler(providerWebhookRoutes, handlers, { logger, checkResponses: deps.checkResponses });
}
