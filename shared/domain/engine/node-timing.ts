import type { Campaign } from '../campaigns/campaign';
import type { CampaignNode } from '../campaigns/nodes';
import type { OutreachAction } from './action';
import { nextOpenMoment } from './window';

/**
 * When a node reached at `from` is carried out: a step after its delay, then at the window's next
 * open moment; a condition when its delay is over, except ACCEPTED_INVITE, which looks at once
 * (the invitation may be accepted already) and then waits up to its delay for the acceptance.
 */
export function dueAfter(node: CampaignNode | undefined, from: Date, campaign: Pick<Campaign, 'sendingWindow' | 'timezone'>): Date {
  if (node?.kind === 'CONDITION' && node.conditionType === 'ACCEPTED_INVITE') return from;
  const delayed = new Date(from.getTime() + (node?.delayInHours ?? 0) * 3_600_000);
  return node?.kind === 'STEP' ? (nextOpenMoment(delayed, campaign.sendingWindow, campaign.timezone) ?? delayed) : delayed;
}

/**
 * When the prospect reached the node it waits on, which that node's delay counts from: the due
 * time of a first action not written yet (the moment it was scheduled), else `reachedAt`. Actions
 * written before `reachedAt` existed: `lastActionAt` while the first node waits (the first write
 * kept the scheduling moment there), unknown once started.
 */
export function reachedAtOf(action: OutreachAction): Date | undefined {
  const from = action.version === 0 ? action.dueAt : (action.reachedAt ?? (action.started ? null : action.lastActionAt));
  return from === null ? undefined : new Date(from);
}

/**
 * When the prospect may carry out its node by the node's delay as it is now (then the window, for
 * a step): a delay edited after the prospect reached the node applies. Undefined when the delay
 * holds nothing back (none, or the reaching moment is unknown).
 */
export function heldUntil(action: OutreachAction, node: CampaignNode, campaign: Pick<Campaign, 'sendingWindow' | 'timezone'>): Date | undefined {
  const from = reachedAtOf(action);
  if (from === undefined || node.delayInHours === 0) return undefined;
  return dueAfter(node, from, campaign);
}
