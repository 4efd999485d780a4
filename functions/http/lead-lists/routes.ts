import type { APIGatewayProxyEvent } from 'aws-lambda';
import { toCompanyView, toLeadListView, toProspectView } from '../../../shared/domain/leads/lead';
import { LIST_NOT_FOUND, type LeadListService, type IdsResult } from '../../../shared/domain/leads/lead-list-service';
import { requireCaller } from '../../../shared/http/caller';
import { parseBody, pathId } from '../../../shared/http/request';
import { json } from '../../../shared/http/responses';
import { CreateLeadListBody, ImportBody, LeadIdsBody, idList, queryParams } from './schemas';

function leadIds(event: APIGatewayProxyEvent) {
  const body = parseBody(LeadIdsBody, event);
  const prospectIds = idList(body.prospect_ids, 'prospect_ids');
  const companyIds = idList(body.company_ids, 'company_ids');
  return { ...(prospectIds ? { prospectIds } : {}), ...(companyIds ? { companyIds } : {}) };
}

const membership = (result: IdsResult, doneName: string) => ({
  success: true,
  search_type: result.list.searchType,
  [doneName]: result.done.length,
  [`${doneName}_ids`]: result.done,
  skipped: result.skipped,
  total_prospects: result.list.totalProspects,
});

/** Spec: Lead lists (API key). */
export function leadListRoutes(lists: LeadListService) {
  return {
    'GET /api/v1/public/lead-lists': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const params = queryParams(event);
      const query = params.q?.at(-1) ?? params.search?.at(-1);
      const found = await lists.list(caller.workspaceId, query);
      return json(200, { success: true, searches: found.map(toLeadListView) });
    },

    'POST /api/v1/public/lead-lists': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const body = parseBody(CreateLeadListBody, event);
      const list = await lists.create(caller.workspaceId, { name: body.name, searchType: body.search_type });
      return json(201, { success: true, lead_list: toLeadListView(list) });
    },

    'GET /api/v1/public/lead-lists/{id}/leads': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const { query, page } = await lists.leads(caller.workspaceId, pathId(event, 'id', LIST_NOT_FOUND), queryParams(event));
      const envelope = { success: true, search_type: page.searchType, total_count: page.total, page: query.page, page_size: query.pageSize };
      return json(
        200,
        page.searchType === 'PEOPLE'
          ? { ...envelope, prospects: page.prospects.map(({ prospect, company }) => toProspectView(prospect, company)) }
          : { ...envelope, companies: page.companies.map(toCompanyView) },
      );
    },

    'POST /api/v1/public/lead-lists/{id}/add-leads': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const listId = pathId(event, 'id', LIST_NOT_FOUND);
      const result = await lists.addLeads(caller.workspaceId, listId, leadIds(event));
      return json(200, membership(result, 'added'));
    },

    'DELETE /api/v1/public/lead-lists/{id}/delete-leads': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const listId = pathId(event, 'id', LIST_NOT_FOUND);
      const result = await lists.deleteLeads(caller.workspaceId, listId, leadIds(event));
      return json(200, membership(result, result.list.searchType === 'PEOPLE' ? 'archived' : 'removed'));
    },

    'POST /api/v1/public/lead-lists/{id}/import': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const listId = pathId(event, 'id', LIST_NOT_FOUND);
      const body = parseBody(ImportBody, event);
      const result = await lists.importLeads(caller.workspaceId, listId, body);
      return json(200, {
        success: true,
        search_type: result.list.searchType,
        total_rows: result.totalRows,
        created: result.created,
        updated: result.updated,
        skipped: result.skippedRows.length,
        skipped_rows: result.skippedRows,
        leads: result.leads,
        total_prospects: result.list.totalProspects,
      });
    },
  };
}
