import type { Clock } from '../../time/clock';
import type { CampaignProspect } from './campaign-prospect';
import type { ActionStore } from '../engine/ports';
import type { CampaignRepository } from './ports';

/** The prospects of a campaign that wait for it to run (WAITING or QUEUED; see campaign-prospect.ts). */
export interface WaitingProspects {
  /** Up to `limit` of them, in prospect id order. */
  page(campaignId: number, limit: number): Promise<CampaignProspect[]>;
  /**
   * Schedules one at `nextActionAt` on `nodeId`, if it still waits (a prospect moved or removed
   * meanwhile is left alone); false when it no longer waited.
   */
  schedule(prospect: CampaignProspect, nodeId: number | null, nextActionAt: string): Promise<boolean>;
}

/** One unit of the sweep: the campaign whose waiting prospects to schedule. */
export interface SchedulingMessage {
  campaign_id: number;
  workspace_id: number;
}

export interface SchedulingSweepDeps {
  campaigns: Pick<CampaignRepository, 'get'>;
  waiting: WaitingProspects;
  /** The engine's actions parked while the campaign was not ACTIVE (paused): due again on resume. */
  parked: Pick<ActionStore, 'parkedForCampaign' | 'replace'>;
  clock: Clock;
  /** Prospects scheduled per message; the sweep sends itself another message while more wait. */
  pageSize: number;
}

/**
 * Schedules the prospects a campaign was holding back, a page per message, when it becomes
 * ACTIVE, then makes due again the actions the engine parked while it was paused. Idempotent: a prospect is scheduled only while it still waits (a conditional write), so a
 * message handled twice schedules nobody twice. A campaign no longer ACTIVE stops the sweep: its
 * prospects keep waiting for the next activation.
 */
export function createSchedulingSweep(deps: SchedulingSweepDeps) {
  return {
    /** 'more' when prospects may still wait (send the message again), 'done' otherwise. */
    async run(message: SchedulingMessage): Promise<'done' | 'more'> {
      const campaign = await deps.campaigns.get(message.workspace_id, message.campaign_id);
      if (campaign?.status !== 'ACTIVE') return 'done';
      const now = deps.clock.now().toISOString();
      const page = await deps.waiting.page(campaign.id, deps.pageSize);
      await Promise.all(page.map((prospect) => deps.waiting.schedule(prospect, prospect.nodeId ?? campaign.flow.root, now)));
      if (page.length === deps.pageSize) return 'more';
      // Then the actions that were due while it was paused: due now (a replaced one was moved on meanwhile).
      const parked = await deps.parked.parkedForCampaign(campaign.id, deps.pageSize - page.length);
      await Promise.all(
        parked.map((action) => deps.parked.replace(action, { ...action, dueAt: now, parked: null, reservation: null, version: action.version + 1, updatedAt: now })),
      );
      return page.length + parked.length < deps.pageSize ? 'done' : 'more';
    },
  };
}

export type SchedulingSweep = ReturnType<typeof createSchedulingSweep>;
