import type { Campaign } from '../campaigns/campaign';
import type { CampaignNode, CampaignStep } from '../campaigns/nodes';
import { publicIdOf } from '../inbox/inbound-message';
import type { ActionOutcome, OutcomeKind, OutreachAction } from './action';
import { channelOfKind } from './action';
import type { SlotOwner } from './slot-returns';
import type { KnownProspect } from './ports';
import type { ActionResult, SenderDeps } from './sender-deps';
import { keepInvitation, keepSent, messagesSentBefore } from './sent-messages';
import { renderStep } from './render';
import { connectedBySkip, lostAnswerLookSince } from './steps';
import type { BatchReads } from './sender-reads';

/** What the crash rule does with an action: the sender's own moves. */
export interface CrashRuleMoves {
  deps: Pick<SenderDeps, 'actions' | 'outcomes' | 'provider' | 'sentMessages'>;
  advance(action: OutreachAction, campaign: Campaign, nodes: Map<number, CampaignNode>, nodeId: number, now: Date, change: Partial<OutreachAction>, known?: KnownProspect, actedAt?: Date): Promise<void>;
  finish(action: OutreachAction, campaign: Campaign, status: 'FINISHED' | 'BOUNCED', lastError: string | null): Promise<ActionResult>;
  wait(action: OutreachAction, now: Date, change: Pick<OutreachAction, 'dueAt'> & Partial<OutreachAction>): Promise<boolean>;
  giveBack(claim: NonNullable<OutreachAction['claim']>, campaignSlot: boolean, of: SlotOwner, pull?: boolean): Promise<void>;
  outcomeOf(action: OutreachAction, step: CampaignStep, now: Date, fields: { outcome: OutcomeKind; reason: string | null } & Partial<ActionOutcome>): ActionOutcome;
}

/**
 * How long the crash rule keeps asking a provider that cannot answer (or a prospect without the
 * profile to ask about) before it settles the claim as for an email: UNCERTAIN, never sent again.
 */
export const CRASH_LOOK_LIMIT_MS = 24 * 3_600_000;

const stillAsking = (claim: NonNullable<OutreachAction['claim']>, now: Date): boolean => now.getTime() - Date.parse(claim.at) < CRASH_LOOK_LIMIT_MS;

/**
 * The crash rule for a claim that expired: the outcome record decides if it was written (the
 * crash came after it); otherwise an invitation is reconciled from the provider (it shows a
 * pending invitation or a connection), as is a network message (the account's chat with the
 * prospect shows it since the claim), and an email, which the provider cannot tell (or a network
 * step the provider has not told about within CRASH_LOOK_LIMIT_MS), counts as sent with the
 * outcome UNCERTAIN: it is never repeated (at most once).
 */
