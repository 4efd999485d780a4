import { LOADING_STATUS, toProspectView } from '../../../shared/domain/leads/lead';
import type { ProspectPipeline } from '../../../shared/domain/leads/prospect-pipeline';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { prospectStatusRoutes } from '../../../shared/http/routes/prospect-status';

/**
 * GET and PATCH /public/prospects/{prospect_id}/ (API key). `enriching`: the prospects that running
 * enrichment jobs of the given lists hold (shown as 'Loading…', as in the lists' pages).
 */
export function prospectStatusHandlers(pipeline: ProspectPipeline, enriching: (workspaceId: number, listIds: readonly number[]) => Promise<Set<number>>) {
  return {
    getProspect: async (request) => {
      const { workspaceId } = request.caller();
      const { prospect, company } = await pipeline.get(workspaceId, request.path().prospect_id);
      const view = toProspectView(prospect, company);
      // Only jobs of its lists can hold it: none to read when it is in no list.
      const held = prospect.listIds.length > 0 && (await enriching(workspaceId, prospect.listIds)).has(prospect.id);
      return json(200, { success: true, prospect: held ? { ...view, status: LOADING_STATUS } : view });
    },
    updateProspectStatus: async (request) => {
      const { prospect, company } = await pipeline.setStatus(request.caller().workspaceId, request.path().prospect_id, request.body().status);
      return json(200, { success: true, prospect: toProspectView(prospect, company) });
    },
  } satisfies HandlersFor<typeof prospectStatusRoutes>;
}
