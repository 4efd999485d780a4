import type { Campaign } from '../campaigns/campaign';
import { completeIfFinished } from '../campaigns/completion';
import { firstNotDone, linkOf } from '../campaigns/flow';
import type { CampaignNode } from '../campaigns/nodes';
import { NOT_PAST_CAP, type OutreachAction, type ParkReason } from './action';
import { dueAfter, reachedAtOf } from './node-timing';
import { createSlotReturns } from './slot-returns';
import type { KnownProspect } from './ports';
import type { BatchReads } from './sender-reads';
import type { ActionResult, SenderDeps } from './sender-deps';

const iso = (date: Date) => date.toISOString();

/**
 * How the sender (sender.ts) writes an action: a new version of it, given back reservations,
 * parks and waits, the end of a sequence, the move to the next node, and the completion of the
 * campaigns whose sequences ended in a batch.
 */
export function createActionWrites(deps: Pick<SenderDeps, 'actions' | 'counters' | 'progress' | 'completion' | 'campaigns' | 'clock' | 'onPullFailed'>) {
  const bump = (action: OutreachAction, now: Date, change: Partial<OutreachAction>): OutreachAction => ({
    ...action,
    // A wait past the cap, and a pull forward, are one write's state: the write that waits so again says so.
    ...NOT_PAST_CAP,
    // A first action's first write keeps when the prospect was scheduled (its due time then), which
    // the delay of the node it starts at counts from (heldUntil).
    ...(action.version === 0 && action.lastActionAt === null ? { lastActionAt: action.dueAt, reachedAt: action.dueAt } : {}),
    ...change,
    version: action.version + 1,
    updatedAt: iso(now),
  });

  /** Gives a campaign position back, pulling a wait past the cap forward to take it (slot-returns.ts). */
  const { giveBack: giveBackSlot } = createSlotReturns(deps);

  /**
   * The action store as the sender writes it: an action that held a reserved slot of its day
   * (a position within the cap, waiting for its time) and is written without it gives the position
   * back, so the day can still send its cap: it left (moved out, removed, archived), was parked,
   * skipped, or waits for something else now (docs/engine.md, "Daily caps and accounts"). Only the
   * claim, which sends in that slot, keeps it (written with `deps.actions.replace` itself).
   */
  const actions = {
    /** `pull` false: a position given back pulls no wait forward (slot-returns.ts: an account's wait). */
    async replace(before: OutreachAction, after: OutreachAction, pull = true): Promise<boolean> {
      const written = await deps.actions.replace(before, after);
      if (written) await releaseReservation(before, after.reservation, pull);
      return written;
    },
    async remove(before: OutreachAction): Promise<boolean> {
      const removed = await deps.actions.remove(before);
      if (removed) await releaseReservation(before, null);
      return removed;
    },
  };
  async function releaseReservation(before: OutreachAction, kept: OutreachAction['reservation'], pull = true): Promise<void> {
    const held = before.reservation;
    if (!held || (kept && kept.day === held.day && kept.kind === held.kind && kept.k === held.k)) return;
    await giveBackSlot(before, held.day, held.kind, held.k, pull);
  }

  /**
   * The campaigns (as read by one batch: each batch reads its own objects, so concurrent batches
   * never see each other's) in which a sequence ended: checked for completion once, at the end of
   * the batch, instead of after every finished prospect.
   */
  const sequencesEnded = new WeakSet<Campaign>();

  /** A campaign whose prospects have all finished becomes COMPLETED. */
  async function completeCampaigns(reads: BatchReads): Promise<void> {
    // A campaign the batch read again (sender-reads.ts) is there once per copy: asked once.
    const ended = new Map<number, Campaign>();
    for (const campaign of await reads.campaignsRead()) {
      if (!sequencesEnded.has(campaign)) continue;
      sequencesEnded.delete(campaign);
      ended.set(campaign.id, campaign);
    }
    // The batch's copy may be old (its prospect count): the check reads the campaign again.
    for (const campaign of ended.values()) await completeIfFinished({ campaigns: deps.campaigns, prospects: deps.completion, clock: deps.clock }, campaign.workspaceId, campaign.id);
  }

  async function park(action: OutreachAction, reason: ParkReason, now: Date, nodeId = action.nodeId): Promise<ActionResult> {
    // A reason of pacing (a cap or limit of some day, an account) no longer holds a parked action: cleared; a retry's is kept.
    const parked = bump(action, now, { dueAt: null, parked: reason, nodeId, reservation: null, waitingForDelay: false, ...(action.attempts === 0 ? { lastError: null } : {}) });
    return (await actions.replace(action, parked)) ? 'parked' : 'raced';
  }

  /** `options.pull` false: a slot it held is given back without pulling a wait forward (an account's wait). */
  async function wait(action: OutreachAction, now: Date, change: Pick<OutreachAction, 'dueAt'> & Partial<OutreachAction>, options: { pull?: boolean } = {}): Promise<boolean> {
    return actions.replace(action, bump(action, now, { reservation: null, waitingForDelay: false, ...change }), options.pull ?? true);
  }

  /** Ends the prospect's sequence: its status, then the action; whether the campaign is done is asked once per batch (completeCampaigns). */
  async function finish(action: OutreachAction, campaign: Campaign, status: 'FINISHED' | 'BOUNCED', lastError: string | null, known?: KnownProspect): Promise<ActionResult> {
    await deps.progress.finish(action, status, lastError, known);
    await actions.remove(action);
    sequencesEnded.add(campaign);
    return 'finished';
  }

  /**
   * After an action was carried out (sent or skipped): on to the step's child, or the end of the
   * flow. `actedAt` is when it was carried out: now, or for a send found later (after a lost answer
   * or a crash) when it went out, so the next node's delay counts from the send, not the look.
   */
  async function advance(
    action: OutreachAction,
    campaign: Campaign,
    nodes: Map<number, CampaignNode>,
    nodeId: number,
    now: Date,
    change: Partial<OutreachAction>,
    known?: KnownProspect,
    actedAt = now,
  ): Promise<void> {
    const done = [...action.done, nodeId];
    const next = childNotDone(campaign, nodeId, done);
    if (next === null) {
      await finish(action, campaign, 'FINISHED', null, known);
      return;
    }
    if (!action.started && (await deps.progress.start(action, known)) === 'gone') {
      await actions.remove(action);
      return;
    }
    await moveTo(action, campaign, nodes, next, now, { ...change, lastActionAt: iso(actedAt), started: true, done }, actedAt);
  }

  /**
   * The node after `nodeId` the prospect goes to: its child, past the steps this stay already
   * carried out (an edit of the flow put them after it again: passed over, nothing sent, and their
   * delays not waited); null at the end of the flow.
   */
  const childNotDone = (campaign: Campaign, nodeId: number, done: number[]): number | null =>
    firstNotDone(campaign.flow, linkOf(campaign.flow, nodeId)?.child ?? null, done);

  /**
   * Passes over a step this stay already carried out (an edit of the flow put it after the
   * prospect's place again): on to its child, nothing sent or recorded, or the end of the flow.
   */
  async function passOver(action: OutreachAction, campaign: Campaign, nodes: Map<number, CampaignNode>, nodeId: number, now: Date): Promise<ActionResult> {
    const next = childNotDone(campaign, nodeId, action.done);
    if (next === null) return finish(action, campaign, 'FINISHED', null);
    // Nothing happens at a step passed over: its child is reached when it was (its delay counts
    // from the prospect's last action, not from the passed-over step's own delay on top).
    return (await moveTo(action, campaign, nodes, next, now, {}, reachedAtOf(action))) ? 'skipped' : 'raced';
  }

  /**
   * Puts the action on node `next`, reached at `reached` (now, unless a step was passed over or a
   * send was found after it went out) and
   * due when that node is carried out (dueAfter), not before now.
   */
  async function moveTo(action: OutreachAction, campaign: Campaign, nodes: Map<number, CampaignNode>, next: number, now: Date, change: Partial<OutreachAction>, reached = now) {
    const node = nodes.get(next);
    const delayed = dueAfter(node, reached, campaign);
    // Its delay over already (reached earlier, a step passed over): the window's next open moment from now.
    const dueAt = delayed.getTime() >= now.getTime() || !node ? delayed : dueAfter({ ...node, delayInHours: 0 }, now, campaign);
    return actions.replace(
      action,
      bump(action, now, {
        ...change,
        nodeId: next,
        atEntry: false,
        dueAt: iso(dueAt),
        reachedAt: iso(reached),
        waitingForDelay: true,
        claim: null,
        reservation: null,
        attempts: 0,
        lastError: null,
        answerLost: null,
      }),
    );
  }

  /** A campaign to ask about at the end of the batch, as after a finished sequence. */
  const sequenceEnded = (campaign: Campaign) => void sequencesEnded.add(campaign);

  return { bump, actions, giveBackSlot, park, wait, finish, advance, passOver, moveTo, completeCampaigns, sequenceEnded };
}