export async function settleCrash(moves: CrashRuleMoves, action: OutreachAction, reads: BatchReads, now: Date): Promise<ActionResult> {
  const { deps, advance, finish, wait, giveBack, outcomeOf } = moves;
  const iso = (date: Date) => date.toISOString();
  const claim = action.claim as NonNullable<OutreachAction['claim']>;
  const loaded = await reads.campaign(action.workspaceId, action.campaignId);
  if (!loaded) {
    await deps.actions.remove(action);
    return 'cancelled';
  }
  const nodeId = action.nodeId;
  const node = nodeId === null ? undefined : loaded.nodes.get(nodeId);
  if (node?.kind !== 'STEP') {
    // The claimed step was deleted from the flow meanwhile: what it was (its type, its text) is gone,
    // so whether it went out is not settled. Its counts stay taken (it may have gone out: a day
    // sends one fewer, never one more), and the prospect goes on from the step's place as one
    // waiting there does: to the step's child, or the end of the flow. Before 2026-11-28 the action
    // was deleted, leaving the prospect IN_REVIEW for good and its campaign never COMPLETED.
    return (await wait(action, now, { dueAt: iso(now), claim: null })) ? 'retrying' : 'raced';
  }
  const { campaign, nodes } = loaded;
  // A send found (recorded, or shown by the provider) went out at its claim: the next node's delay counts from then.
  const claimedAt = new Date(claim.at);
  const recorded = await deps.outcomes.find(action, node.id);
  const accounts = await reads.accounts(action.workspaceId);
  const account = accounts.get(claim.accountId);
  if (recorded) {
    if (recorded.outcome === 'FAILED') return finish(action, campaign, 'FINISHED', recorded.reason);
    // The account the record names: a send found after a lost answer went through that one, not the claim's.
    const through = recorded.accountId ?? claim.accountId;
    const sticky = recorded.outcome === 'SKIPPED' ? connectedBySkip(claim.kind, recorded.reason, action.accounts, through) : { accounts: { ...action.accounts, [channelOfKind(claim.kind)]: through } };
    // The crash may have come before the invitation's link (sender.ts settle): written again.
    if (recorded.outcome === 'SENT' && node.stepType === 'NETWORK_INVITE') await keepInvitation(deps.sentMessages, action, node, through);
    await advance(action, campaign, nodes, node.id, now, sticky, undefined, new Date(recorded.at));
    return recorded.outcome === 'SKIPPED' ? 'skipped' : 'sent';
  }
  // A look for a send whose answer was lost (lost-answer-look.ts) sent nothing: it looks again, the
  // counts it carries kept.
  if (claim.lookOnly) return (await wait(action, now, { dueAt: iso(now), claim: null })) ? 'retrying' : 'raced';
  // Not sent: given back and sent now.
  const sendNow = async (): Promise<ActionResult> => {
    // Sent again at once, taking a position again: no wait is pulled forward for it.
    await giveBack(claim, true, action, false);
    await wait(action, now, { dueAt: iso(now), claim: null });
    return 'retrying';
  };
  /** A provider look, or undefined when the provider cannot tell now (the claim then waits for the next sweep, for a day). */
  const ask = async <T>(look: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await look();
    } catch {
      return undefined;
    }
  };
  if (claim.kind === 'INVITE' && account) {
    const prospect = await reads.prospectNow(action.prospectId);
    const identifier = publicIdOf(prospect?.networkProfileUrl);
    const profile = identifier ? await ask(() => deps.provider.getProfile({ accountId: account.providerAccountId, identifier })) : undefined;
    if (profile && !profile.invitationPending && profile.networkDistance !== 'FIRST_DEGREE') return sendNow();
    if (profile) {
      await deps.outcomes.record(outcomeOf(action, node, now, { outcome: 'SENT', reason: 'settled after a crash: the provider shows the invitation', at: claim.at }));
      await keepInvitation(deps.sentMessages, action, node, claim.accountId);
      await advance(action, campaign, nodes, node.id, now, { networkProviderId: profile.providerId, accounts: { ...action.accounts, NETWORK: claim.accountId } }, undefined, claimedAt);
      return 'sent';
    }
    if (identifier && stillAsking(claim, now)) return 'in_flight';
  }
  if (claim.kind === 'MESSAGE' && account) {
    const prospect = await reads.prospectNow(action.prospectId);
    const identifier = publicIdOf(prospect?.networkProfileUrl);
    if (prospect && identifier) {
      // The text as claimed (the step or the prospect may have changed since); claims before 2026-11-27 carry none.
      const rendered = renderStep(node, prospect, await reads.company(prospect));
      const text = claim.text ?? rendered.text;
      const look = await ask(async () => {
        const providerId = action.networkProviderId ?? (await deps.provider.getProfile({ accountId: account.providerAccountId, identifier })).providerId;
        const exclude = await messagesSentBefore(deps.outcomes, action);
        return {
          providerId,
          found: await deps.provider.findSentMessage({ accountId: account.providerAccountId, attendeeProviderId: providerId, text, since: lostAnswerLookSince(claim.at), exclude }),
        };
      });
      if (look && !look.found) return sendNow();
      if (look?.found) {
        const { providerId, found } = look;
        // The variant claimed (a B text added since changes what rendering now picks): the outcome and the chat link agree.
        const variant = claim.variant ?? rendered.variant;
        await deps.outcomes.record(outcomeOf(action, node, now, { outcome: 'SENT', reason: 'settled after a crash: the chat shows the message', variant, at: claim.at, ...found }));
        await keepSent(deps.sentMessages, { action, step: node, account, rendered: { ...rendered, text, variant }, refs: found, networkProviderId: providerId, at: claim.at });
        await advance(action, campaign, nodes, node.id, now, { networkProviderId: providerId, accounts: { ...action.accounts, NETWORK: claim.accountId } }, undefined, claimedAt);
        return 'sent';
      }
      if (stillAsking(claim, now)) return 'in_flight';
    }
  }
  await deps.outcomes.record(outcomeOf(action, node, now, { outcome: 'UNCERTAIN', reason: 'a crash between claim and result: not sent again (at most once)', at: claim.at }));
  // If it went out, it went out at its claim: the next node's delay counts from then, as for a send
  // found (before 2026-11-28 it counted from this settling, up to a sweep later).
  await advance(action, campaign, nodes, node.id, now, { accounts: { ...action.accounts, [channelOfKind(claim.kind)]: claim.accountId } }, undefined, claimedAt);
  return 'sent';
}
