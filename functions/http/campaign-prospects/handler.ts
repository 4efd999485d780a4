import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { DynamoCampaignProspects } from '../../../shared/db/campaign-prospects';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { DynamoLeadListRepository } from '../../../shared/db/lead-list-repository';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { DynamoRequestLeases } from '../../../shared/db/request-leases';
import { createProspectMoves } from '../../../shared/domain/campaigns/prospect-moves';
import { createLeadWriter } from '../../../shared/domain/leads/lead-writer';
import { sqsCampaignScheduling } from '../../../shared/messaging/campaign-scheduling-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { campaignProspectRoutes } from '../../../shared/http/routes/campaign-prospects';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { campaignSlotsFrom, logPullFailures } from '../../../shared/runtime/campaign-slots';
import { tableAccess } from '../../../shared/runtime/table';
import { campaignProspectHandlers } from './routes';

/** The campaign-prospects function: add-to-campaign, the campaign import, a campaign's prospects, remove-prospects. */
export function buildCampaignProspectsHandler(config: GroupConfig<'campaignProspects'>, deps: FunctionDeps) {
  const logger = loggerFor('campaign-prospects', deps);
  const { db, tableName, ids } = tableAccess(config, deps);
  const leads = new DynamoLeadRepository(db, tableName, deps.clock);
  // The page's prospects a running enrichment job holds show 'Loading…'.
  const enrichments = new DynamoEnrichmentRepository(db, tableName);
  // Prospects moved or removed out of a campaign give back the cap slots their actions held there.
  const campaignSlots = campaignSlotsFrom({ db, tableName }, deps.clock, logPullFailures(logger));
  const writerDeps = { leads, ids, clock: deps.clock, maxLeadsPerList: config.maxLeadsPerList, campaignSlots };
  const moves = createProspectMoves({
    ...writerDeps,
    campaigns: new DynamoCampaignRepository(db, tableName),
    campaignProspects: new DynamoCampaignProspects(db, tableName),
    lists: new DynamoLeadListRepository(db, tableName, leads.members, leads.journal),
    digests: { chunks: async (listId) => [...(await leads.members.readDigest(listId)).values()].map((stored) => stored.chunk) },
    writer: createLeadWriter(writerDeps),
    scheduling: sqsCampaignScheduling(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.campaignSchedulingQueueUrl),
    leases: new DynamoRequestLeases(db, tableName),
    enriching: (workspaceId, listIds) => enrichments.busyInWorkspace(workspaceId, { listIds }),
  });
  return httpHandler(campaignProspectRoutes, campaignProspectHandlers(moves), {
    logger,
    checkResponses: deps.checkResponses,
  });
}
