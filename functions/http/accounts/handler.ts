import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { accountRoutes } from '../../../shared/http/routes/accounts';
import { sqsCampaignScheduling } from '../../../shared/messaging/campaign-scheduling-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { senderAccountServiceFrom } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
import { accountHandlers } from './routes';

/**
 * The accounts function: sender accounts over the table and the provider. A limit raised or a pause
 * ended has the campaigns sending through the account place their waits again (campaign-scheduling queue).
 */
export function buildAccountsHandler(config: GroupConfig<'accounts'>, deps: FunctionDeps) {
  const table = tableAccess(config, deps);
  const accounts = senderAccountServiceFrom(config, table, deps.clock, {
    campaigns: new DynamoCampaignRepository(table.db, table.tableName),
    scheduling: sqsCampaignScheduling(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.campaignSchedulingQueueUrl),
  });
  return httpHandler(accountRoutes, accountHandlers(accounts, deps.clock), { logger: loggerFor('accounts', deps), checkResponses: deps.checkResponses });
}
