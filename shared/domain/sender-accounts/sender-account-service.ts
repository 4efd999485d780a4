import { type Campaign, hasRunningProspects } from '../campaigns/campaign';
import type { CampaignRepository, CampaignScheduling } from '../campaigns/ports';
import { conflict, notFound, upstreamError, validationError } from '../errors';
import type { Clock, IdGenerator } from '../ports';
import { type NetworkProvider, type ProviderAccount, describeProviderFailure, isActiveStatus, isProviderFailure } from '../providers/provider';
import type { ConnectStateSigner, SenderAccountChange, SenderAccountRepository } from './ports';
import { type SenderAccount, type SenderAccountType, dailyLimitsOf, newSenderAccount, senderTypeFor } from './sender-account';

export interface SenderAccountServiceDeps {
  accounts: SenderAccountRepository;
  provider: Pick<NetworkProvider, 'getAccount' | 'createConnectLink'>;
  ids: IdGenerator;
  clock: Clock;
  connectState: ConnectStateSigner;
  /** Where the provider posts the outcome of a hosted-connect page; none means no notification. */
  connectNotifyUrl?: string | undefined;
  /** How long a hosted-connect link stays valid. */
  connectLinkTtlMs: number;
  /**
   * The campaigns that send through an account, and their pacing sweep: an account that may send
   * more (a limit raised, its pause ended) has their waiting actions placed again, and a deleted one
   * leaves their `account_ids` (then the same). None: they wait until their own due time (the next
   * UTC day for a limit, an hour for a pause) and keep listing a deleted account.
   */
  pacing?: { campaigns: Pick<CampaignRepository, 'listForWorkspace' | 'get' | 'detachAccount'>; scheduling: Pick<CampaignScheduling, 'repace'> } | undefined;
}

const ACCOUNT_NOT_FOUND = 'Account not found';
const PROVIDER_UNREACHABLE = 'Failed to reach the network provider';

