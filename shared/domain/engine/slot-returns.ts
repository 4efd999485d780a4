import type { Clock } from '../../time/clock';
import type { CampaignRepository } from '../campaigns/ports';
import { type OutreachAction, type PlaceInLine, type SendKind, placeInLine } from './action';
import type { ActionStore, SendCounters, WaitInLine } from './ports';
import { SLOT_TOLERANCE_MS, capOf } from './pacing';
import { openSpanFrom } from './window';

/**
 * Waits past the cap a pull looks at beyond one per position: a candidate another pull took, or one
 * changed meanwhile (a stale index entry), is passed over for the next.
 */
const SPARE_CANDIDATES = 10;
/**
 * No pull in the window's last minute, the scheduler's period (as the slots' tolerance): a wait
 * made due later might be dispatched after the window closed. Not the slots' 90 s end margin: the
 * last slots sit exactly there, and a skip at one of them would never pull (a probe, 2026-11-29).
 */
const PULL_END_MARGIN_MS = SLOT_TOLERANCE_MS;
/** Pulls or handovers of one group carried out at once (a bulk removal gives back many positions or places). */
const PULL_CONCURRENCY = 10;

/** Runs `each` over `items`, PULL_CONCURRENCY at a time. */
async function tenAtATime<T>(items: T[], each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += PULL_CONCURRENCY) await Promise.all(items.slice(i, i + PULL_CONCURRENCY).map(each));
}

/**
 * Where a pull that failed is reported (the day then sends one fewer, as before pulls existed):
 * `day` for a position given back, `place` (its due time) for a place in line left (`passOn`).
 */
export type PullFailed = (error: unknown, at: { campaignId: number; kind: SendKind; day?: string; place?: string }) => void;

export interface SlotReturnDeps {
  counters: Pick<SendCounters, 'returnCampaignSlot' | 'takePull' | 'returnPull'>;
  actions: Pick<ActionStore, 'waitsPastCap' | 'get' | 'replace'>;
  campaigns: Pick<CampaignRepository, 'get'>;
  clock: Clock;
  /** A pull never fails its caller (a send's result, a stop, a move): its error comes here. */
  onPullFailed?: PullFailed;
}

/** Who gives a position back: the campaign's action (its workspace reads the campaign). */
export type SlotOwner = Pick<OutreachAction, 'workspaceId' | 'campaignId'>;

/** A position given back: `pull` false when the reason is not the prospect's own (see `giveBack`). */
export interface GivenBack {
  owner: SlotOwner;
  day: string;
  kind: SendKind;
  /** The position; unset for a claim written before 2026-11-28 night (one of unknown value). */
  k?: number;
  pull?: boolean;
}

/**
 * The place in line of a wait past the cap whose prospect left it (removed, moved out, archived,
 * stopped): its kind and due time. See `passOn`.
 */
export interface PlaceLeft extends PlaceInLine {
  owner: SlotOwner;
}

/** An action waiting in line past the cap: its due time is set. */
type WaitingAction = OutreachAction & { dueAt: string };

/**
 * Campaign positions given back, by the engine and by what stops or moves prospects (docs/engine.md,
 * "Daily caps and accounts"). A position of today's cap given back for a reason of the prospect's
 * own pulls the latest wait past the cap (one placed on a later day) forward to take it, so the day
 * still sends its cap: a network step skipped at its slot (not connected), a suppressed address, a
 * prospect that left or stopped. Before 2026-11-29 the position stayed free, and each such
 * give-back left the day one send short while prospects waited for later days. Likewise a place in
 * line past the cap left by its prospect is handed to the latest wait (`passOn`).
 */

