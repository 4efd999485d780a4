import * as v from 'valibot';
import { LEDGER_PAGE } from '../../domain/credits/credits';
import { ENRICHMENT_LIMITS, ENRICHMENT_TYPES } from '../../domain/enrichment/enrichment';
import { PEOPLE_FILTERS_DOCUMENTED, SORT_FIELDS } from '../../domain/leads/list-query';
import { closed, readLater, unknownFieldOf } from '../../domain/validation';
import { Count, Id, Timestamp, defineRoute, idParam, queryText } from './define';
import { LeadsSelectionQuery } from './lead-lists';

/** Spec: enrichment count and enrichment (lead lists), plus credits and enrichment jobs (docs/enrichment.md). */

const LedgerEntryView = v.strictObject({
  id: Id,
  type: v.picklist(['grant', 'debit', 'refund']),
  amount: v.pipe(v.number(), v.integer()),
  reason: v.string(),
  job_id: v.nullable(Id),
  created_at: Timestamp,
});

const EnrichmentTypeView = v.picklist(ENRICHMENT_TYPES);

export const JobView = v.strictObject({
  id: Id,
  list_id: Id,
  enrichment_type: EnrichmentTypeView,
  mode: v.picklist(['async', 'sync']),
  status: v.picklist(['RUNNING', 'COMPLETED']),
  total_count: Count,
  queued_count: Count,
  found_count: Count,
  not_found_count: Count,
  duplicate_count: Count,
  failed_count: Count,
  /** Not for the job to search or charge any more (archived, gone, or given the value meanwhile): refunded. */
  skipped_count: Count,
  credits_charged: Count,
  credits_refunded: Count,
  webhook_url: v.nullable(v.string()),
  created_at: Timestamp,
  completed_at: v.nullable(Timestamp),
});

const ResultView = v.strictObject({
  id: Id,
  first_name: v.string(),
  last_name: v.string(),
  success: v.boolean(),
  status: v.picklist(['found', 'not_found', 'duplicate', 'failed', 'skipped']),
  // One of the two, by the enrichment type: the value found, null otherwise.
  email: v.optional(v.pipe(v.nullable(v.string()), v.description('FIND_EMAIL and FIND_EMAIL_WATERFALL: the address found (null when none).'))),
  phone_number: v.optional(v.pipe(v.nullable(v.string()), v.description('FIND_PHONE: the number found (null when none).'))),
  verification_status: v.nullable(v.picklist(['verified', 'risky'])),
  provider: v.nullable(v.string()),
  duplicate_of: v.optional(Id),
});

/**
 * Body fields as the real product names them; checked by the service (exact messages). A field it
 * does not know is a 400 naming it: a misspelt `enrichment_typ` would otherwise start (and charge)
 * the default FIND_EMAIL (a probe, 2026-11-28).
 */
export const EnrichmentBody = closed({
  enrichment_type: readLater({ type: 'string', enum: [...ENRICHMENT_TYPES], default: 'FIND_EMAIL' }, 'What to find.'),
  prospect_limit: readLater(
    { type: 'integer', minimum: 1, maximum: ENRICHMENT_LIMITS.maxAsyncLimit },
    `At most this many prospects: ${ENRICHMENT_LIMITS.defaultAsyncLimit} by default in async mode, ${ENRICHMENT_LIMITS.maxSyncLimit} at most (and by default) in sync mode.`,
  ),
  mode: readLater({ type: 'string', enum: ['async', 'sync'], default: 'async' }, 'async: a job, results by webhook and job status; sync: results in the answer.'),
  webhook_url: readLater({ type: 'string', format: 'uri' }, 'Where the job’s completion is posted (async mode).'),
  filters: readLater(PEOPLE_FILTERS_DOCUMENTED, 'The list-leads filters: filter name -> value or values.'),
  sort_field: readLater({ type: 'string', enum: [...SORT_FIELDS.PEOPLE], default: 'id' }, 'Which prospects go first.'),
  sort_direction: readLater({ type: 'string', enum: ['asc', 'desc'], default: 'asc' }, 'asc (default) or desc.'),
}, unknownFieldOf('the enrichment request'));

