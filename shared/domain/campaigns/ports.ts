import type { Campaign, CampaignStatus } from './campaign';
import type { FlowStructure } from './flow';
import type { CampaignNode, CampaignWithFlow } from './nodes';

/** What a campaign's settings change writes (the attributes PATCH may set). */
export type CampaignSettingsChange = Partial<
  Pick<
    Campaign,
    'name' | 'timezone' | 'language' | 'emailMaxMessages' | 'networkMaxMessages' | 'networkMaxConnections' | 'sendingWindow' | 'accountIds' | 'stopOnCompanyReply'
  >
>;

/** What a status change also requires of the campaign item as it is written. */
export interface StatusExpectation {
  /** No prospect entered or left since it was read. */
  prospectCount?: number;
  /** The flow is the one that was checked (an activation checks that it can run). */
  flowVersion?: number;
}

/** A change of a flow: its new structure, and the nodes written and deleted with it, in one transaction. */
export interface FlowChange {
  flow: FlowStructure;
  put: CampaignNode[];
  delete: number[];
  /**
   * For existing nodes among `put`: their `updatedAt` as read. Each such put is conditional on it,
   * so a content edit made meanwhile is never overwritten (saveFlow answers false instead).
   */
  expectedUpdatedAt?: Record<number, string>;
}

export interface CampaignRepository {
  /**
   * Stores a new campaign under the first free name of `name`, `name (2)`, `name (3)`, ... in its
   * workspace; answers the campaign as stored (with that name).
   */
  create(campaign: Campaign): Promise<Campaign>;
  /** The campaign if it belongs to the workspace (strongly consistent). */
  get(workspaceId: number, campaignId: number): Promise<Campaign | undefined>;
  /** The campaign with every node of its flow, in one Query. */
  getWithFlow(workspaceId: number, campaignId: number): Promise<CampaignWithFlow | undefined>;
  /** The workspace's campaigns, newest first. */
  listForWorkspace(workspaceId: number): Promise<Campaign[]>;
  /**
   * Changes settings unless the campaign was archived meanwhile (409). A new name is claimed like
   * a created one's (numbered when taken) and the old one released. Answers the campaign as stored.
   */
  updateSettings(campaign: Campaign, change: CampaignSettingsChange, updatedAt: string): Promise<Campaign>;
  /**
   * Takes a deleted account out of the campaign's `account_ids`, conditional on the campaign being
   * as read (`updatedAt`); the campaign as stored after, or undefined when it changed meanwhile.
   */
  detachAccount(campaign: Campaign, accountId: number, updatedAt: string): Promise<Campaign | undefined>;
  /**
   * Moves the status from `from` to `to` (at `updatedAt`; to ACTIVE also sets `activatedAt`); false when
   * it was no longer `from`. ACTIVE to ACTIVE (an activation asked again) sets `activatedAt` alone.
   */
  setStatus(campaign: Campaign, from: CampaignStatus, to: CampaignStatus, updatedAt: string, expect?: StatusExpectation): Promise<boolean>;
  /**
   * Writes a change of the flow's structure with its nodes, conditional on the flow version read
   * and on the campaign still being in a status that allows structure changes; false otherwise.
   */
  saveFlow(campaign: Campaign, change: FlowChange, updatedAt: string): Promise<boolean>;
  /**
   * Writes a node's contents unless the campaign was archived or the node deleted meanwhile, or,
   * given `expectedUpdatedAt`, changed since it was read; false then.
   */
  saveNode(campaign: Campaign, node: CampaignNode, expectedUpdatedAt?: string): Promise<boolean>;
}

/** Starts the scheduling of a campaign's prospects that wait for it to run (after activate/resume). */
export interface CampaignScheduling {
  scheduleWaiting(campaign: Campaign): Promise<void>;
  /** Starts giving the actions waiting on a node the due time its edited delay gives them. */
  retimeNode(campaign: Campaign, nodeId: number): Promise<void>;
  /** Starts making the actions waiting on the campaign's pacing (a cap, the window) due now, after those settings changed. */
  repace(campaign: Campaign): Promise<void>;
  /** Asks the queue's consumer whether the campaign is complete (completion.ts `retryLater`). */
  checkCompletion(workspaceId: number, campaignId: number): Promise<void>;
}
