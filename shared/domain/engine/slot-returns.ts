import type { Clock } from '../../time/clock';
import type { CampaignRepository } from '../campaigns/ports';
import type { OutreachAction, SendKind } from './action';
import type { ActionStore, SendCounters } from './ports';
import { openSpanFrom } from './window';

/** Waits past the cap a give-back looks at: the latest first, the next when one changed meanwhile. */
const PULL_CANDIDATES = 3;

export interface SlotReturnDeps {
  counters: Pick<SendCounters, 'returnCampaignSlot'>;
  actions: Pick<ActionStore, 'waitsPastCap' | 'get' | 'replace'>;
  campaigns: Pick<CampaignRepository, 'get'>;
  clock: Clock;
}

/** Who gives a position back: the campaign's action (its workspace reads the campaign). */
export type SlotOwner = Pick<OutreachAction, 'workspaceId' | 'campaignId'>;

/**
 * Campaign positions given back, by the engine and by what stops or moves prospects (docs/engine.md,
 * "Daily caps and accounts"). When the day has demand past its cap (actions placed on later days),
 * the latest of those waits is pulled forward to take the position, so the day still sends its cap:
 * a network step skipped at its slot (not connected), a suppressed address, a prospect that left
 * or stopped. Before 2026-11-29 the position stayed free, and each such give-back left the day one
 * send short while prospects waited for later days.
 */
export function createSlotReturns(deps: SlotReturnDeps) {
  const iso = (date: Date) => date.toISOString();

  /**
   * Makes the latest wait past the cap counted on `day` due now, while that day is the campaign's
   * sending day (today, its window open now or later) and the campaign is ACTIVE (a paused one
   * parks what comes due; resume places it). The sender then places it as any due action: it takes
   * the position given back (positions given back are handed out first), or, if another action
   * took it meanwhile, waits past the cap again. Costs a Query of keys and a read of the campaign,
   * only on a give-back while demand waits past the cap; one action rewritten.
   */
  async function pullForward(owner: SlotOwner, day: string, kind: SendKind): Promise<void> {
    const now = deps.clock.now();
    const campaign = await deps.campaigns.get(owner.workspaceId, owner.campaignId);
    if (campaign?.status !== 'ACTIVE' || openSpanFrom(now, campaign.sendingWindow, campaign.timezone)?.day !== day) return;
    for (const prospectId of await deps.actions.waitsPastCap(owner.campaignId, kind, day, PULL_CANDIDATES)) {
      const waiting = await deps.actions.get(owner.campaignId, prospectId);
      const still = waiting?.pastCap?.day === day && waiting.pastCap.kind === kind && waiting.claim === null && waiting.parked === null;
      if (!waiting || !still || waiting.dueAt === null || waiting.dueAt <= iso(now)) continue;
      const pulled: OutreachAction = { ...waiting, pastCap: null, dueAt: iso(now), version: waiting.version + 1, updatedAt: iso(now) };
      if (await deps.actions.replace(waiting, pulled)) return;
    }
  }

  return {
    /**
     * Gives position `k` of the campaign's `day` back (unset: one of unknown value), pulling a wait
     * forward to take it. `pull` false: only when the reason is the prospect's (it stopped, left, was
     * skipped or suppressed) is a wait pulled; one given back because its account cannot send now,
     * or the provider failed, is not, since the pulled wait would meet the same account or outage,
     * give its position back and pull the next, one after another through every wait of the backlog.
     */
    async giveBack(owner: SlotOwner, day: string, kind: SendKind, k?: number, pull = true): Promise<void> {
      if ((await deps.counters.returnCampaignSlot(owner.campaignId, day, kind, k)) && pull) await pullForward(owner, day, kind);
    },
  };
}

export type SlotReturns = ReturnType<typeof createSlotReturns>;
