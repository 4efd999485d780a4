import type { ProspectStatus } from './campaign';

/**
 * Where a prospect's outreach in a campaign stands, beside the campaign's other prospects
 * (shared/db/keys.ts `campaignProspectKey`):
 * - WAITING: added without activation, or while the campaign was DRAFT; activating the campaign
 *   schedules it.
 * - QUEUED: added with `activate: true` while the campaign was PAUSED: its first action is
 *   created (`nodeId`), scheduled when the campaign resumes.
 * - SCHEDULED: its next action is due at `nextActionAt` (in the due-time index).
 */
export type ScheduleState = 'WAITING' | 'QUEUED' | 'SCHEDULED';

export interface CampaignProspect {
  campaignId: number;
  prospectId: number;
  workspaceId: number;
  /** Mirrors the prospect's status (written in the same transaction). */
  status: ProspectStatus;
  /** The flow node it is at; a deleted node resolves through the flow's redirects; null when finished or the flow was empty. */
  nodeId: number | null;
  schedule: ScheduleState;
  /** When its next action is due (SCHEDULED only). */
  nextActionAt: string | null;
  /** The last failure of an action, for the prospects page. */
  lastError: string | null;
  /** The prospect's company, for `prospects_per_company`. */
  companyId: number | null;
  addedAt: string;
  updatedAt: string;
}
