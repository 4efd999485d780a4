import { notFound } from '../errors';
import type { Campaign } from './campaign';
import type { CampaignWithFlow } from './nodes';
import type { CampaignRepository } from './ports';

/** The answer for an unknown campaign and for another workspace's (the same, so ids reveal nothing). */
export const CAMPAIGN_NOT_FOUND = 'Campaign not found';

/** The campaign if it belongs to the workspace, else a 404. */
export async function requireCampaign(campaigns: Pick<CampaignRepository, 'get'>, workspaceId: number, campaignId: number): Promise<Campaign> {
  const campaign = await campaigns.get(workspaceId, campaignId);
  if (!campaign) throw notFound(CAMPAIGN_NOT_FOUND);
  return campaign;
}

/** The campaign with its whole flow if it belongs to the workspace, else a 404. */
export async function requireCampaignWithFlow(
  campaigns: Pick<CampaignRepository, 'getWithFlow'>,
  workspaceId: number,
  campaignId: number,
): Promise<CampaignWithFlow> {
  const found = await campaigns.getWithFlow(workspaceId, campaignId);
  if (!found) throw notFound(CAMPAIGN_NOT_FOUND);
  return found;
}
