import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { DynamoSearchUsageRepository } from '../../../shared/db/search-usage-repository';
import { DynamoWorkspaceLeadCounts } from '../../../shared/db/workspace-lead-counts';
import { createLeadWriter } from '../../../shared/domain/leads/lead-writer';
import { createProspectPipeline } from '../../../shared/domain/leads/prospect-pipeline';
import { createProspectSearchService } from '../../../shared/domain/leads/prospect-search-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { FUNCTION_GROUPS, type GroupConfig } from '../../../shared/http/route-table';
import { HttpDirectoryProvider } from '../../../shared/providers/directory/http-directory';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { logPullFailures } from '../../../shared/runtime/campaign-slots';
import { sequenceStopsFrom } from '../../../shared/runtime/sequence-stops';
import { tableAccess } from '../../../shared/runtime/table';
import { prospectHandlers } from './routes';
import { prospectStatusHandlers } from './status-routes';

/** The prospects function: directory and workspace search, saving what the directory finds; one prospect and its pipeline stage. */
export function buildProspectsHandler(config: GroupConfig<'prospects'>, deps: FunctionDeps) {
  const logger = loggerFor('prospects', deps);
  const table = tableAccess(config, deps);
  const { db, tableName, ids } = table;
  const leads = new DynamoLeadRepository(db, tableName, deps.clock);
  const search = createProspectSearchService({
    directory: new HttpDirectoryProvider({ baseUrl: config.directoryBaseUrl, apiKey: config.directoryApiKey }),
    usage: new DynamoSearchUsageRepository(db, tableName),
    leads,
    counts: new DynamoWorkspaceLeadCounts(db, tableName, leads.journal),
    writer: createLeadWriter({ leads, ids, clock: deps.clock, maxLeadsPerList: config.maxLeadsPerList }),
    clock: deps.clock,
    monthlyQuota: config.searchQuotaPerMonth,
  });
  const enrichments = new DynamoEnrichmentRepository(db, tableName);
  const pipeline = createProspectPipeline({
    leads,
    stops: sequenceStopsFrom(table, deps.clock, config.maxLeadsPerList, { onPullFailed: logPullFailures(logger) }),
    enriching: (workspaceId, listIds) => enrichments.busyInWorkspace(workspaceId, { listIds }),
  });
  return httpHandler(
    FUNCTION_GROUPS.prospects.routes,
    { ...prospectHandlers(search), ...prospectStatusHandlers(pipeline) },
    { logger, checkResponses: deps.checkResponses },
  );
}
