import { readAddToCampaign, readRemoveProspects } from '../../../shared/domain/campaigns/move-input';
import { type ProspectMoves, toMovedProspectView } from '../../../shared/domain/campaigns/prospect-moves';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { campaignProspectRoutes } from '../../../shared/http/routes/campaign-prospects';

/** Moving prospects into and out of campaigns (API key). */
export function campaignProspectHandlers(moves: ProspectMoves) {
  return {
    addToCampaign: async (request) => {
      const input = readAddToCampaign(request.body());
      const result = await moves.addFromList(request.caller().workspaceId, request.path().id, input, request.timeLeft);
      return json(200, {
        success: true,
        count: result.moved.length,
        prospects: result.moved.map(toMovedProspectView),
        has_more: result.hasMore,
        skipped: result.skipped,
        ...(result.warning ? { warning: result.warning } : {}),
      });
    },

    importToCampaign: async (request) => {
      const body = request.body();
      const result = await moves.importLeads(
        request.caller().workspaceId,
        request.path().id,
        { ...(body.leads ? { leads: body.leads } : {}), activate: body.activate },
        request.timeLeft,
      );
      return json(200, {
        success: true,
        count: result.count,
        created: result.created,
        updated: result.updated,
        skipped: result.skipped,
        ...(result.warning ? { warning: result.warning } : {}),
      });
    },

    listCampaignProspects: async (request) => {
      const { status, cursor } = request.query();
      // An empty value is no value: a client's paging loop may start with `cursor=`.
      const page = await moves.prospectsPage(request.caller().workspaceId, request.path().id, {
        ...(status ? { status } : {}),
        ...(cursor ? { cursor } : {}),
      });
      return json(200, { success: true, prospects: page.prospects, next_cursor: page.nextCursor });
    },

    removeCampaignProspects: async (request) => {
      const ids = readRemoveProspects(request.body());
      const result = await moves.removeProspects(request.caller().workspaceId, request.path().id, ids, request.timeLeft);
      return json(200, { success: true, count: result.count });
    },
  } satisfies HandlersFor<typeof campaignProspectRoutes>;
}
