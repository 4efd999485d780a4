import type { Campaign } from '../campaigns/campaign';
import type { Branch } from '../campaigns/flow';
import type { CampaignCondition } from '../campaigns/nodes';
import { publicIdOf } from '../inbox/inbound-message';
import type { Prospect } from '../leads/lead';
import { type MxResolver, domainOfEmail, isPremiumMailbox, mailboxProviderOf } from '../mail/mailbox-provider';
import type { NetworkProvider } from '../providers/provider';
import { type SenderAccount, canSendAt } from '../sender-accounts/sender-account';
import type { OutreachAction } from './action';
import { type CampaignEvents, keepAcceptance } from './campaign-events';
import { NO_ACCOUNT_CAN_SEND, NO_ACCOUNT_RETRY_MS, campaignAccountsOf, contactedAccountWaits, pauseEnd, spreadIndex, stickyAccount } from './pacing';

/**
 * How the engine answers a campaign condition for one prospect (docs/engine.md, "Conditions"):
 * - HAS_EMAIL: the prospect has a syntactically valid email;
 * - HAS_EMAIL_PREMIUM: that email's domain receives mail at Google Workspace or Microsoft 365 (MX);
 * - ACCEPTED_INVITE: YES when the invitation step found the prospect already connected, or once
 *   the invitation was accepted (the provider's `new_relation` webhook
 *   records it and wakes the wait); without it, NO when `delay_in_hours` have passed since the
 *   prospect reached the condition, after one live look at the profile (the webhook can come hours
 *   late, or never);
 * - ALREADY_CONNECTED: a live look at the profile through a network account: first degree is YES.
 * Pure of storage: what it reads, and the acceptance it records, go through the ports given.
 */

/** How long past an ACCEPTED_INVITE deadline the look waits for the inviting account to be able to look, before NO. */
export const INVITER_WAIT_MS = 7 * 24 * 60 * 60_000;

export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const hasValidEmail = (prospect: Prospect): boolean => Boolean(prospect.email && EMAIL_SHAPE.test(prospect.email));

export type ConditionDecision =
  | { branch: Branch; reason: string }
  /**
   * Not decidable yet: evaluate again then. `forDelay`: ACCEPTED_INVITE waiting out its delay for
   * the acceptance (a delay edit moves it); `reason`: why else it waits (the prospects page's `last_error`).
   */
  | { waitUntil: Date; forDelay?: true; reason?: string }
  /** A provider or DNS call failed (sorted by the sender like a send's failure); `account` is the one used. */
  | { failure: unknown; account?: SenderAccount };

export interface ConditionDeps {
  provider: NetworkProvider;
  mx: MxResolver;
  /**
   * Whether the prospect accepted an invitation of this campaign (recorded from the provider's
   * webhook), and recording one the engine saw itself (a first-degree profile at the deadline).
   */
  acceptances: Pick<CampaignEvents, 'accepted' | 'record'>;
}

export interface ConditionInput {
  condition: CampaignCondition;
  action: OutreachAction;
  prospect: Prospect;
  campaign: Campaign;
  accounts: Map<number, SenderAccount>;
  now: Date;
}

/** The network account a live check goes through: the prospect's own on the channel, else the campaign's in turn. */
export function networkAccountFor(campaign: Campaign, accounts: Map<number, SenderAccount>, action: OutreachAction, now: Date): SenderAccount | undefined {
  const sticky = stickyAccount(campaign, accounts, action, 'NETWORK');
  if (sticky && canSendAt(sticky, now)) return sticky;
  const candidates = campaignAccountsOf(campaign, accounts, 'NETWORK');
  const first = spreadIndex(action.prospectId, Math.max(candidates.length, 1));
  for (let i = 0; i < candidates.length; i += 1) {
    const account = candidates[(first + i) % candidates.length] as SenderAccount;
    if (canSendAt(account, now)) return account;
  }
  return undefined;
}

/** When a prospect that reached an ACCEPTED_INVITE condition stops waiting for the acceptance. */
export function acceptanceDeadline(condition: CampaignCondition, action: OutreachAction, now: Date): Date {
  // When it reached the condition (older actions: its previous send, which led here).
  const at = action.reachedAt ?? action.lastActionAt;
  const reached = at ? Date.parse(at) : now.getTime();
  return new Date(reached + condition.delayInHours * 3_600_000);
}

