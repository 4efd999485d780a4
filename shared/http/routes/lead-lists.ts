import * as v from 'valibot';
import { CsvMapping } from '../../domain/leads/import-schemas';
import { LIMITS, SEARCH_TYPES } from '../../domain/leads/lead';
import { Count, Id, PageNumber, defineRoute, idParam } from './define';
import { CompanyView, LeadListView, ProspectView } from './lead-views';

export const CreateLeadListBody = v.object({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('name is required'),
    v.maxLength(LIMITS.maxListNameLength, `name must be at most ${LIMITS.maxListNameLength} characters`),
  ),
  search_type: v.optional(v.picklist(SEARCH_TYPES, "search_type must be either 'PEOPLE' or 'COMPANY'"), 'PEOPLE'),
});

/** Ids as a JSON array, numeric strings or one comma-separated string; checked by `idList`. */
export const LeadIdsBody = v.object({
  prospect_ids: v.optional(v.unknown()),
  company_ids: v.optional(v.unknown()),
});

export const ImportBody = v.object({
  leads: v.optional(v.array(v.unknown(), 'leads must be an array of lead objects')),
  csv: v.optional(v.string('csv must be a string holding the CSV text')),
  // Keys kept exactly as sent (a column may be named `constructor`): see CsvMapping.
  mapping: v.optional(CsvMapping),
});

export const ListLeadListsQuery = v.object({
  q: v.optional(v.string()),
  search: v.optional(v.string()),
});

/**
 * List-leads query as documented: paging and sorting; every other parameter is a filter on a
 * field of the list's type (docs/lead-lists.md), checked against the list once it is read.
 */
export const ListLeadsQuery = v.looseObject({
  page: v.optional(v.string()),
  page_size: v.optional(v.string()),
  sort_field: v.optional(v.string()),
  sort_direction: v.optional(v.picklist(['asc', 'desc'])),
});

const listPath = v.object({ id: idParam('Lead list not found') });
const SkippedId = v.strictObject({
  id: v.number(),
  reason: v.picklist(['not_found', 'already_in_list', 'not_in_list', 'too_many_lists', 'list_full', 'concurrent_change']),
});
const membershipAnswer = (done: 'added' | 'archived' | 'removed') =>
  v.strictObject({
    success: v.literal(true),
    search_type: v.picklist(SEARCH_TYPES),
    [done]: Count,
    [`${done}_ids`]: v.array(Id),
    skipped: v.array(SkippedId),
    total_prospects: Count,
  });

const pageEnvelope = { success: v.literal(true), total_count: Count, page: PageNumber, page_size: PageNumber };

/** Spec: Lead lists (API key). */
export const leadListRoutes = {
  listLeadLists: defineRoute('leadLists', {
    method: 'GET',
    path: '/public/lead-lists',
    auth: 'apiKey',
    summary: "The workspace's lead lists; `q` (or `search`) filters by name.",
    request: { query: ListLeadListsQuery },
    responses: { 200: v.strictObject({ success: v.literal(true), searches: v.array(LeadListView) }) },
  }),
  createLeadList: defineRoute('leadLists', {
    method: 'POST',
    path: '/public/lead-lists',
    auth: 'apiKey',
    summary: 'Creates an empty lead list of people or companies.',
    request: { body: CreateLeadListBody },
    responses: { 201: v.strictObject({ success: v.literal(true), lead_list: LeadListView }) },
  }),
  listLeads: defineRoute('leadLists', {
    method: 'GET',
    path: '/public/lead-lists/{id}/leads',
    auth: 'apiKey',
    summary: 'A page of the list’s leads, sorted and filtered, with an exact total.',
    request: { path: listPath, query: ListLeadsQuery },
    responses: {
      200: v.union([
        v.strictObject({ ...pageEnvelope, search_type: v.literal('PEOPLE'), prospects: v.array(ProspectView) }),
        v.strictObject({ ...pageEnvelope, search_type: v.literal('COMPANY'), companies: v.array(CompanyView) }),
      ]),
    },
    errors: [404],
  }),
  addLeads: defineRoute('leadLists', {
    method: 'POST',
    path: '/public/lead-lists/{id}/add-leads',
    auth: 'apiKey',
    summary: "Adds existing prospects (or companies) of the workspace to the list; skipped ones say why.",
    request: { path: listPath, body: LeadIdsBody },
    responses: { 200: membershipAnswer('added') },
    errors: [404],
  }),
  deleteLeads: defineRoute('leadLists', {
    method: 'DELETE',
    path: '/public/lead-lists/{id}/delete-leads',
    auth: 'apiKey',
    summary: 'Archives prospects (they leave all their lists) or removes companies from the list.',
    request: { path: listPath, body: LeadIdsBody },
    responses: { 200: v.union([membershipAnswer('archived'), membershipAnswer('removed')]) },
    errors: [404],
  }),
  importLeads: defineRoute('leadLists', {
    method: 'POST',
    path: '/public/lead-lists/{id}/import',
    auth: 'apiKey',
    summary: 'Imports up to 1,000 leads from JSON rows or CSV text, normalised and deduplicated.',
    request: { path: listPath, body: ImportBody },
    responses: {
      200: v.strictObject({
        success: v.literal(true),
        search_type: v.picklist(SEARCH_TYPES),
        total_rows: Count,
        created: Count,
        updated: Count,
        skipped: Count,
        skipped_rows: v.array(v.strictObject({ row: v.number(), reason: v.string() })),
        leads: v.array(v.strictObject({ row: v.number(), id: Id, status: v.picklist(['created', 'updated']) })),
        total_prospects: Count,
      }),
    },
    errors: [404],
    // Imports carry up to 1000 rows (a CSV of that size is well under 4 MB).
    maxBodyBytes: 4 * 1024 * 1024,
  }),
};
