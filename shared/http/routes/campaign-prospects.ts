import * as v from 'valibot';
import { AddToCampaignBody, CampaignImportBody, CampaignProspectsQuery, RemoveProspectsBody } from '../../domain/campaigns/move-input';
import { CAMPAIGN_NOT_FOUND } from '../../domain/campaigns/lookup';
import { Count, Id, Timestamp, defineRoute, idParam } from './define';
import { ProspectView } from './lead-views';

/** A prospect as add-to-campaign answers it: its company carries id, name, website_url and industry (spec: Prospect). */
export const MovedProspectView = v.strictObject({
  ...ProspectView.entries,
  campaign_id: Id,
  company: v.nullable(v.strictObject({ id: Id, name: v.string(), website_url: v.string(), industry: v.string() })),
});

/** A prospect on a campaign's prospects page: the prospect with where its outreach stands. */
export const CampaignProspectView = v.strictObject({
  ...ProspectView.entries,
  campaign_id: Id,
  /** The flow node the prospect is at (a deleted node resolved to the one that replaced it); null when none. */
  current_step_id: v.nullable(Id),
  /** When its next action is due; null while it waits for the campaign to run. */
  next_action_at: v.nullable(Timestamp),
  last_error: v.nullable(v.string()),
});

const SKIP_REASONS = ['not_in_list', 'already_in_campaign', 'in_other_campaign', 'company_limit', 'concurrent_change', 'answer_full'] as const;

const listPath = v.object({ id: idParam('Lead list not found') });
const campaignPath = v.object({ id: idParam(CAMPAIGN_NOT_FOUND) });

/** Moving prospects into and out of campaigns (docs/campaigns.md, "Moving prospects into campaigns"). API key. */
export const campaignProspectRoutes = {
  addToCampaign: defineRoute('campaignProspects', {
    method: 'POST',
    path: '/public/lead-lists/{id}/add-to-campaign',
    auth: 'apiKey',
    summary:
      'Moves prospects of a people list into a campaign (out of the campaign they were in): named ones, or `amount` of the matching ones; at most 1,000 a request (`has_more` says when more match).',
    request: { path: listPath, body: AddToCampaignBody },
    responses: {
      200: v.strictObject({
        success: v.literal(true),
        count: Count,
        prospects: v.array(MovedProspectView),
        has_more: v.boolean(),
        skipped: v.array(v.strictObject({ id: Id, reason: v.picklist(SKIP_REASONS) })),
        warning: v.optional(v.string()),
      }),
    },
    errors: [404, 409],
  }),
  importToCampaign: defineRoute('campaignProspects', {
    method: 'POST',
    path: '/public/campaigns/{id}/import',
    auth: 'apiKey',
    summary: 'Imports up to 1,000 prospects into a campaign, normalised and matched like a list import (an existing prospect is moved, not duplicated).',
    request: { path: campaignPath, body: CampaignImportBody },
    responses: {
      200: v.strictObject({
        success: v.literal(true),
        count: Count,
        created: Count,
        updated: Count,
        skipped: v.array(v.strictObject({ index: v.pipe(v.number(), v.integer(), v.minValue(1)), reason: v.string() })),
        warning: v.optional(v.string()),
      }),
    },
    errors: [404, 409],
    // As the list import: up to 1000 rows.
    maxBodyBytes: 4 * 1024 * 1024,
  }),
  listCampaignProspects: defineRoute('campaignProspects', {
    method: 'GET',
    path: '/public/campaigns/{id}/prospects',
    auth: 'apiKey',
    summary: 'A page of 100 of the campaign’s prospects in id order, optionally of one status; `next_cursor` continues.',
    request: { path: campaignPath, query: CampaignProspectsQuery },
    responses: {
      200: v.strictObject({ success: v.literal(true), prospects: v.array(CampaignProspectView), next_cursor: v.nullable(v.string()) }),
    },
    errors: [404],
  }),
  removeCampaignProspects: defineRoute('campaignProspects', {
    method: 'POST',
    path: '/public/campaigns/{id}/remove-prospects',
    auth: 'apiKey',
    summary: 'Takes prospects out of the campaign (their pending actions cancelled); they stay in their lead lists, status NEW.',
    request: { path: campaignPath, body: RemoveProspectsBody },
    responses: { 200: v.strictObject({ success: v.literal(true), count: Count }) },
    errors: [404, 409],
  }),
};
