import type { Clock } from '../../time/clock';
import type { CampaignProspect } from './campaign-prospect';
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
  clock: Clock;
  /** Prospects scheduled per message; the sweep sends itself another message while more wait. */
  pageSize: number;
}

/**
 * Schedules the prospects a campaign was holding back, a page per message, when it becomes
 * ACTIVE. Idempotent: a prospect is scheduled only while it still waits (a conditional write), so a
 * message handled twice schedules nobody twice. A campaign no longer ACTIVE stops the sweep: its
 * prospects keep waiting for the next activation.
 */
export function createSchedulingSweep(deps: SchedulingSweepDeps) {
  return {
    /** 'more' when prospects may still wait (send the message again), 'done' otherwise. */
    async run(message: SchedulingMessage): Promise<'done' | 'more'> {
      const campaign = await deps.campaigns.get(message.workspace_id, message.campaign_id);
      if (campaign?.status !== 'ACTIVE') return 'done';
      const page = await deps.waiting.page(campaign.id, deps.pageSize);
      const now = deps.clock.now().toISOString();
      await Promise.all(page.map((prospect) => deps.waiting.schedule(prospect, prospect.nodeId ?? campaign.flow.root, now)));
      return page.length < deps.pageSize ? 'done' : 'more';
    },
  };
}

export type SchedulingSweep = ReturnType<typeof createSchedulingSweep>;
