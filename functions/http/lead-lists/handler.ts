import { DynamoCampaignProspects } from '../../../shared/db/campaign-prospects';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { DynamoLeadListRepository } from '../../../shared/db/lead-list-repository';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { completeCampaignsLeft } from '../../../shared/domain/campaigns/completion';
import { createLeadListService } from '../../../shared/domain/leads/lead-list-service';
import { createLeadWriter } from '../../../shared/domain/leads/lead-writer';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { leadListRoutes } from '../../../shared/http/routes/lead-lists';
import { sqsCampaignScheduling } from '../../../shared/messaging/campaign-scheduling-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { campaignSlotsFrom, logPullFailures } from '../../../shared/runtime/campaign-slots';
import { tableAccess } from '../../../shared/runtime/table';
import { leadListHandlers } from './routes';

/** The lead-lists function: lists, their leads, adds, deletes and imports. */
export function buildLeadListsHandler(config: GroupConfig<'leadLists'>, deps: FunctionDeps) {
  const logger = loggerFor('lead-lists', deps);
  const { db, tableName, ids } = tableAccess(config, deps);
  const leads = new DynamoLeadRepository(db, tableName, deps.clock);
  const enrichments = new DynamoEnrichmentRepository(db, tableName);
  const scheduling = sqsCampaignScheduling(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.campaignSchedulingQueueUrl);
  const completion = {
    campaigns: new DynamoCampaignRepository(db, tableName),
    prospects: new DynamoCampaignProspects(db, tableName),
    clock: deps.clock,
    // The leads are archived when completion is asked: a check that fails is asked again on the queue.
    retryLater: (workspaceId: number, campaignId: number) => scheduling.checkCompletion(workspaceId, campaignId),
  };
  const lists = createLeadListService({
    lists: new DynamoLeadListRepository(db, tableName, leads.members, leads.journal),
    leads,
    // Prospects archived out of a campaign give back the cap slots their actions held there.
    writer: createLeadWriter({
      leads,
      ids,
      clock: deps.clock,
      maxLeadsPerList: config.maxLeadsPerList,
      campaignSlots: campaignSlotsFrom({ db, tableName }, deps.clock, logPullFailures(logger)),
    }),
    ids,
    clock: deps.clock,
    enriching: (workspaceId, listId) => enrichments.busyInWorkspace(workspaceId, { list: listId }),
    campaignsLeft: (workspaceId, campaignIds) => completeCampaignsLeft(completion, workspaceId, campaignIds),
  });
  return httpHandler(leadListRoutes, leadListHandlers(lists), { logger, checkResponses: deps.checkResponses });
}
