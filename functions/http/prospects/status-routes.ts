import { LOADING_STATUS, toProspectView } from '../../../shared/domain/leads/lead';
import type { ProspectPipeline, ShownProspect } from '../../../shared/domain/leads/prospect-pipeline';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { prospectStatusRoutes } from '../../../shared/http/routes/prospect-status';

/** As the lead lists show it: 'Loading…' while an enrichment job holds it. */
const shownView = ({ prospect, company, enriching }: ShownProspect) => {
  const view = toProspectView(prospect, company);
  return enriching ? { ...view, status: LOADING_STATUS } : view;
};

/** GET and PATCH /public/prospects/{prospect_id}/ (API key). */
export function prospectStatusHandlers(pipeline: ProspectPipeline) {
  return {
    getProspect: async (request) => {
      const shown = await pipeline.get(request.caller().workspaceId, request.path().prospect_id);
      return json(200, { success: true, prospect: shownView(shown) });
    },
    updateProspectStatus: async (request) => {
      const shown = await pipeline.setStatus(request.caller().workspaceId, request.path().prospect_id, request.body().status);
      return json(200, { success: true, prospect: shownView(shown) });
    },
  } satisfies HandlersFor<typeof prospectStatusRoutes>;
}
