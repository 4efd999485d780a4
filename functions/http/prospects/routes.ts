import { toCompanyView, toProspectView } from '../../../shared/domain/leads/lead';
import type { ProspectSearchService } from '../../../shared/domain/leads/prospect-search-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { prospectRoutes } from '../../../shared/http/routes/prospects';

/** Spec: POST /public/prospects/search/ (API key). */
export function prospectHandlers(search: ProspectSearchService) {
  return {
    searchProspects: async (request) => {
      const caller = request.caller();
      const body = request.body();
      const input = {
        searchType: body.search_type,
        source: body.source,
        page: body.page,
        pageSize: body.page_size,
        filters: body.filters,
        // An empty cursor is none, as `null` is and as the lists' query cursors read it.
        cursor: body.cursor || undefined,
      };
      const found = await search.search(caller.workspaceId, input, request.timeLeft);
      return json(200, {
        success: true,
        search_type: found.searchType,
        source: body.source,
        page: body.page,
        page_size: body.page_size,
        total_count: found.total,
        next_cursor: found.nextCursor,
        results:
          found.searchType === 'PEOPLE'
            ? found.prospects.map(({ prospect, company }) => toProspectView(prospect, company))
            : found.companies.map(toCompanyView),
      });
    },
  } satisfies HandlersFor<typeof prospectRoutes>;
}
