import type { Suppression } from '../../../shared/domain/suppressions/suppression';
import type { Suppressions } from '../../../shared/domain/suppressions/suppression-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { suppressionRoutes } from '../../../shared/http/routes/suppressions';

export const toSuppressionView = (entry: Suppression) => ({
  id: entry.id,
  type: entry.type,
  value: entry.value,
  reason: entry.reason,
  prospect_id: entry.prospectId,
  campaign_id: entry.campaignId,
  created_at: entry.createdAt,
});

/** The workspace suppression list through the API. */
export const suppressionHandlers = (suppressions: Suppressions) =>
  ({
    listSuppressions: async (request) => {
      const page = await suppressions.list(request.caller().workspaceId, request.query().cursor);
      return json(200, { success: true, suppressions: page.entries.map(toSuppressionView), next_cursor: page.nextCursor });
    },
    addSuppressions: async (request) => {
      const body = request.body();
      const result = await suppressions.add(request.caller().workspaceId, {
        ...(body.emails ? { emails: body.emails } : {}),
        ...(body.domains ? { domains: body.domains } : {}),
        reason: 'MANUAL',
      });
      return json(200, { success: true, added: result.added.map(toSuppressionView), already_suppressed: result.existing.map(toSuppressionView) });
    },
    deleteSuppression: async (request) => {
      const removed = await suppressions.remove(request.caller().workspaceId, request.path().id);
      return json(200, { success: true, suppression: toSuppressionView(removed) });
    },
  }) satisfies HandlersFor<typeof suppressionRoutes>;
