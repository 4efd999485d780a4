import type { Clock } from '../../time/clock';
import type { CampaignRepository } from '../campaigns/ports';
import type { OutreachAction, SendKind } from './action';
import type { ActionStore, SendCounters } from './ports';
import { capOf } from './pacing';
import { openSpanFrom } from './window';

/**
 * Waits past the cap a pull looks at, the latest first: the next is tried when one changed meanwhile
 * (another pull took it: give-backs at once, a bulk removal, pull the next ones).
 */
const PULL_CANDIDATES = 10;

export interface SlotReturnDeps {
  counters: Pick<SendCounters, 'returnCampaignSlot' | 'takePull'>;
  actions: Pick<ActionStore, 'waitsPastCap' | 'get' | 'replace'>;
  campaigns: Pick<CampaignRepository, 'get'>;
  clock: Clock;
}

/** Who gives a position back: the campaign's action (its workspace reads the campaign). */
export type SlotOwner = Pick<OutreachAction, 'workspaceId' | 'campaignId'>;

/**
 * Campaign positions given back, by the engine and by what stops or moves prospects (docs/engine.md,
 * "Daily caps and accounts"). A position of today's cap given back for a reason of the prospect's
 * own pulls the latest wait past the cap (one placed on a later day) forward to take it, so the day
 * still sends its cap: a network step skipped at its slot (not connected), a suppressed address, a
 * prospect that left or stopped. Before 2026-11-29 the position stayed free, and each such
 * give-back left the day one send short while prospects waited for later days.
 */
export function createSlotReturns(deps: SlotReturnDeps) {
  const iso = (date: Date) => date.toISOString();

  /**
   * Makes the latest wait past the cap due now, when position `k` of `day` given back is one of
   * today's within the cap as it is now, the campaign is ACTIVE (a paused one parks what comes due;
   * resume places it), and that wait is due on a later day than today (one due today sends today
   * anyway). At most `cap` pulls a day and kind (`takePull`): a pulled network step that is skipped
   * too pulls the next, and each reads a profile, which the provider counts as a visit. The sender
   * then places the wait as any due action: it takes the position given back (given-back positions
   * go first), or waits past the cap again if another action took it meanwhile.
   */
  async function pullForward(owner: SlotOwner, day: string, kind: SendKind, k: number | undefined): Promise<void> {
    const now = deps.clock.now();
    const campaign = await deps.campaigns.get(owner.workspaceId, owner.campaignId);
    if (campaign?.status !== 'ACTIVE' || k === undefined || k > capOf(campaign, kind)) return;
    const today = openSpanFrom(now, campaign.sendingWindow, campaign.timezone);
    if (today?.day !== day) return;
    let budgeted = false;
    for (const prospectId of await deps.actions.waitsPastCap(owner.campaignId, kind, PULL_CANDIDATES)) {
      const waiting = await deps.actions.get(owner.campaignId, prospectId);
      if (!waiting || waiting.pastCap?.kind !== kind || waiting.claim !== null || waiting.parked !== null || waiting.dueAt === null) continue;
      // The latest wait is due today: so are the others (the index is in due order), and they send today anyway.
      if (waiting.dueAt < iso(today.end)) return;
      if (!budgeted && !(await deps.counters.takePull(owner.campaignId, day, kind, capOf(campaign, kind)))) return;
      budgeted = true;
      const pulled: OutreachAction = { ...waiting, pastCap: null, pulledFor: { day, kind, k }, dueAt: iso(now), version: waiting.version + 1, updatedAt: iso(now) };
      if (await deps.actions.replace(waiting, pulled)) return;
    }
  }

  return {
    /**
     * Gives position `k` of the campaign's `day` back (unset: one of unknown value), pulling a wait
     * forward to take it. `pull` false: only when the reason is the prospect's (it stopped, left, was
     * skipped or suppressed) is a wait pulled; one given back because its account cannot send now,
     * or the provider failed, is not, since the pulled wait would meet the same account or outage,
     * give its position back and pull the next, one after another through the backlog.
     */
    async giveBack(owner: SlotOwner, day: string, kind: SendKind, k?: number, pull = true): Promise<void> {
      await deps.counters.returnCampaignSlot(owner.campaignId, day, kind, k);
      if (pull) await pullForward(owner, day, kind, k);
    },
  };
}

export type SlotReturns = ReturnType<typeof createSlotReturns>;
