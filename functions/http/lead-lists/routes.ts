import { toLeadListView } from '../../../shared/domain/leads/lead';
import type { IdsResult, LeadListService } from '../../../shared/domain/leads/lead-list-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { leadListRoutes } from '../../../shared/http/routes/lead-lists';
import { idList } from '../../../shared/domain/validation';
import { queryParams } from './schemas';

function leadIds(body: { prospect_ids?: unknown; company_ids?: unknown }) {
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
export function leadListHandlers(lists: LeadListService) {
  return {
    listLeadLists: async (request) => {
      const caller = request.caller();
      // Like API Gateway's query map, the route's query holds the last value of a repeated parameter.
      const { q, search } = request.query();
      // An empty `q` does not hide a `search` given beside it (either name filters).
      const found = await lists.list(caller.workspaceId, q || search);
      return json(200, { success: true, searches: found.map(toLeadListView) });
    },

    createLeadList: async (request) => {
      const caller = request.caller();
      const body = request.body();
      const list = await lists.create(caller.workspaceId, { name: body.name, searchType: body.search_type });
      return json(201, { success: true, lead_list: toLeadListView(list) });
    },

    listLeads: async (request) => {
      const caller = request.caller();
      const { query, page } = await lists.leads(caller.workspaceId, request.path().id, queryParams(request.event));
      const envelope = { success: true, search_type: page.searchType, total_count: page.total, page: query.page, page_size: query.pageSize };
      return json(
        200,
        page.searchType === 'PEOPLE'
          ? { ...envelope, prospects: page.items }
          : { ...envelope, companies: page.items },
      );
    },

    addLeads: async (request) => {
      const caller = request.caller();
      const listId = request.path().id;
      const result = await lists.addLeads(caller.workspaceId, listId, leadIds(request.body()), request.timeLeft);
      return json(200, membership(result, 'added'));
    },

    deleteLeads: async (request) => {
      const caller = request.caller();
      const listId = request.path().id;
      const result = await lists.deleteLeads(caller.workspaceId, listId, leadIds(request.body()), request.timeLeft);
      return json(200, membership(result, result.list.searchType === 'PEOPLE' ? 'archived' : 'removed'));
    },

    importLeads: async (request) => {
      const caller = request.caller();
      const listId = request.path().id;
      const body = request.body();
      const result = await lists.importLeads(caller.workspaceId, listId, body, request.timeLeft);
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
  } satisfies HandlersFor<typeof leadListRoutes>;
}
