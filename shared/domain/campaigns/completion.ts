import type { Clock } from '../../time/clock';
import type { CampaignRepository } from './ports';

export interface CampaignCompletionDeps {
  campaigns: Pick<CampaignRepository, 'get' | 'setStatus'>;
  /** Whether any of the campaign's prospects is still IN_REVIEW or IN_PROGRESS (strongly consistent). */
  prospects: { hasUnfinished(campaignId: number): Promise<boolean> };
  clock: Clock;
}

/**
 * Asked after prospects left campaigns unfinished (removed, moved to another campaign, archived):
 * an ACTIVE campaign that still has prospects and whose prospects have all finished becomes
 * COMPLETED, as when the engine ends a sequence; the one that left may have been the last one
 * running. An ACTIVE campaign left without prospects stays ACTIVE (it has nothing it finished).
 */
export async function completeCampaignsLeft(deps: CampaignCompletionDeps, workspaceId: number, campaignIds: Iterable<number>): Promise<void> {
  for (const campaignId of new Set(campaignIds)) {
    const campaign = await deps.campaigns.get(workspaceId, campaignId);
    if (campaign?.status === 'ACTIVE' && campaign.prospectCount > 0 && !(await deps.prospects.hasUnfinished(campaignId))) {
      // Only if no prospect entered since the campaign was read: one added meanwhile (an
      // add-to-campaign committed between the read and this write) is not finished.
      await deps.campaigns.setStatus(campaign, 'ACTIVE', 'COMPLETED', deps.clock.now().toISOString(), { prospectCount: campaign.prospectCount });
    }
  }
}
