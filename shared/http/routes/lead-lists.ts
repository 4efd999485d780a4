import * as v from 'valibot';
import { COMPANY_LEAD_DOCUMENTED, CsvMapping, PEOPLE_LEAD_DOCUMENTED } from '../../domain/leads/import-schemas';
import { closed, documentedAs, readLater, typedName, unknownFieldOf } from '../../domain/validation';
import { LIMITS, SEARCH_TYPES } from '../../domain/leads/lead';
import { LIST_FILTERS, SORT_FIELDS } from '../../domain/leads/list-query';
import { Count, Id, PageNumber, RowNumber, defineRoute, idParam, queryText } from './define';
import { CompanyView, LeadListView, ProspectView } from './lead-views';

/** A field it does not know is a 400 naming it: a misspelt `searchType: COMPANY` made a PEOPLE list (probe, 2026-11-28). */
export const CreateLeadListBody = closed({
  name: typedName(LIMITS.maxListNameLength, { empty: 'name is required', tooLong: `name must be at most ${LIMITS.maxListNameLength} characters` }),
  search_type: v.nullish(v.picklist(SEARCH_TYPES, "search_type must be either 'PEOPLE' or 'COMPANY'"), 'PEOPLE'),
  // A list's description is an empty string in every listing (the contract): an empty one is
  // taken, as clients that fill in every field of the resource send it; text would be lost, so it is refused.
  description: v.nullish(
    v.pipe(
      v.string('description must be a string'),
      v.check((text) => text.trim() === '', 'description must be empty: a lead list has no description (it is an empty string in every listing)'),
      v.description('Always empty (a lead list has no description): an empty string or null is taken, text is refused.'),
    ),
  ),
}, unknownFieldOf('a lead list'));

/** Ids as a JSON array, numeric strings or one comma-separated string; checked by `idList`. */
const DOCUMENTED_IDS = { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: LIMITS.maxIdsPerRequest };
/**
 * The ids of an add-leads or delete-leads request; a field it does not know is a 400 naming it (a
 * delete-leads with `dry_run: true` archived its prospects: probe, 2026-11-29).
 */
const leadIdsBody = (body: string) =>
  closed(
    {
      prospect_ids: readLater(DOCUMENTED_IDS, 'The prospects, for a PEOPLE list (required there).'),
      company_ids: readLater(DOCUMENTED_IDS, 'The companies, for a COMPANY list (required there).'),
    },
    unknownFieldOf(body),
  );
export const AddLeadsBody = leadIdsBody('an add-leads request');
export const DeleteLeadsBody = leadIdsBody('a delete-leads request');

export const ImportBody = documentedAs(
  // A misspelt field is named (`maping` was ignored, and every row then read without the mapping).
  closed({
    leads: v.optional(
      v.pipe(
        v.array(v.unknown(), 'leads must be an array of lead objects'),
        v.metadata({ items: { anyOf: [PEOPLE_LEAD_DOCUMENTED, COMPANY_LEAD_DOCUMENTED] }, maxItems: LIMITS.maxImportRows }),
        v.description('The leads as JSON: people for a PEOPLE list, companies for a COMPANY list. Give this or `csv`.'),
      ),
    ),
    csv: v.optional(v.string('csv must be a string holding the CSV text')),
    // Keys kept exactly as sent (a column may be named `constructor`): see CsvMapping.
    mapping: v.optional(CsvMapping),
  }, unknownFieldOf('a lead list import')),
  { anyOf: [{ required: ['leads'] }, { required: ['csv'] }] },
);

export const ListLeadListsQuery = v.object({
  q: v.optional(v.string()),
  search: v.optional(v.string()),
});

/**
 * List-leads query as documented: paging and sorting; every other parameter is a filter on a
 * field of the list's type (docs/lead-lists.md), checked against the list once it is read.
 */
/** Every filter of list-leads, documented as a parameter (the list's type says which apply: a 400 names the others). */
const filterParams = Object.fromEntries(
  [...new Set([...LIST_FILTERS.PEOPLE, ...LIST_FILTERS.COMPANY])].map((filter) => {
    const of = [LIST_FILTERS.PEOPLE.includes(filter as never) ? 'PEOPLE' : '', LIST_FILTERS.COMPANY.includes(filter as never) ? 'COMPANY' : ''].filter(Boolean);
    return [filter, queryText({ type: 'string' }, `Leads whose ${filter} contains this text, case-insensitive (${of.join(' and ')} lists; repeated: any of the values).`)];
  }),
);

/** The query of list-leads and of the enrichment count: filters and sorting (docs/lead-lists.md). */
export const LeadsSelectionQuery = {
  sort_field: queryText(
    { type: 'string', enum: [...new Set([...SORT_FIELDS.PEOPLE, ...SORT_FIELDS.COMPANY])], default: 'id' },
    'The order: a field of the list’s type (PEOPLE: first_name, last_name, job_title, location, created_at; COMPANY: name, industry, location, amount_of_employees, revenue), or id.',
  ),
  sort_direction: queryText({ type: 'string', enum: ['asc', 'desc'], default: 'asc' }, 'asc (default) or desc.'),
  ...filterParams,
};

export const ListLeadsQuery = v.looseObject({
  page: queryText({ type: 'integer', minimum: 1, default: 1 }, 'The page, from 1.'),
  page_size: queryText({ type: 'integer', minimum: 1, maximum: LIMITS.maxPageSize, default: LIMITS.defaultPageSize }, 'Leads a page.'),
  ...LeadsSelectionQuery,
});

const listPath = v.object({ id: idParam('Lead list not found') });
const SkippedId = v.strictObject({
  id: Id,
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
    request: { path: listPath, body: AddLeadsBody },
    responses: { 200: membershipAnswer('added') },
    errors: [404],
  }),
  deleteLeads: defineRoute('leadLists', {
    method: 'DELETE',
    path: '/public/lead-lists/{id}/delete-leads',
    auth: 'apiKey',
    summary: 'Archives prospects (they leave all their lists) or removes companies from the list.',
    request: { path: listPath, body: DeleteLeadsBody },
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
        skipped_rows: v.array(v.strictObject({ row: RowNumber, reason: v.string() })),
        leads: v.array(v.strictObject({ row: RowNumber, id: Id, status: v.picklist(['created', 'updated']) })),
        total_prospects: Count,
      }),
    },
    errors: [404],
    // Imports carry up to 1000 rows (a CSV of that size is well under 4 MB).
    maxBodyBytes: 4 * 1024 * 1024,
  }),
};
