import type { Campaign } from '../campaigns/campaign';
import type { CampaignNode } from '../campaigns/nodes';
import type { Company, Prospect } from '../leads/lead';
import type { SenderAccount } from '../sender-accounts/sender-account';
import type { ActionRef } from './action';
import type { SenderDeps } from './sender-deps';

/**
 * What one batch of the sender reads once and shares between its actions: each campaign with its
 * flow, each workspace's accounts, the batch's prospects (one BatchGet) and their companies.
 */
export interface BatchReads {
  campaign(workspaceId: number, campaignId: number): Promise<{ campaign: Campaign; nodes: Map<number, CampaignNode> } | undefined>;
  accounts(workspaceId: number): Promise<Map<number, SenderAccount>>;
  /** The batch's read of the prospect: eventually consistent (see createSender's process). */
  prospect(id: number): Promise<Prospect | undefined>;
  /** The prospect read now, strongly consistent. */
  prospectNow(id: number): Promise<Prospect | undefined>;
  company(prospect: Prospect): Promise<Company | undefined>;
  /** The campaigns this batch has read. */
  campaignsRead(): Promise<Campaign[]>;
}


export function createBatchReads(deps: Pick<SenderDeps, 'campaigns' | 'accounts' | 'leads'>, refs: ActionRef[]): BatchReads {
  const campaigns = new Map<number, ReturnType<BatchReads['campaign']>>();
  const accounts = new Map<number, Promise<Map<number, SenderAccount>>>();
  // Read when the first action of the batch needs its prospect (one BatchGetItem for all of them):
  // a batch whose actions all wait for their slot or day reads none.
  let prospects: Promise<Map<number, Prospect>> | undefined;
  const batchProspects = () =>
    (prospects ??= deps.leads
      .getProspects([...new Set(refs.map((ref) => ref.prospectId))], { consistent: false })
      .then((list) => new Map(list.map((p) => [p.id, p]))));
  const companies = new Map<number, Promise<Company | undefined>>();
  return {
    campaign(workspaceId, campaignId) {
      let found = campaigns.get(campaignId);
      if (!found) {
        found = deps.campaigns.getWithFlow(workspaceId, campaignId);
        campaigns.set(campaignId, found);
      }
      return found;
    },
    accounts(workspaceId) {
      let found = accounts.get(workspaceId);
      if (!found) {
        found = deps.accounts.listForWorkspace(workspaceId).then((list) => new Map(list.map((a) => [a.id, a])));
        accounts.set(workspaceId, found);
      }
      return found;
    },
    prospect: async (id) => (await batchProspects()).get(id),
    prospectNow: async (id) => (await deps.leads.getProspects([id]))[0],
    // A read that failed already failed its actions; it has nothing to complete.
    campaignsRead: async () =>
      (await Promise.allSettled(campaigns.values())).flatMap((read) => (read.status === 'fulfilled' && read.value ? [read.value.campaign] : [])),
    company(prospect) {
      const id = prospect.companyId;
      if (id === undefined) return Promise.resolve(undefined);
      let found = companies.get(id);
      if (!found) {
        // Eventually consistent, like the batch's prospects: a company changed within the last
        // second may render and enter the status write's view as it was (the window of the race
        // between a company's member sync and a status write that read it just before, which a
        // strong read narrows but does not close; docs/engine.md).
        found = deps.leads.getCompanies([id], { consistent: false }).then((list) => list.find((c) => c.workspaceId === prospect.workspaceId));
        companies.set(id, found);
      }
      return found;
    },
  };
}
