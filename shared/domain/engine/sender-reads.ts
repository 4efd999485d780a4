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
  /** The campaigns this batch has read: every copy (a campaign read again is there more than once). */
  campaignsRead(): Promise<Campaign[]>;
}


/**
 * How old a batch's copy of a campaign (status, caps, window, accounts attached) or of a
 * workspace's sender accounts (pauses, daily limits) may be when an action uses it. A batch runs
 * for seconds (minutes against a slow provider), and a pause, an archive, a cap or limit lowered,
 * a window closed or an account detached while it ran went unseen by its later actions until it
 * ended (a race probe counted 20-35 sends after a pause had answered). Older copies are read again:
 * the campaign item alone (GetItem, strong, ~1 RCU), its nodes again only when its flow's structure
 * changed; a step's content (template, delay) edited meanwhile is taken up by the next batch.
 */
export const BATCH_COPY_MAX_AGE_MS = 250;

/**
 * A batch's copies by key: read once through `load(before)`, then again when the copy is
 * BATCH_COPY_MAX_AGE_MS old by the clock. `all` holds every copy read (the older ones too).
 */
function agingCopies<K, V>(clock: SenderDeps['clock']) {
  const copies = new Map<K, { at: number; read: Promise<V> }>();
  const all: Promise<V>[] = [];
  return {
    all,
    get(key: K, load: (before: Promise<V> | undefined) => Promise<V>): Promise<V> {
      const now = clock.now().getTime();
      const cached = copies.get(key);
      if (cached && now - cached.at < BATCH_COPY_MAX_AGE_MS) return cached.read;
      const read = load(cached?.read);
      copies.set(key, { at: now, read });
      all.push(read);
      return read;
    },
  };
}

export function createBatchReads(deps: Pick<SenderDeps, 'campaigns' | 'accounts' | 'leads' | 'clock'>, refs: ActionRef[]): BatchReads {
  type CampaignRead = ReturnType<BatchReads['campaign']>;
  // Read when the first action of the batch needs its prospect (one BatchGetItem for all of them):
  // a batch whose actions all wait for their slot or day reads none.
  let prospects: Promise<Map<number, Prospect>> | undefined;
  const batchProspects = () =>
    (prospects ??= deps.leads
      .getProspects([...new Set(refs.map((ref) => ref.prospectId))], { consistent: false })
      .then((list) => new Map(list.map((p) => [p.id, p]))));
  const companies = new Map<number, Promise<Company | undefined>>();

  /** A campaign's first copy with its flow; a later one the item alone, its nodes kept unless its flow's structure changed (or the copy before failed). */
  async function readCampaign(workspaceId: number, campaignId: number, before: CampaignRead | undefined): CampaignRead {
    const old = before && (await before.catch(() => undefined));
    if (!old) return deps.campaigns.getWithFlow(workspaceId, campaignId);
    const campaign = await deps.campaigns.get(workspaceId, campaignId);
    if (!campaign) return undefined;
    return campaign.flowVersion === old.campaign.flowVersion ? { campaign, nodes: old.nodes } : deps.campaigns.getWithFlow(workspaceId, campaignId);
  }
  const campaigns = agingCopies<number, Awaited<CampaignRead>>(deps.clock);
  const accounts = agingCopies<number, Map<number, SenderAccount>>(deps.clock);

  return {
    campaign: (workspaceId, campaignId) => campaigns.get(campaignId, (before) => readCampaign(workspaceId, campaignId, before)),
    accounts: (workspaceId) =>
      accounts.get(workspaceId, () => deps.accounts.listForWorkspace(workspaceId).then((list) => new Map(list.map((a) => [a.id, a])))),
    prospect: async (id) => (await batchProspects()).get(id),
    prospectNow: async (id) => (await deps.leads.getProspects([id]))[0],
    // A read that failed already failed its actions; it has nothing to complete.
    campaignsRead: async () =>
      (await Promise.allSettled(campaigns.all)).flatMap((read) => (read.status === 'fulfilled' && read.value ? [read.value.campaign] : [])),
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