export function createSlotReturns(deps: SlotReturnDeps) {
  const iso = (date: Date) => date.toISOString();

  /**
   * The candidate's action, read strongly, if it still waits in line past the cap of `kind` where
   * the index listed it. One moved since the index was read (by another pull or handover running
   * at once) is passed over: taken again it would leave the place it was moved to empty, and
   * compared by its new due time it would break the latest-first order the caller stops by.
   */
  async function stillWhereListed(campaignId: number, kind: SendKind, candidate: WaitInLine): Promise<WaitingAction | undefined> {
    const waiting = await deps.actions.get(campaignId, candidate.prospectId);
    const inLine = waiting ? placeInLine(waiting) : undefined;
    return waiting && inLine?.kind === kind && inLine.dueAt === candidate.dueAt ? { ...waiting, dueAt: inLine.dueAt } : undefined;
  }

  /**
   * The waits past the cap of `kind` the index lists, latest first, walked by callers running at
   * once (one per position or place): each gets the next one still where it was listed, so no two
   * take the same. `stop`: the walk is over for all of them (the rest are due too early).
   */
  async function lineOf(campaignId: number, kind: SendKind, limit: number) {
    const candidates = await deps.actions.waitsPastCap(campaignId, kind, limit);
    let next = 0;
    let stopped = false;
    return {
      async next(): Promise<WaitingAction | undefined> {
        while (!stopped && next < candidates.length) {
          const waiting = await stillWhereListed(campaignId, kind, candidates[next++] as WaitInLine);
          if (waiting) return waiting;
        }
        return undefined;
      },
      stop() {
        stopped = true;
      },
    };
  }

  /**
   * Makes one wait past the cap due now for each position `ks` of `day` given back, when the day is
   * today's and its window has more than a minute to go (a wait pulled later might not be sent
   * before it closes), the position is within the cap as it is now, the campaign is ACTIVE
   * (a paused one parks what comes due; resume places it), and the wait is due on a later day (one
   * due today sends today anyway). The latest waits go first. At most `cap` pulls a day and kind
   * (`takePull`): a pulled network step that is skipped too pulls the next, and each reads a
   * profile, which the provider counts as a visit. The sender then places each pulled wait as any
   * due action: it takes a position given back (those go first), or waits past the cap again if
   * another action took it meanwhile.
   */
  async function pullForward(owner: SlotOwner, day: string, kind: SendKind, ks: number[]): Promise<void> {
    const now = deps.clock.now();
    const campaign = await deps.campaigns.get(owner.workspaceId, owner.campaignId);
    if (campaign?.status !== 'ACTIVE') return;
    const cap = capOf(campaign, kind);
    const positions = ks.filter((k) => k <= cap);
    const today = openSpanFrom(now, campaign.sendingWindow, campaign.timezone);
    if (positions.length === 0 || today?.day !== day || now.getTime() >= today.end.getTime() - PULL_END_MARGIN_MS) return;
    const line = await lineOf(owner.campaignId, kind, positions.length + SPARE_CANDIDATES);
    // Each position takes the next candidate still waiting past the cap for a later day; the
    // candidates are in due order, latest first, so one due today means none later is left.
    const pullOne = async (k: number): Promise<void> => {
      let budgeted = false;
      for (let waiting = await line.next(); waiting; waiting = await line.next()) {
        if (waiting.dueAt < iso(today.end)) {
          line.stop();
          break;
        }
        if (!budgeted && !(await deps.counters.takePull(owner.campaignId, day, kind, cap))) {
          line.stop();
          return;
        }
        budgeted = true;
        const pulled: OutreachAction = { ...waiting, pastCap: null, pulledFor: { day, kind, k }, dueAt: iso(now), version: waiting.version + 1, updatedAt: iso(now) };
        if (await deps.actions.replace(waiting, pulled)) return;
      }
      // Budget taken and nothing pulled: given back, so it counts pulls that happened.
      if (budgeted) await deps.counters.returnPull(owner.campaignId, day, kind);
    };
    await tenAtATime(positions, pullOne);
  }

  /** Gives the positions back, then pulls waits forward for those of the prospect's own, per campaign, day and kind. */
  async function giveBackAll(positions: GivenBack[]): Promise<void> {
    const freed = await Promise.all(positions.map(({ owner, day, kind, k }) => deps.counters.returnCampaignSlot(owner.campaignId, day, kind, k)));
    const groups = new Map<string, { owner: SlotOwner; day: string; kind: SendKind; ks: number[] }>();
    positions.forEach((given, i) => {
      // Only a position really given back now, of known value, for a reason of the prospect's own.
      if (!freed[i] || given.k === undefined || given.pull === false) return;
      const key = `${given.owner.campaignId}|${given.day}|${given.kind}`;
      const group = groups.get(key) ?? { owner: given.owner, day: given.day, kind: given.kind, ks: [] };
      group.ks.push(given.k);
      groups.set(key, group);
    });
    for (const { owner, day, kind, ks } of groups.values()) {
      try {
        await pullForward(owner, day, kind, ks);
      } catch (error) {
        // The position is given back; without the pull the day sends one fewer, as it did before
        // pulls existed. Thrown, it would fail a send already made or a stop half written.
        deps.onPullFailed?.(error, { campaignId: owner.campaignId, day, kind });
      }
    }
  }

  /**
   * Hands each place left in line to the latest wait past the cap of its kind due after it: that
   * wait takes the place's due time (and stays past the cap: it takes a position when it comes due,
   * like the one that left). The places are taken earliest first, by the latest waits first, so the
   * backlog's last day is the one that gets fewer. A place already due is left: its action may be
   * in the sender's hands, which gives back a position it took itself.
   */
  async function passOnGroup(owner: SlotOwner, kind: SendKind, dueTimes: string[]): Promise<void> {
    const now = iso(deps.clock.now());
    const places = dueTimes.filter((dueAt) => dueAt > now).sort();
    if (places.length === 0) return;
    const line = await lineOf(owner.campaignId, kind, places.length + SPARE_CANDIDATES);
    const takeOne = async (place: string): Promise<void> => {
      for (let waiting = await line.next(); waiting; waiting = await line.next()) {
        // Latest first: one due no later than the place means no later wait is left for it, nor
        // for the later places.
        if (waiting.dueAt <= place) {
          line.stop();
          return;
        }
        if (await deps.actions.replace(waiting, { ...waiting, dueAt: place, version: waiting.version + 1, updatedAt: now })) return;
      }
    };
    await tenAtATime(places, takeOne);
  }

  /**
   * Places left in line past the cap (docs/engine.md, "Daily caps and accounts"): each is handed
   * to the latest wait of its kind due after it, per campaign and kind. Never throws: the prospects
   * have left, and without the handover a later day only sends one fewer (reported as a pull).
   */
  async function passOn(left: PlaceLeft[]): Promise<void> {
    const groups = new Map<string, { owner: SlotOwner; kind: SendKind; dueTimes: string[] }>();
    for (const { owner, kind, dueAt } of left) {
      const key = `${owner.campaignId}|${kind}`;
      const group = groups.get(key) ?? { owner, kind, dueTimes: [] };
      group.dueTimes.push(dueAt);
      groups.set(key, group);
    }
    for (const { owner, kind, dueTimes } of groups.values()) {
      try {
        await passOnGroup(owner, kind, dueTimes);
      } catch (error) {
        deps.onPullFailed?.(error, { campaignId: owner.campaignId, kind, place: dueTimes.sort()[0] as string });
      }
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
    giveBack(owner: SlotOwner, day: string, kind: SendKind, k?: number, pull = true): Promise<void> {
      return giveBackAll([{ owner, day, kind, ...(k === undefined ? {} : { k }), pull }]);
    },
    /** Many positions at once (a request's moves): one campaign read and one index Query per campaign, day and kind. */
    giveBackAll,
    passOn,
  };
}

export type SlotReturns = ReturnType<typeof createSlotReturns>;
