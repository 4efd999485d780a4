import { LOADING_STATUS, toProspectView } from '../../../shared/domain/leads/lead';
import type { ProspectPipeline } from '../../../shared/domain/leads/prospect-pipeline';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { prospectStatusRoutes } from '../../../shared/http/routes/prospect-status';

/** GET and PATCH /public/prospects/{prospect_id}/ (API key). */
export function prospectStatusHandlers(pipeline: ProspectPipeline) {
  return {
    getProspect: async (request) => {
      const { prospect, company, enriching } = await pipeline.get(request.caller().workspaceId, request.path().prospect_id);
      const view = toProspectView(prospect, company);
      return json(200, { success: true, prospect: enriching ? { ...view, status: LOADING_STATUS } : view });
    },
    updateProspectStatus: async (request) => {
      const { prospect, company } = await pipeline.setStatus(request.caller().workspaceId, request.path().prospect_id, request.body().status);
      return json(200, { success: true, prospect: toProspectView(prospect, company) });
    },
  } satisfies HandlersFor<typeof prospectStatusRoutes>;
}
