import type { Campaign } from '../campaigns/campaign';
import type { CampaignNode, CampaignStep } from '../campaigns/nodes';
import type { Company, Prospect } from '../leads/lead';
import { type SenderAccount, canSendAt } from '../sender-accounts/sender-account';
import type { LostAnswer, OutreachAction, SendKind } from './action';
import { kindOfStep } from './action';
import type { SlotOwner } from './slot-returns';
import { contactedAccountWaits, pauseEnd } from './pacing';
import { renderStep } from './render';
import type { ActionResult, SenderDeps, SettleClaimed } from './sender-deps';
import type { BatchReads } from './sender-reads';
import { messagesSentBefore } from './sent-messages';
import { performStep } from './steps';

/** What the look needs of the sender: its writes and the settling of a claimed action. */
export interface LostLookMoves {
  deps: Pick<SenderDeps, 'actions' | 'outcomes' | 'provider' | 'newToken'>;
  /** Gives a campaign position back, pulling a wait past the cap forward (slot-returns.ts). */
  giveBackSlot(owner: SlotOwner, day: string, kind: SendKind, k?: number): Promise<void>;
  bump(action: OutreachAction, now: Date, change: Partial<OutreachAction>): OutreachAction;
  wait(action: OutreachAction, now: Date, change: Pick<OutreachAction, 'dueAt'> & Partial<OutreachAction>): Promise<boolean>;
  settle: SettleClaimed;
}

/**
 * The next attempt of a network step whose answer was lost: a look through the account that sent
 * it, claimed with that send's counts (kept: it may have gone out; no new ones are taken, so an
 * account at its daily limit still looks), sending nothing. Found, it is recorded as sent, counted
 * on the day it went out; not found, those counts are given back and the step is due again at once,
 * to be sent as any step, with counts of its own (docs/engine.md, "A timeout is ambiguous"). While
 * that account is paused or not connected the look waits for it, spending no attempt.
 */
export async function lookForLostSend(
  moves: LostLookMoves,
  input: { action: OutreachAction; campaign: Campaign; nodes: Map<number, CampaignNode>; node: CampaignStep; lost: LostAnswer; through: SenderAccount; prospect: Prospect; campaignDay: string },
  reads: BatchReads,
  now: Date,
): Promise<ActionResult> {
  const { deps, giveBackSlot, bump, wait, settle } = moves;
  const { action, campaign, nodes, node, lost, through, prospect } = input;
  if (!canSendAt(through, now)) return (await wait(action, now, { dueAt: pauseEnd(through, now), nodeId: node.id, lastError: contactedAccountWaits(through) })) ? 'waiting' : 'raced';
  const kind = kindOfStep(node.stepType);
  const company: Company | undefined = await reads.company(prospect);
  const rendered = renderStep(node, prospect, company);
  const exclude = kind === 'MESSAGE' ? await messagesSentBefore(deps.outcomes, action) : [];
  const claim = {
    token: deps.newToken(),
    at: now.toISOString(),
    accountId: through.id,
    kind,
    // The lost attempt's counts (kept since 2026-11-27 20:00; before, given back: then these days
    // only name the look's, and nothing is given back).
    accountDay: lost.counted?.accountDay ?? now.toISOString().slice(0, 10),
    campaignDay: lost.counted?.campaignDay ?? input.campaignDay,
    ...(lost.counted?.campaignK === undefined ? {} : { campaignK: lost.counted.campaignK }),
    text: lost.text,
    ...(lost.variant ? { variant: lost.variant } : {}),
    lookOnly: true as const,
  };
  const claimed = bump(action, now, { nodeId: node.id, claim, reservation: null });
  if (!(await deps.actions.replace(action, claimed))) return 'raced';
  // A slot the action held for later in the day is not used by a look.
  const { reservation } = action;
  if (reservation) await giveBackSlot(action, reservation.day, reservation.kind, reservation.k);
  const result = await performStep(deps.provider, {
    step: node,
    kind,
    account: through,
    prospect,
    rendered,
    lost: { at: lost.at, text: lost.text, variant: lost.variant, through, exclude },
  });
  return settle(claimed, campaign, nodes, node, through, result, now, rendered, { prospect, company });
}
