import { resultBytesOf } from '../answer-budget';
import { validationError } from '../errors';
import { type Company, type Prospect, toCompanySummary, toProspectView } from '../leads/lead';
import type { LeadWriterDeps } from '../leads/lead-rounds';
import type { LeadWriter } from '../leads/lead-writer';
import type { ListFilter, SortDirection } from '../leads/list-query';
import type { DigestChunk } from '../leads/member-digest';
import type { LeadListRepository } from '../leads/ports';
import { type CampaignStatus, PROSPECT_STATUSES, type ProspectStatus } from './campaign';
import type { ScheduleState } from './campaign-prospect';
import type { RequestLeases } from '../request-leases';
import type { CampaignRepository, CampaignScheduling } from './ports';
import type { CampaignProspects } from './prospect-ports';
import type { MoveSkipReason } from './selection';

/**
 * What moving prospects into campaigns takes and answers: limits, messages, inputs and results,
 * where an added prospect stands, its API shape and the prospects page's cursor. The service is
 * prospect-moves.ts.
 */

export { CAMPAIGN_NOT_FOUND } from './lookup';
/** Prospects one request moves at most (add-to-campaign, campaign import). */
export const MAX_MOVES_PER_REQUEST = 1000;
/** Prospects on one page of a campaign's prospects. */
export const CAMPAIGN_PROSPECTS_PAGE_SIZE = 100;

export const PEOPLE_ONLY = 'add-to-campaign is only available for people lists';

/** The warning of a request that asked to activate prospects the campaign cannot run yet. */
export const notRunningWarning = (status: CampaignStatus) =>
  `Campaign is in ${status}: prospects were added but not scheduled; activate the campaign to start outreach`;

export interface DigestReader {
  /** The list's member digest chunks (strongly consistent). */
  chunks(listId: number): Promise<DigestChunk[]>;
}

export interface ProspectMoveDeps extends LeadWriterDeps {
  campaigns: Pick<CampaignRepository, 'get' | 'setStatus' | 'listForWorkspace'>;
  campaignProspects: CampaignProspects;
  lists: Pick<LeadListRepository, 'get'>;
  digests: DigestReader;
  writer: LeadWriter;
  /** Schedules the prospects waiting in a campaign that a move made ACTIVE again (from COMPLETED). */
  scheduling: CampaignScheduling;
  /** Adds from one list into one campaign take turns on a lease (its per-company limit is counted exactly). */
  leases: RequestLeases;
  /** The prospects that running enrichment jobs of these lists hold (shown as 'Loading…', docs/enrichment.md). */
  enriching?: (workspaceId: number, listIds: readonly number[]) => Promise<Set<number>>;
}

export interface AddToCampaignInput {
  campaignId: number;
  /** Explicit prospects, in the order given (repeats removed); otherwise `amount` picks from the list. */
  prospectIds?: number[];
  /** 0: every matching prospect (at most MAX_MOVES_PER_REQUEST a request). */
  amount: number;
  allowDuplicates: boolean;
  perCompany: number;
  filters: ListFilter[];
  sortField: string;
  direction: SortDirection;
  activate: boolean;
}

/** A moved prospect: the prospect as written and its company. */
export interface MovedProspect {
  prospect: Prospect;
  company: Company | undefined;
}

export interface AddToCampaignResult {
  moved: MovedProspect[];
  skipped: { id: number; reason: MoveSkipReason }[];
  hasMore: boolean;
  warning?: string;
}

export interface CampaignImportResult {
  count: number;
  created: number;
  updated: number;
  skipped: { index: number; reason: string }[];
  warning?: string;
}

/** Where a prospect added now stands, by the campaign's status and the request's `activate`. */
export function placement(status: CampaignStatus, activate: boolean): { schedule: ScheduleState; warning?: string } {
  if (!activate) return { schedule: 'WAITING' };
  if (status === 'ACTIVE') return { schedule: 'SCHEDULED' };
  if (status === 'PAUSED') return { schedule: 'QUEUED' };
  return { schedule: 'WAITING', warning: notRunningWarning(status) };
}

/** A prospect as add-to-campaign answers it: the prospect view with the company's id, name, website and industry. */
export function toMovedProspectView({ prospect, company }: MovedProspect) {
  const summary = company ? toCompanySummary(company) : undefined;
  return {
    ...toProspectView(prospect, company),
    company: summary ? { id: summary.id, name: summary.name, website_url: summary.website_url, industry: summary.industry } : null,
  };
}

/**
 * What a prospect's view adds to add-to-campaign's answer once moved, with room for its new status
 * and campaign_id. 1,000 prospects with large custom fields passed Lambda's 6 MB, and the request
 * failed (502) after its moves were written: choosing stops at MAX_ANSWER_VIEW_BYTES
 * (docs/campaigns.md, "has_more").
 */
export const answerBytesOf = (moved: MovedProspect): number => resultBytesOf(toMovedProspectView(moved)) + 64;

/** The opaque cursor of a campaign's prospects page: the campaign, the status filter and the last id shown. */
export function encodeProspectsCursor(campaignId: number, status: ProspectStatus | undefined, lastId: number): string {
  return Buffer.from(JSON.stringify({ c: campaignId, s: status ?? null, a: lastId })).toString('base64url');
}

export const INVALID_CURSOR = 'cursor is not valid for this listing';

export function decodeProspectsCursor(cursor: string, campaignId: number, status: ProspectStatus | undefined): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw validationError(INVALID_CURSOR);
  }
  const { c, s, a } = (parsed ?? {}) as { c?: unknown; s?: unknown; a?: unknown };
  if (c !== campaignId || s !== (status ?? null) || typeof a !== 'number' || !Number.isSafeInteger(a) || a < 1) throw validationError(INVALID_CURSOR);
  return a;
}

export const STATUS_MESSAGE = `status must be one of: ${PROSPECT_STATUSES.join(', ')}`;

export const URL_REQUIRED = 'network_profile_url is required';
