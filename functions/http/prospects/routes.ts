import type { APIGatewayProxyEvent } from 'aws-lambda';
import { toCompanyView, toProspectView } from '../../../shared/domain/leads/lead';
import type { ProspectSearchService } from '../../../shared/domain/leads/prospect-search-service';
import { requireCaller } from '../../../shared/http/caller';
import { parseBody } from '../../../shared/http/request';
import { json } from '../../../shared/http/responses';
import { SearchBody } from './schemas';

/** Spec: POST /public/prospects/search/ (API key). */
export function prospectRoutes(search: ProspectSearchService) {
  return {
    'POST /api/v1/public/prospects/search': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const body = parseBody(SearchBody, event);
      const found = await search.search(caller.workspaceId, {
        searchType: body.search_type,
        source: body.source,
        page: body.page,
        pageSize: body.page_size,
        filters: body.filters,
      });
      return json(200, {
        success: true,
        search_type: found.searchType,
        source: body.source,
        page: body.page,
        page_size: body.page_size,
        total_count: found.total,
        results:
          found.searchType === 'PEOPLE'
            ? found.prospects.map(({ prospect, company }) => toProspectView(prospect, company))
            : found.companies.map(toCompanyView),
      });
    },
  };
}
