import * as v from 'valibot';
import { validationError } from '../errors';
import { CAMPAIGN_LEAD_DOCUMENTED } from '../leads/import-schemas';
import { LIMITS } from '../leads/lead';
import { leadsQueryOfBody } from '../leads/body-query';
import { PEOPLE_FILTERS_DOCUMENTED, SORT_FIELDS } from '../leads/list-query';
import { closed, documentedAs, idList, readLater, unknownFieldOf } from '../validation';
import { PROSPECT_STATUSES } from './campaign';
import type { AddToCampaignInput } from './prospect-moves';

/**
 * The bodies of add-to-campaign and remove-prospects, read with the texts of their 400 answers
 * (docs/campaigns.md). The route schemas take each field as sent; these functions check them in
 * the order the fields are listed, so a body with several problems gets one stable answer.
 */

export const MISSING_CAMPAIGN = 'Missing required fields: campaign, prospect_ids';

const ID_TEXT = /^\s*\d{1,16}\s*$/;

/** A positive integer id, as a number or as digits. */
function idOf(value: unknown): number | undefined {
  const id = typeof value === 'string' && ID_TEXT.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** An id list as add-leads reads it (idList), of at most LIMITS.maxIdsPerRequest ids. Undefined when absent or null. */
export function readIds(value: unknown, field: string): number[] | undefined {
  const ids = idList(value, field);
  if (ids && ids.length > LIMITS.maxIdsPerRequest) throw validationError(`${field} may hold at most ${LIMITS.maxIdsPerRequest} ids`);
  return ids;
}

function integerAtLeast(value: unknown, field: string, min: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw validationError(`${field} must be an integer of at least ${min}`);
  // An integer past 2^53 is no count anyone means (it was told it was no integer).
  if (!Number.isSafeInteger(value)) throw validationError(`${field} must be at most ${Number.MAX_SAFE_INTEGER}`);
  return value;
}

function booleanOf(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw validationError(`${field} must be true or false`);
  return value;
}

/**
 * A field these bodies do not know is a 400 naming it, not ignored: a misspelt `prospect_ids`
 * would otherwise move every match of the list.
 */

/** The documented forms (JSON Schema) of fields several bodies share. */
const ID_ARRAY = { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: LIMITS.maxIdsPerRequest };

/** add-to-campaign's body as sent: every field optional here, checked by readAddToCampaign. */
export const AddToCampaignBody = documentedAs(
  closed(
    {
      campaign: readLater({ type: 'integer', minimum: 1 }, 'The target campaign id (required).'),
      prospect_ids: readLater({ ...ID_ARRAY, default: [] }, 'Prospects of the list to move; when absent or empty, `amount` picks them.'),
      amount: readLater({ type: 'integer', minimum: 0, default: 0 }, 'How many matching prospects to move; 0 (default): all, at most 1000 a request.'),
      allow_duplicates: readLater({ type: 'boolean', default: false }, 'false (default): skip prospects already in another campaign.'),
      prospects_per_company: readLater({ type: 'integer', minimum: 1, default: 1 }, 'At most this many of the campaign’s prospects from this list per company (default 1).'),
      filters: readLater({ ...PEOPLE_FILTERS_DOCUMENTED, default: {} }, 'The list-leads filters: filter name -> value or values.'),
      sort_field: readLater({ type: 'string', enum: [...SORT_FIELDS.PEOPLE], default: 'id' }, 'Which prospects `amount` takes first: a list-leads sort field (default id).'),
      sort_direction: readLater({ type: 'string', enum: ['asc', 'desc'], default: 'asc' }, 'asc (default) or desc.'),
      activate: readLater({ type: 'boolean', default: false }, 'true: schedule the prospects (ACTIVE campaign) or queue them (PAUSED).'),
    },
    unknownFieldOf('add-to-campaign'),
  ),
  { required: ['campaign'] },
);

/** add-to-campaign's body, or a 400 naming its first problem. */
export function readAddToCampaign(body: v.InferOutput<typeof AddToCampaignBody>): AddToCampaignInput {
  if (body.campaign === undefined || body.campaign === null || body.campaign === '') throw validationError(MISSING_CAMPAIGN);
  const campaignId = idOf(body.campaign);
  if (campaignId === undefined) throw validationError('campaign must be an integer id');
  const prospectIds = readIds(body.prospect_ids, 'prospect_ids');
  const amount = integerAtLeast(body.amount, 'amount', 0, 0);
  const allowDuplicates = booleanOf(body.allow_duplicates, 'allow_duplicates');
  const perCompany = integerAtLeast(body.prospects_per_company, 'prospects_per_company', 1, 1);

  // Filters and sorting are the list-leads query's, with its messages.
  const query = leadsQueryOfBody(body);
  const activate = booleanOf(body.activate, 'activate');
  return {
    campaignId,
    ...(prospectIds && prospectIds.length > 0 ? { prospectIds } : {}),
    amount,
    allowDuplicates,
    perCompany,
    filters: query.filters,
    sortField: query.sortField,
    direction: query.direction,
    activate,
  };
}

/** remove-prospects' body as sent. */
export const RemoveProspectsBody = documentedAs(
  closed({ prospect_ids: readLater({ ...ID_ARRAY, minItems: 1 }, 'Prospects to take out of the campaign (at most 1000).') }, unknownFieldOf('remove-prospects')),
  { required: ['prospect_ids'] },
);

export function readRemoveProspects(body: v.InferOutput<typeof RemoveProspectsBody>): number[] {
  const ids = readIds(body.prospect_ids, 'prospect_ids');
  if (ids === undefined) throw validationError('prospect_ids is required');
  if (ids.length === 0) throw validationError('prospect_ids must contain at least one id');
  return ids;
}

/** The campaign import's body: `leads` (checked row by row like a list import's) and `activate`. */
export const CampaignImportBody = documentedAs(
  closed(
    {
      leads: v.optional(
        // null is no leads, as when left out (docs/api.md).
        v.pipe(v.array(v.unknown(), (issue) => (issue.input === null ? 'leads is required' : 'leads must be an array of lead objects')), v.metadata({ items: CAMPAIGN_LEAD_DOCUMENTED, maxItems: LIMITS.maxImportRows })),
      ),
      activate: v.optional(v.boolean('activate must be true or false'), false),
    },
    unknownFieldOf('a campaign import'),
  ),
  { required: ['leads'] },
);

/** The campaign prospects page's query. */
export const CampaignProspectsQuery = v.object({
  // The page answers its own 400 for another value (STATUS_MESSAGE); the document lists them.
  status: v.optional(v.pipe(v.string(), v.metadata({ enum: [...PROSPECT_STATUSES] }), v.description('Only prospects of this status.'))),
  cursor: v.optional(v.pipe(v.string(), v.description('The `next_cursor` of the previous page.'))),
});