const listPath = v.object({ id: idParam('Lead list not found') });

export const enrichmentRoutes = {
  getCredits: defineRoute('enrichment', {
    method: 'GET',
    path: '/public/credits',
    auth: 'apiKey',
    summary: "The workspace's credit balance and its ledger, newest first, with a cursor.",
    request: {
      query: v.object({
        page_size: v.optional(
          v.pipe(
            v.string(),
            v.regex(/^\d{1,3}$/, `page_size must be an integer between 1 and ${LEDGER_PAGE.max}`),
            v.metadata({ type: 'integer', minimum: 1, maximum: LEDGER_PAGE.max, default: LEDGER_PAGE.default, pattern: undefined }),
            v.transform(Number),
            v.minValue(1, `page_size must be an integer between 1 and ${LEDGER_PAGE.max}`),
            v.maxValue(LEDGER_PAGE.max, `page_size must be an integer between 1 and ${LEDGER_PAGE.max}`),
          ),
        ),
        cursor: v.optional(v.string()),
      }),
    },
    responses: {
      200: v.strictObject({ success: v.literal(true), balance: Count, ledger: v.array(LedgerEntryView), next_cursor: v.nullable(v.string()) }),
    },
  }),
  countEnrichment: defineRoute('enrichment', {
    method: 'GET',
    path: '/public/lead-lists/{id}/enrichment/count',
    auth: 'apiKey',
    summary: 'How many prospects an enrichment would process and what it would cost; filters and sort as list-leads.',
    request: {
      path: listPath,
      query: v.looseObject({
        enrichment_type: queryText({ type: 'string', enum: [...ENRICHMENT_TYPES], default: 'FIND_EMAIL' }, 'What an enrichment would find.'),
        ...LeadsSelectionQuery,
      }),
    },
    responses: {
      200: v.strictObject({
        success: v.literal(true),
        enrichment_type: EnrichmentTypeView,
        unenriched_count: Count,
        cost_per_lead: Count,
        total_cost: Count,
        available_credits: Count,
        has_enough_credits: v.boolean(),
      }),
    },
    errors: [404],
  }),
  startEnrichment: defineRoute('enrichment', {
    method: 'POST',
    path: '/public/lead-lists/{id}/enrichment',
    auth: 'apiKey',
    summary: 'Enriches emails or phones of a PEOPLE list: credits deducted up front, async (a job) or sync (up to 25, results inline).',
    request: { path: listPath, body: EnrichmentBody },
    responses: {
      200: v.union([
        v.strictObject({
          success: v.literal(true),
          mode: v.literal('async'),
          enrichment_type: EnrichmentTypeView,
          enriched_count: Count,
          credits_deducted: Count,
          remaining_credits: Count,
          webhook_url: v.nullable(v.string()),
          message: v.string(),
          job_id: v.nullable(Id),
        }),
        v.strictObject({
          success: v.literal(true),
          mode: v.literal('sync'),
          enrichment_type: EnrichmentTypeView,
          total_count: Count,
          success_count: Count,
          credits_deducted: Count,
          remaining_credits: Count,
          results: v.array(ResultView),
        }),
      ]),
    },
    // 409: another start in the workspace has held the start lease for more than ~10 s (a crashed start, until its lease lapses).
    errors: [404, 409],
  }),
  getEnrichmentJob: defineRoute('enrichment', {
    method: 'GET',
    path: '/public/enrichment-jobs/{job_id}',
    auth: 'apiKey',
    summary: "An enrichment job's status, counts and credits.",
    request: { path: v.object({ job_id: idParam('Enrichment job not found') }) },
    responses: { 200: v.strictObject({ success: v.literal(true), job: JobView }) },
    errors: [404],
  }),
};
