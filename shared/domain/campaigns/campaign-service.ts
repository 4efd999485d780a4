import type { AccountRepository } from '../accounts/ports';
import { conflict, validationError } from '../errors';
import type { IdGenerator } from '../ports';
import type { SenderAccountRepository } from '../sender-accounts/ports';
import { type SenderAccount, isActiveAccount } from '../sender-accounts/sender-account';
import type { Clock } from '../../time/clock';
import {
  CAMPAIGN_DEFAULTS,
  type Campaign,
  type CampaignSettings,
  type StatusAction,
  assertWritable,
  canonicalLanguage,
  canonicalTimezone,
  nextStatus,
  hasRunningProspects,
  pacingLoosened,
} from './campaign';
import { channelsOf, emptyFlow, hasNetworkConditions } from './flow';
import { requireCampaign, requireCampaignWithFlow } from './lookup';
import type { CampaignWithFlow } from './nodes';
import type { CampaignRepository, CampaignScheduling } from './ports';
import { selectWorkspaces } from './workspace-selector';

export interface CampaignServiceDeps {
  campaigns: CampaignRepository;
  /** The workspaces a user is linked to (the app host's `workspace_id` rules). */
  memberships: Pick<AccountRepository, 'listMemberships'>;
  accounts: Pick<SenderAccountRepository, 'listForWorkspace'>;
  ids: IdGenerator;
  clock: Clock;
  scheduling: CampaignScheduling;
}

export interface CampaignDetail extends CampaignWithFlow {
  accounts: SenderAccount[];
}

/** Status changes lost to a concurrent change before answering 409 with the status found. */
const STATUS_ATTEMPTS = 3;

