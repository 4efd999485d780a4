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
  /** The page's prospects whose first action is carried by their campaign prospect (not written as an action yet). */
  firstActionPending: Set<number>;
  /** The id to continue after; absent at the end. */
  lastId?: number;
}

/** A campaign's prospects as stored beside it (written only with their prospects: LeadChange.campaign). */
/** Where the engine has a prospect's sequence: the node its action is at and when it is due (null while parked or being sent). */
export interface ActionPosition {
  nodeId: number | null;
  dueAt: string | null;
  /** Why its last attempt failed while it is retried (null when it has not failed). */
  lastError: string | null;
  /** Nothing carried out or decided yet: the engine starts it at the flow's root as it is now, whatever `nodeId` says. */
  atEntry?: boolean;
}

export interface CampaignProspects {
  page(campaignId: number, query: CampaignProspectPageQuery): Promise<CampaignProspectPage>;
  /** Whether any prospect of the campaign is still IN_REVIEW or IN_PROGRESS (strongly consistent). */
  hasUnfinished(campaignId: number): Promise<boolean>;
  /** The action positions of the named prospects (those without an action item are absent). */
  actionsOf(campaignId: number, prospectIds: number[]): Promise<Map<number, ActionPosition>>;
}
