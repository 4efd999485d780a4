import { setTimeout as pause } from 'node:timers/promises';
import { notFound, validationError } from '../errors';
import type { Clock, IdGenerator } from '../ports';
import { type ImportRow, type LeadInput, type ProspectInput, type CompanyInput, readCsvLeads, readJsonLeads } from './import-rows';
import { type Company, LOADING_STATUS, type LeadList, LIMITS, type Prospect, type SearchType, toCompanyView, toProspectView } from './lead';
import type { LeadWriter, SkipCode, TimeLeft, UpsertOutcome } from './lead-writer';
import { parseLeadsQuery } from './list-query';
import { foldText } from './normalize';
import type { LeadListRepository, LeadRepository, PageMember } from './ports';

export const LIST_NOT_FOUND = 'Lead list not found';

/**
 * An answer waits for the other batches still writing to its list (polling it), so that its
 * `total_prospects` counts the leads it reports as already there: a concurrent request added them
 * and has not closed the list yet. Their writes take tens of milliseconds; a batch that stopped
 * half-way is finished by whoever reads the list after its lease, so the bound only stops the wait
 * for one (some 3 to 6 seconds), and the answer then counts what is closed.
 */
const OTHER_BATCHES_POLL_MS = 25;
const OTHER_BATCHES_MAX_POLLS = 120;
/** Never waits into the request's last seconds (its answer must still be sent). */
const OTHER_BATCHES_RESERVE_MS = 2_000;

export interface LeadListServiceDeps {
  lists: LeadListRepository;
  leads: LeadRepository;
  writer: LeadWriter;
  ids: IdGenerator;
  clock: Clock;
  /** The workspace's prospects that running enrichment jobs hold, of any list (shown as 'Loading…', docs/enrichment.md). */
  enriching?: (workspaceId: number, listId: number) => Promise<Set<number>>;
  /**
   * Told of the campaigns prospects left (archived by delete-leads), so that one whose prospects
   * have now all finished becomes COMPLETED (shared/domain/campaigns/completion.ts).
   */
  campaignsLeft?: (workspaceId: number, campaignIds: number[]) => Promise<void>;
}

/** The ids of an add-leads or delete-leads request, by the field they came in. */
export interface LeadIdsInput {
  prospectIds?: number[];
  companyIds?: number[];
}

export interface ImportInput {
  leads?: unknown[];
  csv?: string;
  mapping?: Record<string, string | null>;
}

/** A page of a list: its leads as the API shows them (prospect or company objects). */
export interface LeadPage {
  searchType: SearchType;
  total: number;
  items: Record<string, unknown>[];
}

export interface IdsResult {
  list: LeadList;
  done: number[];
  skipped: { id: number; reason: SkipCode }[];
}

export interface ImportResult {
  list: LeadList;
  totalRows: number;
  created: number;
  updated: number;
  skippedRows: { row: number; reason: string }[];
  leads: { row: number; id: number; status: 'created' | 'updated' }[];
}

