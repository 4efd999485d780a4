import { DynamoAccountRepository } from '../../../shared/db/account-repository';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createCampaignService } from '../../../shared/domain/campaigns/campaign-service';
import { createFlowService } from '../../../shared/domain/campaigns/flow-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { FUNCTION_GROUPS, type GroupConfig } from '../../../shared/http/route-table';
import { sqsCampaignScheduling } from '../../../shared/messaging/campaign-scheduling-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';
import { campaignFlowHandlers } from './flow-routes';
import { campaignHandlers } from './routes';

/** The campaigns function: campaigns, their settings, status changes and flows. */
export function buildCampaignsHandler(config: GroupConfig<'campaigns'>, deps: FunctionDeps) {
  const { db, tableName, ids } = tableAccess(config, deps);
  const repository = new DynamoCampaignRepository(db, tableName);
  const accounts = new DynamoSenderAccountRepository(db, tableName);
  const scheduling = sqsCampaignScheduling(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.campaignSchedulingQueueUrl);
  const campaigns = createCampaignService({
    campaigns: repository,
    accounts,
    memberships: new DynamoAccountRepository(db, tableName),
    scheduling,
    ids,
    clock: deps.clock,
  });
  const flow = createFlowService({ campaigns: repository, accounts, ids, clock: deps.clock, scheduling });
  return httpHandler(
    FUNCTION_GROUPS.campaigns.routes,
    { ...campaignHandlers(campaigns), ...campaignFlowHandlers(flow) },
    { logger: loggerFor('campaigns', deps), checkResponses: deps.checkResponses },
  );
}