/** Registering, listing, changing and removing sender accounts, and following their status at the provider. */
export function createSenderAccountService(deps: SenderAccountServiceDeps) {
  async function fetchProviderAccount(providerAccountId: string): Promise<ProviderAccount | undefined> {
    try {
      return await deps.provider.getAccount(providerAccountId);
    } catch (error) {
      if (isProviderFailure(error)) throw upstreamError(PROVIDER_UNREACHABLE, describeProviderFailure(error));
      throw error;
    }
  }

  /**
   * Registers a provider account in a workspace. Idempotent for the same workspace (the existing
   * account comes back with `created: false`); another workspace's account is a conflict.
   */
  async function register(
    workspaceId: number,
    input: { providerAccountId: string; name?: string | undefined },
  ): Promise<{ account: SenderAccount; created: boolean }> {
    const provider = await fetchProviderAccount(input.providerAccountId);
    if (!provider) throw validationError('provider_account_id is not an account of the network provider');
    const type = senderTypeFor(provider.type);
    if (!type) throw validationError(`Unsupported provider account type: ${provider.type} (only network accounts and mailboxes)`);
    // A provider account this workspace deleted comes back as the same account: its sends, daily
    // counts, conversations and the invitations it sent stay its own.
    const former = await deps.accounts.formerAccount(workspaceId, input.providerAccountId);
    const fresh = newSenderAccount({
      id: former?.accountId ?? (await deps.ids.next()),
      workspaceId,
      type,
      provider,
      name: input.name,
      now: deps.clock.now().toISOString(),
    });
    const account = { ...fresh, ...(former?.createdAt ? { createdAt: former.createdAt } : {}), ...(former?.dailyLimits ? { dailyLimits: former.dailyLimits } : {}) };
    const outcome = await deps.accounts.create(account);
    if (outcome.created) return { account, created: true };
    if (outcome.existing.workspaceId !== workspaceId) throw conflict('This provider account is already connected to another workspace');
    const existing = await deps.accounts.get(workspaceId, outcome.existing.accountId);
    if (!existing) throw conflict('This provider account is being connected, please retry');
    return { account: existing, created: false };
  }

  /**
   * Writes a status the provider reported. An active one also ends a pause that waits for the
   * provider (`until` null), in the same write; a timed pause runs out by itself.
   */
  async function applyStatus(account: SenderAccount, status: string): Promise<SenderAccount | undefined> {
    const updatedAt = deps.clock.now().toISOString();
    const pause = account.sendingPause;
    const clearPause = pause && pause.until === null && isActiveStatus(status) ? pause : undefined;
    if (!(await deps.accounts.updateStatus(account, status, updatedAt, clearPause))) return undefined;
    return { ...account, status, updatedAt, ...(clearPause ? { sendingPause: undefined } : {}) };
  }

  /** Whether the change lets the account send more today: a daily limit raised, or its sending pause ended. */
  function mayGoSooner(before: SenderAccount, after: SenderAccount): boolean {
    const [was, is] = [dailyLimitsOf(before), dailyLimitsOf(after)];
    const raised = is.emails > was.emails || is.invitations > was.invitations || is.networkMessages > was.networkMessages;
    return raised || (Boolean(before.sendingPause) && !after.sendingPause);
  }

  /**
   * The running campaigns that send through the account (ACTIVE or PAUSED, with prospects): their
   * actions waiting on pacing are made due, and the sender places them again (campaigns/scheduling.ts `repace`).
   */
  async function repaceCampaignsOf(account: SenderAccount): Promise<void> {
    if (!deps.pacing) return;
    const { campaigns, scheduling } = deps.pacing;
    const sending = (await campaigns.listForWorkspace(account.workspaceId)).filter((campaign) => hasRunningProspects(campaign) && campaign.accountIds.includes(account.id));
    await Promise.all(sending.map((campaign) => scheduling.repace(campaign)));
  }

  /**
   * A deleted account leaves the `account_ids` of the campaigns it was attached to (not archived
   * ones: read-only), as if detached; a running one places its waits again, so the prospects that
   * waited for that account's limit go through its other accounts. A campaign changed meanwhile is
   * read again (three tries; one still listing it is answered as before: the engine passes a
   * deleted account over, and a PATCH sending it back drops it).
   */
  async function detachFromCampaigns(account: SenderAccount): Promise<void> {
    if (!deps.pacing) return;
    const { campaigns, scheduling } = deps.pacing;
    const attached = (await campaigns.listForWorkspace(account.workspaceId)).filter(
      (campaign) => campaign.status !== 'ARCHIVED' && campaign.accountIds.includes(account.id),
    );
    await Promise.all(
      attached.map(async (found) => {
        let campaign: Campaign | undefined = found;
        for (let attempt = 0; attempt < 3 && campaign?.accountIds.includes(account.id) && campaign.status !== 'ARCHIVED'; attempt += 1) {
          const detached = await campaigns.detachAccount(campaign, account.id, deps.clock.now().toISOString());
          if (detached) {
            if (hasRunningProspects(detached)) await scheduling.repace(detached);
            return;
          }
          campaign = await campaigns.get(account.workspaceId, campaign.id);
        }
      }),
    );
  }

  return {
    list: (workspaceId: number) => deps.accounts.listForWorkspace(workspaceId),

    /** Renames the account, changes its daily limits (limits not given keep their value), or ends its sending pause. */
    async update(workspaceId: number, accountId: number, change: SenderAccountChange): Promise<SenderAccount> {
      const account = await deps.accounts.get(workspaceId, accountId);
      if (!account) throw notFound(ACCOUNT_NOT_FOUND);
      const limits = Object.values(change.dailyLimits ?? {}).filter((value) => value !== undefined);
      if (change.name === undefined && limits.length === 0 && !(change.endPause && account.sendingPause)) return account;
      const updated = await deps.accounts.updateSettings(account, change, deps.clock.now().toISOString());
      if (!updated) throw notFound(ACCOUNT_NOT_FOUND);
      if (mayGoSooner(account, updated)) await repaceCampaignsOf(updated);
      return updated;
    },

    register,

    async remove(workspaceId: number, accountId: number): Promise<void> {
      const account = await deps.accounts.get(workspaceId, accountId);
      if (!account) throw notFound(ACCOUNT_NOT_FOUND);
      await deps.accounts.remove(account);
      await detachFromCampaigns(account);
    },

    /**
     * Applies a status the provider reported for one of its accounts. Unknown accounts (not
     * registered here, or removed) are ignored: the provider reports every account it holds.
     */
    async applyProviderStatus(providerAccountId: string, status: string): Promise<SenderAccount | undefined> {
      const account = await deps.accounts.findByProviderAccountId(providerAccountId);
      if (!account) return undefined;
      return applyStatus(account, status);
    },

    /** A link to the provider's hosted page where the user connects (or reconnects) an account. */
    async createConnectLink(
      workspaceId: number,
      input: {
        type: SenderAccountType;
        successRedirectUrl?: string | undefined;
        failureRedirectUrl?: string | undefined;
        reconnectAccountId?: number | undefined;
      },
    ): Promise<{ url: string; expiresAt: string }> {
      let reconnect: SenderAccount | undefined;
      if (input.reconnectAccountId !== undefined) {
        reconnect = await deps.accounts.get(workspaceId, input.reconnectAccountId);
        if (!reconnect) throw notFound(ACCOUNT_NOT_FOUND);
      }
      const expiresAt = new Date(deps.clock.now().getTime() + deps.connectLinkTtlMs);
      try {
        const link = await deps.provider.createConnectLink({
          kind: reconnect?.type ?? input.type,
          name: deps.connectState.sign(workspaceId, expiresAt),
          expiresAt,
          notifyUrl: deps.connectNotifyUrl,
          successRedirectUrl: input.successRedirectUrl,
          failureRedirectUrl: input.failureRedirectUrl,
          reconnectAccountId: reconnect?.providerAccountId,
        });
        return { url: link.url, expiresAt: expiresAt.toISOString() };
      } catch (error) {
        if (isProviderFailure(error)) throw upstreamError(PROVIDER_UNREACHABLE, describeProviderFailure(error));
        throw error;
      }
    },

    /**
     * The provider's notification that a hosted-connect page finished: registers the new account
     * in the workspace the signed state names (a reconnect just refreshes the status).
     * undefined when the state does not verify.
     */
    async completeConnect(input: { state: string; providerAccountId: string }): Promise<SenderAccount | undefined> {
      const workspaceId = deps.connectState.verify(input.state, deps.clock.now());
      if (workspaceId === undefined) return undefined;
      const existing = await deps.accounts.findByProviderAccountId(input.providerAccountId);
      if (existing) {
        if (existing.workspaceId !== workspaceId) return undefined;
        const provider = await fetchProviderAccount(input.providerAccountId);
        if (!provider) return existing;
        return (await applyStatus(existing, provider.status)) ?? existing;
      }
      return (await register(workspaceId, { providerAccountId: input.providerAccountId })).account;
    },
  };
}

export type SenderAccountService = ReturnType<typeof createSenderAccountService>;
