import type { CampaignProspect } from './campaign-prospect';
import type { ProspectStatus } from './campaign';

export interface CampaignProspectPageQuery {
  /** Only prospects of this status (lsi1); all when absent. */
  status?: ProspectStatus;
  /** Only prospects with a greater id: the last id of the previous page. */
  after?: number;
  limit: number;
}

export interface CampaignProspectPage {
  /** In prospect id order. */
  prospects: CampaignProspect[];
  /** The id to continue after; absent at the end. */
  lastId?: number;
}

/** A campaign's prospects as stored beside it (written only with their prospects: LeadChange.campaign). */
export interface CampaignProspects {
  page(campaignId: number, query: CampaignProspectPageQuery): Promise<CampaignProspectPage>;
}