export async function decideCondition(deps: ConditionDeps, input: ConditionInput): Promise<ConditionDecision> {
  const { condition, action, prospect, campaign, accounts, now } = input;

  /**
   * Whether the prospect is a first-degree connection of `through` (the account that sent its
   * invitation, or that contacted it: another account's connections answer another question), or
   * else of a network account of the campaign, spread like sends.
   */
  async function isFirstDegree(through?: SenderAccount): Promise<{ connected: boolean; account: SenderAccount } | ConditionDecision> {
    const identifier = publicIdOf(prospect.networkProfileUrl);
    if (!identifier) return { branch: 'NO', reason: 'no network profile URL' };
    const account = through ?? networkAccountFor(campaign, accounts, action, now);
    if (!account) return { waitUntil: new Date(now.getTime() + NO_ACCOUNT_RETRY_MS), reason: NO_ACCOUNT_CAN_SEND };
    try {
      const profile = await deps.provider.getProfile({ accountId: account.providerAccountId, identifier });
      return { connected: profile.networkDistance === 'FIRST_DEGREE', account };
    } catch (failure) {
      return { failure, account };
    }
  }

  /** The account that contacted the prospect on the network is waited for while it cannot look (as a send waits for it). */
  const waitFor = (account: SenderAccount): ConditionDecision => ({ waitUntil: new Date(pauseEnd(account, now)), reason: contactedAccountWaits(account) });

  switch (condition.conditionType) {
    case 'HAS_EMAIL':
      return hasValidEmail(prospect) ? { branch: 'YES', reason: 'has a valid email' } : { branch: 'NO', reason: 'no valid email address' };
    case 'HAS_EMAIL_PREMIUM': {
      const domain = hasValidEmail(prospect) ? domainOfEmail(prospect.email as string) : undefined;
      if (!domain) return { branch: 'NO', reason: 'no valid email address' };
      try {
        const provider = mailboxProviderOf(await deps.mx.resolveMx(domain));
        return isPremiumMailbox(provider) ? { branch: 'YES', reason: `mailbox at ${provider}` } : { branch: 'NO', reason: `mailbox provider ${provider}` };
      } catch (failure) {
        return { failure };
      }
    }
    case 'ACCEPTED_INVITE': {
      if (action.alreadyConnected) return { branch: 'YES', reason: 'already connected when the invitation was to be sent' };
      const inviterId = action.accounts.NETWORK;
      // An acceptance of this stay's invitation: on the account that sent it (where either is
      // known), since the stay began. One of an earlier stay in this campaign, or of another
      // account's invitation, says nothing of this one; the look at the deadline answers then.
      const acceptance = await deps.acceptances.accepted(campaign.id, prospect.id);
      const onInviter = acceptance?.accountId === null || inviterId === undefined || acceptance?.accountId === inviterId;
      if (acceptance && acceptance.at >= action.stint && onInviter) return { branch: 'YES', reason: 'invitation accepted' };
      const deadline = acceptanceDeadline(condition, action, now);
      if (now.getTime() < deadline.getTime()) return { waitUntil: deadline, forDelay: true };
      // Only the account that sent the invitation can tell whether it was accepted: attached to the
      // campaign or not, waited for while it cannot look (up to a week past the deadline); deleted,
      // nobody can any more. (A prospect invited by no account of ours looks through the campaign's.)
      const inviter = inviterId === undefined ? undefined : accounts.get(inviterId);
      if (inviterId !== undefined && inviter?.type !== 'NETWORK') return { branch: 'NO', reason: `the sender account that sent the invitation (${inviterId}) was deleted` };
      if (inviter && !canSendAt(inviter, now)) {
        if (now.getTime() < deadline.getTime() + INVITER_WAIT_MS) return waitFor(inviter);
        return { branch: 'NO', reason: `the sender account that sent the invitation (${inviter.id}) could not look for a week after the deadline` };
      }
      const checked = await isFirstDegree(inviter);
      if (!('connected' in checked)) return checked;
      if (!checked.connected) return { branch: 'NO', reason: `invitation not accepted within ${condition.delayInHours} hours` };
      // Accepted without a webhook (it was lost, or is hours late): counted like one, once (a
      // webhook coming later finds it recorded), so that analytics agree with the YES branch.
      await keepAcceptance(deps.acceptances, action, null, checked.account.id, now.toISOString());
      return { branch: 'YES', reason: 'connected (seen on the profile at the deadline)' };
    }
    case 'ALREADY_CONNECTED': {
      // Through the account that contacted the prospect while it is the campaign's (its YES branch's
      // message goes through it), waited for while it cannot look; else the campaign's.
      const contacted = stickyAccount(campaign, accounts, action, 'NETWORK');
      if (contacted && !canSendAt(contacted, now)) return waitFor(contacted);
      const checked = await isFirstDegree(contacted);
      if (!('connected' in checked)) return checked;
      return checked.connected ? { branch: 'YES', reason: 'first-degree connection' } : { branch: 'NO', reason: 'not a first-degree connection' };
    }
  }
}
