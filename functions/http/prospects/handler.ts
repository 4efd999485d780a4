import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { DynamoSearchUsageRepository } from '../../../shared/db/search-usage-repository';
import { DynamoWorkspaceLeadCounts } from '../../../shared/db/workspace-lead-counts';
import { createLeadWriter } from '../../../shared/domain/leads/lead-writer';
import { createProspectSearchService } from '../../../shared/domain/leads/prospect-search-service';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { prospectRoutes } from '../../../shared/http/routes/prospects';
import { HttpDirectoryProvider } from '../../../shared/providers/directory/http-directory';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';
import { prospectHandlers } from './routes';

/** The prospects function: directory and workspace search, saving what the directory finds. */
export function buildProspectsHandler(config: GroupConfig<'prospects'>, deps: FunctionDeps) {
  const { db, tableName, ids } = tableAccess(config);
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
  return httpHandler(prospectRoutes, prospectHandlers(search), { logger: loggerFor('prospects', deps), checkResponses: deps.checkResponses });
}
