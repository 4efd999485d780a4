import { DynamoAccountRepository } from '../../../shared/db/account-repository';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createCampaignService } from '../../../shared/domain/campaigns/campaign-service';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { campaignRoutes } from '../../../shared/http/routes/campaigns';
import { sqsCampaignScheduling } from '../../../shared/messaging/campaign-scheduling-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';
import { campaignHandlers } from './routes';

/** The campaigns function: campaigns, their settings, status changes and flows. */
export function buildCampaignsHandler(config: GroupConfig<'campaigns'>, deps: FunctionDeps) {
  const { db, tableName, ids } = tableAccess(config);
  const campaigns = createCampaignService({
    campaigns: new DynamoCampaignRepository(db, tableName),
    accounts: new DynamoSenderAccountRepository(db, tableName),
    memberships: new DynamoAccountRepository(db, tableName),
    scheduling: sqsCampaignScheduling(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.campaignSchedulingQueueUrl),
    ids,
    clock: deps.clock,
  });
  return httpHandler(campaignRoutes, campaignHandlers(campaigns), { logger: loggerFor('campaigns', deps), checkResponses: deps.checkResponses });
}