export function createCampaignService(deps: CampaignServiceDeps) {
  const { campaigns, clock } = deps;
  const now = () => clock.now().toISOString();

  const require = (workspaceId: number, campaignId: number) => requireCampaign(campaigns, workspaceId, campaignId);

  /** Why the campaign cannot run now: no steps, or a channel of its steps or network conditions without an active sender account. */
  async function readinessProblems(campaign: Campaign): Promise<string[]> {
    const channels = channelsOf(campaign.flow);
    if (channels.size === 0) return ['Campaign has no steps: add at least one step before activating'];
    const attached = new Set(campaign.accountIds);
    const active = (await deps.accounts.listForWorkspace(campaign.workspaceId)).filter(
      (account) => attached.has(account.id) && isActiveAccount(account),
    );
    const problems: string[] = [];
    if (channels.has('EMAIL') && !active.some((account) => account.type === 'EMAIL')) {
      problems.push('Campaign has EMAIL steps but no active email account attached (attach a connected mailbox with account_ids)');
    }
    if (!active.some((account) => account.type === 'NETWORK')) {
      if (channels.has('NETWORK')) {
        problems.push(
          'Campaign has NETWORK_INVITE or NETWORK_MESSAGE steps but no active network account attached (attach a connected network account with account_ids)',
        );
      } else if (hasNetworkConditions(campaign.flow)) {
        // Their answer is a look at the prospect's profile through a network account: without one
        // its prospects would wait at the condition for good.
        problems.push(
          'Campaign has ACCEPTED_INVITE or ALREADY_CONNECTED conditions but no active network account attached (attach a connected network account with account_ids)',
        );
      }
    }
    return problems;
  }

  return {
    async create(workspaceId: number, name: string): Promise<Campaign> {
      const at = now();
      return campaigns.create({
        id: await deps.ids.next(),
        workspaceId,
        name,
        status: 'DRAFT',
        ...CAMPAIGN_DEFAULTS,
        sendingWindow: {},
        accountIds: [],
        prospectCount: 0,
        flow: emptyFlow(),
        flowVersion: 0,
        createdAt: at,
        updatedAt: at,
      });
    },

    list(workspaceId: number): Promise<Campaign[]> {
      return campaigns.listForWorkspace(workspaceId);
    },

    get: require,

    /**
     * The app host's list (spec 3.9): `workspace` omitted means the caller's current workspace, a
     * number that workspace if the user is linked to it, `ALL` every linked workspace. A workspace
     * the user is not linked to is 403, whether or not it exists.
     */
    async listForUser(userId: number, currentWorkspaceId: number, workspace: string | undefined): Promise<Campaign[]> {
      const workspaces = await selectWorkspaces(deps.memberships, userId, currentWorkspaceId, workspace);
      return (await Promise.all(workspaces.map((id) => campaigns.listForWorkspace(id)))).flat();
    },

    async detail(workspaceId: number, campaignId: number): Promise<CampaignDetail> {
      const [found, accounts] = await Promise.all([
        requireCampaignWithFlow(campaigns, workspaceId, campaignId),
        deps.accounts.listForWorkspace(workspaceId),
      ]);
      return { ...found, accounts };
    },

    async update(workspaceId: number, campaignId: number, settings: CampaignSettings): Promise<Campaign> {
      const campaign = await require(workspaceId, campaignId);
      assertWritable(campaign);
      const change = { ...settings };
      if (change.timezone !== undefined) change.timezone = canonicalTimezone(change.timezone);
      if (change.language !== undefined) change.language = canonicalLanguage(change.language);
      if (change.accountIds !== undefined) {
        const known = new Set((await deps.accounts.listForWorkspace(workspaceId)).map((account) => account.id));
        // An account deleted while attached is still listed in account_ids: sent back as read, it
        // is dropped (the engine never sends through it), not refused.
        const deletedWhileAttached = (id: number) => !known.has(id) && campaign.accountIds.includes(id);
        const unknown = change.accountIds.find((id) => !known.has(id) && !deletedWhileAttached(id));
        if (unknown !== undefined) throw validationError(`account_ids: account ${unknown} not found in this workspace`);
        change.accountIds = [...new Set(change.accountIds.filter((id) => known.has(id)))];
      }
      if (Object.keys(change).length === 0) return campaign;
      const updated = await campaigns.updateSettings(campaign, change, now());
      // Those waiting for a later day or the window's opening may go sooner now: placed again.
      if (hasRunningProspects(updated) && pacingLoosened(campaign, updated)) await deps.scheduling.repace(updated);
      return updated;
    },

    /**
     * Moves the campaign's status (nextStatus has the rules). Moving to ACTIVE checks that it can
     * run and then schedules the prospects waiting for it, also when it already was ACTIVE (the
     * prospects added since without activation).
     */
    async changeStatus(workspaceId: number, campaignId: number, action: StatusAction): Promise<Campaign> {
      for (let attempt = 0; attempt < STATUS_ATTEMPTS; attempt += 1) {
        const campaign = await require(workspaceId, campaignId);
        const target = nextStatus(campaign.status, action);
        const starting = target === 'ACTIVE' && campaign.status !== 'ACTIVE';
        if (starting) {
          const problems = await readinessProblems(campaign);
          if (problems.length > 0) throw validationError(problems.join('; '));
        }
        let updated = campaign;
        // An ACTIVE campaign activated again is written too: its `activatedAt` tells the prospects
        // page that those waiting in it are being scheduled (prospects-page.ts).
        if (target !== campaign.status || target === 'ACTIVE') {
          const at = now();
          // Starting: conditional on the flow checked above, so a step deleted or added meanwhile
          // (flow edits need DRAFT or PAUSED) makes it read and check again instead of running a
          // flow it never checked (before 2026-11-27 a campaign could end ACTIVE with no steps).
          const expect = starting ? { flowVersion: campaign.flowVersion } : {};
          if (!(await campaigns.setStatus(campaign, campaign.status, target, at, expect))) continue;
          // A repeated activation changes nothing else: it answers the campaign as it was.
          updated = target === campaign.status ? { ...campaign, activatedAt: at } : { ...campaign, status: target, updatedAt: at, ...(target === 'ACTIVE' ? { activatedAt: at } : {}) };
        }
        if (target === 'ACTIVE') await deps.scheduling.scheduleWaiting(updated);
        return updated;
      }
      const current = await require(workspaceId, campaignId);
      throw conflict(`Campaign status changed concurrently; it is now ${current.status}`);
    },
  };
}

export type CampaignService = ReturnType<typeof createCampaignService>;
