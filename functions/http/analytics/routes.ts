import type { AnalyticsService } from '../../../shared/domain/analytics/analytics-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { analyticsRoutes } from '../../../shared/http/routes/analytics';

export function analyticsHandlers(analytics: AnalyticsService) {
  return {
    getAccountAnalytics: async (request) => {
      const found = await analytics.account(request.caller().workspaceId, request.query());
      return json(200, { success: true, analytics: found });
    },

    getCampaignAnalytics: async (request) => {
      const found = await analytics.campaign(request.caller().workspaceId, request.path().id, request.query());
      return json(200, { success: true, ...found });
    },

    getDashboardAnalytics: async (request) => {
      const caller = request.caller();
      return json(200, { campaigns: await analytics.dashboard(caller.userId, caller.workspaceId, request.query().workspace_id) });
    },
  } satisfies HandlersFor<typeof analyticsRoutes>;
}
