import { DynamoAccountRepository } from '../../../shared/db/account-repository';
import { DynamoAnalyticsStats } from '../../../shared/db/analytics-stats';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { createAnalyticsService } from '../../../shared/domain/analytics/analytics-service';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { analyticsRoutes } from '../../../shared/http/routes/analytics';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';
import { analyticsHandlers } from './routes';

/** The analytics function: account, campaign and dashboard analytics from the daily aggregates. */
export function buildAnalyticsHandler(config: GroupConfig<'analytics'>, deps: FunctionDeps) {
  const { db, tableName } = tableAccess(config, deps);
  const analytics = createAnalyticsService({
    stats: new DynamoAnalyticsStats(db, tableName),
    campaigns: new DynamoCampaignRepository(db, tableName),
    memberships: new DynamoAccountRepository(db, tableName),
  });
  return httpHandler(analyticsRoutes, analyticsHandlers(analytics), { logger: loggerFor('analytics', deps), checkResponses: deps.checkResponses });
}
