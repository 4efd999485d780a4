import type { Clock } from '../../time/clock';
import type { CampaignRepository } from './ports';

export interface CampaignCompletionDeps {
  campaigns: Pick<CampaignRepository, 'get' | 'setStatus'>;
  /** Whether any of the campaign's prospects is still IN_REVIEW or IN_PROGRESS (strongly consistent). */
  prospects: { hasUnfinished(campaignId: number): Promise<boolean> };
  clock: Clock;
  /**
   * Hands a check that failed to be asked again later (the campaign-scheduling queue, whose
   * consumer retries it until it succeeds). Given to callers whose own retry would not ask again:
   * a request that moved, removed or archived prospects has written its change, and sent again it
   * finds them gone and no campaign left. Without it, the error is thrown.
   */
  retryLater?: (workspaceId: number, campaignId: number) => Promise<void>;
}

/**
 * Asked after prospects left campaigns unfinished (removed, moved to another campaign, archived):
 * an ACTIVE campaign that still has prospects and whose prospects have all finished becomes
 * COMPLETED, as when the engine ends a sequence; the one that left may have been the last one
 * running. An ACTIVE campaign left without prospects stays ACTIVE (it has nothing it finished).
 */
export async function completeCampaignsLeft(deps: CampaignCompletionDeps, workspaceId: number, campaignIds: Iterable<number>): Promise<void> {
  for (const campaignId of new Set(campaignIds)) {
    try {
      await completeIfFinished(deps, workspaceId, campaignId);
    } catch (error) {
      if (!deps.retryLater) throw error;
      // The change that asked is written: the check is what is left, and it converges on the queue.
      // Only when it cannot be handed over either does the caller see the error.
      await deps.retryLater(workspaceId, campaignId).catch(() => {
        throw error;
      });
    }
  }
}

/**
 * The one completion check, whoever asks (a request whose prospects left, the engine at the end of a
 * sender batch, a stopped sequence): the campaign read strongly, ACTIVE with prospects, none of them
 * unfinished, and its status written only if its prospect count is still the one read, so a
 * prospect added between the check and the write (counted in the add's transaction) keeps it
 * ACTIVE. Before 2026-11-28 the engine and the sequence stop wrote it without that condition, from
 * the count they had: an add-to-campaign committed in between left its new prospects scheduled in a
 * COMPLETED campaign, never contacted (a race probe), and a campaign emptied by moves completed.
 */
export async function completeIfFinished(deps: Pick<CampaignCompletionDeps, 'campaigns' | 'prospects' | 'clock'>, workspaceId: number, campaignId: number): Promise<void> {
  const campaign = await deps.campaigns.get(workspaceId, campaignId);
  if (campaign?.status === 'ACTIVE' && campaign.prospectCount > 0 && !(await deps.prospects.hasUnfinished(campaignId))) {
    // Only if no prospect entered since the campaign was read: one added meanwhile (an
    // add-to-campaign committed between the read and this write) is not finished.
    await deps.campaigns.setStatus(campaign, 'ACTIVE', 'COMPLETED', deps.clock.now().toISOString(), { prospectCount: campaign.prospectCount });
  }
}