/** Lead lists: create, list, read a page of leads, add, delete (archive) and import leads. */
export function createLeadListService(deps: LeadListServiceDeps) {
  async function get(workspaceId: number, listId: number): Promise<LeadList> {
    const list = await deps.lists.get(workspaceId, listId);
    if (!list) throw notFound(LIST_NOT_FOUND);
    return list;
  }

  /**
   * The list after this request's writes and those of the batches writing to it meanwhile: read
   * again while any is open, a few seconds at most (OTHER_BATCHES_MAX_POLLS), within the request's time left.
   */
  async function afterWrites(workspaceId: number, listId: number, timeLeft?: TimeLeft): Promise<LeadList> {
    let list = await get(workspaceId, listId);
    for (let polls = 0; list.openJournals?.length && polls < OTHER_BATCHES_MAX_POLLS; polls += 1) {
      if (timeLeft && timeLeft() < OTHER_BATCHES_RESERVE_MS) break;
      await pause(OTHER_BATCHES_POLL_MS);
      list = await get(workspaceId, listId);
    }
    return list;
  }

  /** The ids for the list's type; the other type's ids are refused. */
  function idsFor(list: LeadList, input: LeadIdsInput): number[] {
    const [field, other, ids, otherIds] =
      list.searchType === 'PEOPLE'
        ? (['prospect_ids', 'company_ids', input.prospectIds, input.companyIds] as const)
        : (['company_ids', 'prospect_ids', input.companyIds, input.prospectIds] as const);
    if (otherIds !== undefined && otherIds.length > 0) {
      throw validationError(`This is a ${list.searchType} list: send ${field}, not ${other}`);
    }
    if (ids === undefined) throw validationError(`${field} is required for a ${list.searchType} list`);
    if (ids.length === 0) throw validationError(`${field} must contain at least one id`);
    if (ids.length > LIMITS.maxIdsPerRequest) throw validationError(`${field} may hold at most ${LIMITS.maxIdsPerRequest} ids`);
    return [...new Set(ids)];
  }

  async function changeMembers(
    workspaceId: number,
    listId: number,
    input: LeadIdsInput,
    change: (list: LeadList, ids: number[]) => Promise<{ id: number; skipped?: SkipCode; left?: number }[]>,
    timeLeft?: TimeLeft,
  ): Promise<IdsResult> {
    const list = await get(workspaceId, listId);
    const outcomes = await change(list, idsFor(list, input));
    const left = outcomes.flatMap((o) => (!o.skipped && o.left !== undefined ? [o.left] : []));
    if (left.length > 0 && deps.campaignsLeft) await deps.campaignsLeft(workspaceId, left);
    return {
      list: await afterWrites(workspaceId, listId, timeLeft),
      done: outcomes.filter((o) => !o.skipped).map((o) => o.id),
      skipped: outcomes.flatMap((o) => (o.skipped ? [{ id: o.id, reason: o.skipped }] : [])),
    };
  }

  const MAPPING_WITH_LEADS = 'mapping applies to csv only: leads are read by their field names';

  function rowsOf(list: LeadList, input: ImportInput): ImportRow[] {
    if (input.leads !== undefined && input.csv !== undefined) throw validationError('Send either leads or csv, not both');
    // A mapping beside JSON leads was ignored before 2026-11-29: the rows read without it.
    if (input.leads !== undefined && input.mapping !== undefined) throw validationError(MAPPING_WITH_LEADS);
    if (input.leads !== undefined) return readJsonLeads(input.leads, list.searchType);
    if (input.csv !== undefined) return readCsvLeads(input.csv, input.mapping, list.searchType);
    throw validationError('leads or csv is required');
  }

  /** The page's views; a member whose view was too large to keep with it is built from its lead. */
  async function viewsOf(list: LeadList, members: PageMember[]): Promise<Record<string, unknown>[]> {
    const missing = members.flatMap((member) => (member.view ? [] : [member.leadId]));
    const built = new Map<number, Record<string, unknown>>();
    if (missing.length > 0 && list.searchType === 'PEOPLE') {
      const prospects = (await deps.leads.getProspects(missing)).filter((p) => p.listIds.includes(list.id));
      const companyIds = [...new Set(prospects.flatMap((p) => (p.companyId ? [p.companyId] : [])))];
      const companies = new Map((companyIds.length ? await deps.leads.getCompanies(companyIds) : []).map((c) => [c.id, c]));
      for (const prospect of prospects) built.set(prospect.id, toProspectView(prospect, companies.get(prospect.companyId ?? -1)));
    } else if (missing.length > 0) {
      for (const company of await deps.leads.getCompanies(missing)) if (company.listIds.includes(list.id)) built.set(company.id, toCompanyView(company));
    }
    return members.flatMap((member) => {
      const view = member.view ?? built.get(member.leadId);
      if (!view) return [];
      // Views stored before prospects had campaigns lack campaign_id: they were in none.
      return list.searchType === 'PEOPLE' && !('campaign_id' in view) ? [{ ...view, campaign_id: null }] : [view];
    });
  }

  return {
    get,

    async create(workspaceId: number, input: { name: string; searchType: SearchType }): Promise<LeadList> {
      const now = deps.clock.now().toISOString();
      const list: LeadList = {
        id: await deps.ids.next(),
        workspaceId,
        name: input.name,
        searchType: input.searchType,
        status: 'DRAFT',
        totalProspects: 0,
        createdAt: now,
        updatedAt: now,
      };
      await deps.lists.create(list);
      return list;
    },

    /** The workspace's lists, newest first; `query` keeps those whose name contains it (case-insensitive). */
    async list(workspaceId: number, query: string | undefined): Promise<LeadList[]> {
      const lists = await deps.lists.listForWorkspace(workspaceId);
      const wanted = query ? foldText(query) : '';
      return wanted ? lists.filter((list) => foldText(list.name).includes(wanted)) : lists;
    },

    async leads(workspaceId: number, listId: number, params: Record<string, string[]>) {
      const list = await get(workspaceId, listId);
      const query = parseLeadsQuery(list.searchType, params);
      const offset = (query.page - 1) * query.pageSize;
      const unfilteredBeyondEnd = query.filters.length === 0 && offset >= list.totalProspects;
      const page = unfilteredBeyondEnd
        ? { members: [] }
        : await deps.lists.queryMembers(list, { ...query, offset, limit: query.pageSize });
      let items = await viewsOf(list, page.members);
      if (list.searchType === 'PEOPLE' && deps.enriching && items.length > 0) {
        const busy = await deps.enriching(workspaceId, list.id);
        if (busy.size > 0) items = items.map((view) => (busy.has(view.id as number) ? { ...view, status: LOADING_STATUS } : view));
      }
      const result: LeadPage = { searchType: list.searchType, total: page.matched ?? list.totalProspects, items };
      return { list, query, page: result };
    },

    addLeads: (workspaceId: number, listId: number, input: LeadIdsInput, timeLeft?: TimeLeft) =>
      changeMembers(workspaceId, listId, input, (list, ids) => deps.writer.addToList(list, ids, timeLeft), timeLeft),

    deleteLeads: (workspaceId: number, listId: number, input: LeadIdsInput, timeLeft?: TimeLeft) =>
      changeMembers(workspaceId, listId, input, (list, ids) => deps.writer.removeFromList(list, ids, timeLeft), timeLeft),

    /**
     * Imports rows into the list: each valid row creates its lead or updates the workspace's lead
     * with the same identity, and joins the list. Invalid rows are reported and never stop the rest.
     * `timeLeft`: the request's remaining time, so that rows contended by concurrent requests are
     * skipped (send them again) before the request would time out.
     */
    async importLeads(workspaceId: number, listId: number, input: ImportInput, timeLeft?: TimeLeft): Promise<ImportResult> {
      const list = await get(workspaceId, listId);
      const rows = rowsOf(list, input);
      const valid = rows.flatMap((row) => ('input' in row ? [row as { row: number; input: LeadInput }] : []));
      const outcomes: UpsertOutcome<Prospect | Company>[] =
        list.searchType === 'PEOPLE'
          ? await deps.writer.upsertProspects(workspaceId, valid.map((r) => r.input as ProspectInput), { list, overwrite: true, timeLeft })
          : await deps.writer.upsertCompanies(workspaceId, valid.map((r) => r.input as CompanyInput), { list, overwrite: true, timeLeft });

      const identity = list.searchType === 'PEOPLE' ? 'network_profile_url or email' : 'domain, network_url or name';
      const skippedRows = rows.flatMap((row) => ('error' in row ? [{ row: row.row, reason: row.error }] : []));
      const leads: ImportResult['leads'] = [];
      outcomes.forEach((outcome, i) => {
        const row = (valid[i] as { row: number }).row;
        if (outcome.status === 'duplicate') {
          skippedRows.push({ row, reason: `duplicate of row ${(valid[outcome.of] as { row: number }).row} (same ${identity})` });
        } else if (outcome.status === 'skipped') {
          skippedRows.push({ row, reason: outcome.reason });
        } else {
          leads.push({ row, id: 'lead' in outcome ? outcome.lead.id : outcome.id, status: outcome.status === 'created' ? 'created' : 'updated' });
        }
      });
      skippedRows.sort((a, b) => a.row - b.row);
      leads.sort((a, b) => a.row - b.row);
      return {
        list: await afterWrites(workspaceId, listId, timeLeft),
        totalRows: rows.length,
        created: leads.filter((lead) => lead.status === 'created').length,
        updated: leads.filter((lead) => lead.status === 'updated').length,
        skippedRows,
        leads,
      };
    },
  };
}

export type LeadListService = ReturnType<typeof createLeadListService>;
