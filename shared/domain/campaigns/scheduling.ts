import type { Clock } from '../../time/clock';
import { NOT_PAST_CAP, type OutreachAction, SEND_KINDS } from '../engine/action';
import { acceptanceDeadline } from '../engine/conditions';
import { dueAfter, reachedAtOf } from '../engine/node-timing';
import type { ActionStore, SendCounters } from '../engine/ports';
import { nextUtcDay, openSpanFrom, utcDay } from '../engine/window';
import type { Campaign } from './campaign';
import type { CampaignProspect } from './campaign-prospect';
import { firstNotDone, resolveNode } from './flow';
import type { CampaignCondition, CampaignNode } from './nodes';
import { type CampaignCompletionDeps, completeCampaignsLeft } from './completion';
import type { CampaignRepository } from './ports';

/** The prospects of a campaign that wait for it to run (WAITING or QUEUED; see campaign-prospect.ts). */
export interface WaitingProspects {
  /** Up to `limit` of them, in prospect id order. */
  page(campaignId: number, limit: number): Promise<CampaignProspect[]>;
  /**
   * Schedules one at `nextActionAt` on `nodeId`, if it still waits (a prospect moved or removed
   * meanwhile is left alone); false when it no longer waited.
   */
  schedule(prospect: CampaignProspect, nodeId: number | null, nextActionAt: string): Promise<boolean>;
}

/**
 * One unit of a sweep: the campaign whose waiting prospects to schedule or, with `node_id`, whose
 * actions waiting on that node to give the node's delay as it is now (after `after`, a prospect id),
 * or, with `complete`, whose completion to ask after a request's own check failed (completion.ts).
 */
export interface SchedulingMessage {
  campaign_id: number;
  workspace_id: number;
  node_id?: number;
  after?: number;
  complete?: true;
  /** The campaign's caps or window changed: its actions waiting on them are due now (`repace`). */
  repace?: true;
}

export interface SchedulingSweepDeps {
  campaigns: Pick<CampaignRepository, 'get' | 'getWithFlow' | 'setStatus'>;
  /** Whether any of a campaign's prospects is still IN_REVIEW or IN_PROGRESS (completion.ts). */
  prospects: CampaignCompletionDeps['prospects'];
  waiting: WaitingProspects;
  /**
   * The engine's actions: those parked while the campaign was not ACTIVE (paused), due again on
   * resume; those waiting on a node whose delay was edited, due when the new delay says; those
   * waiting on the campaign's pacing when its caps, window or accounts change, due now.
   */
  parked: Pick<ActionStore, 'parkedForCampaign' | 'replace' | 'onNode' | 'inCampaign'>;
  /** The campaign's day counters: a repace forgets the demand past the cap its waits took. */
  counters: Pick<SendCounters, 'clearCampaignDemand'>;
  clock: Clock;
  /** Prospects scheduled per message; the sweep sends itself another message while more wait. */
  pageSize: number;
}

/**
 * Schedules the prospects a campaign was holding back, a page per message, when it becomes
 * ACTIVE, then makes due again the actions the engine parked while it was paused. Idempotent: a prospect is scheduled only while it still waits (a conditional write), so a
 * message handled twice schedules nobody twice. A campaign no longer ACTIVE stops the sweep: its
 * prospects keep waiting for the next activation.
 */
export function createSchedulingSweep(deps: SchedulingSweepDeps) {
  /**
   * The due time an action waiting on `node` gets by the node's delay as it is now, or undefined
   * when it should be left as it is: due already (the sender applies the delay as it is when it
   * takes the action: sender.ts heldUntil), or waiting for anything but its delay (a cap, the
   * window after the delay, an account, a retry's backoff: `waitingForDelay` false; moving those
   * would lose their place), or reached at an unknown moment (written before reachedAt).
   */
  function retimed(
    action: OutreachAction,
    placed: CampaignNode,
    campaign: Campaign,
    nodes: Map<number, CampaignNode>,
    now: Date,
  ): { dueAt: string; nodeId?: number } | undefined {
    if (action.dueAt === null || Date.parse(action.dueAt) <= now.getTime() || !action.waitingForDelay) return undefined;
    if (action.claim || action.parked || action.attempts > 0 || action.reservation || action.lastError) return undefined;
    const reached = reachedAtOf(action);
    if (!reached) return undefined;
    // A step this stay carried out, in its place, is passed over as the sender would (sender-writes.ts
    // passOver): the prospect moves on to the node after it, which waits from the same moment. At
    // the end of the flow, or at an ACCEPTED_INVITE (which looks when reached), it is due now and
    // the sender passes over.
    const next = firstNotDone(campaign.flow, placed.id, action.done);
    const node = next === null ? undefined : next === placed.id ? placed : nodes.get(next);
    const looksWhenReached = (candidate: CampaignNode): candidate is CampaignCondition => candidate.kind === 'CONDITION' && candidate.conditionType === 'ACCEPTED_INVITE';
    if (!node || (node !== placed && looksWhenReached(node))) return now.toISOString() === action.dueAt ? undefined : { dueAt: now.toISOString() };
    // ACCEPTED_INVITE looked when reached; a prospect waiting there waits for its deadline.
    const due = looksWhenReached(node) ? acceptanceDeadline(node, action, now) : dueAfter(node, reached, campaign);
    const at = new Date(Math.max(due.getTime(), now.getTime())).toISOString();
    const moved = node === placed ? {} : { nodeId: node.id };
    return at === action.dueAt && node === placed ? undefined : { dueAt: at, ...moved };
  }

  /**
   * Whether an action waits on its campaign's pacing: due later, not for a delay (the delay sweep's
   * part), a retry's backoff, a claim or a park. Its reservation, if any, stays with it: the sender
   * keeps or gives back the position when it places the action again.
   */
  function waitsOnPacing(action: OutreachAction, now: Date): boolean {
    if (action.dueAt === null || Date.parse(action.dueAt) <= now.getTime()) return false;
    return !action.waitingForDelay && action.attempts === 0 && !action.claim && !action.parked;
  }

  /**
   * Due now, for an action waiting on a deleted node that nothing took the place of: the sender
   * then finishes its sequence (or parks it, in a paused campaign, until the resume makes it due)
   * instead of at a time at which nothing would go. One the engine holds (claimed, parked, holding
   * a day's slot) is left to it.
   */
  function finishing(action: OutreachAction, now: Date): { dueAt: string } | undefined {
    if (action.dueAt === null || Date.parse(action.dueAt) <= now.getTime()) return undefined;
    return action.claim || action.parked || action.reservation ? undefined : { dueAt: now.toISOString() };
  }

  return {
    /**
     * A page of the actions waiting on a node whose delay changed, or that was deleted: each gets
     * the due time the delay (of the node now in its place) gives, earlier or later, conditional on
     * its version (one the engine moved meanwhile is left to it). The next message, or 'done' after
     * the last page. Idempotent.
     */
    async retime(message: SchedulingMessage & { node_id: number }): Promise<'done' | SchedulingMessage> {
      const found = await deps.campaigns.getWithFlow(message.workspace_id, message.campaign_id);
      if (!found || found.campaign.status === 'ARCHIVED') return 'done';
      // A deleted node: its prospects go on to the node that took its place, whose delay then counts
      // from when they reached the deleted one (as the sender's hold does). None took it: they are
      // due now, to finish. An ACCEPTED_INVITE condition in its place looks when they reach it: left.
      const target = resolveNode(found.campaign.flow, message.node_id);
      const node = target === null ? null : found.nodes.get(target);
      if (node === undefined || (node && node.id !== message.node_id && node.kind === 'CONDITION' && node.conditionType === 'ACCEPTED_INVITE')) return 'done';
      const now = deps.clock.now();
      const page = await deps.parked.onNode(found.campaign.id, message.node_id, message.after ?? 0, deps.pageSize);
      await Promise.all(
        page.actions.map((action) => {
          const change = node === null ? finishing(action, now) : retimed(action, node, found.campaign, found.nodes, now);
          // A wait past the cap made due is no longer one (nor pulled forward): the sender places it again.
          return change === undefined ? false : deps.parked.replace(action, { ...action, ...change, ...NOT_PAST_CAP, version: action.version + 1, updatedAt: now.toISOString() });
        }),
      );
      return page.last === undefined ? 'done' : { ...message, after: page.last };
    },

    /**
     * A page of the campaign's actions, after its caps or window changed: those waiting on its
     * pacing (a slot later in the day, a later day for the cap, the window's next open moment, an
     * account's daily limit) are due now, so the sender places them again by the settings as they
     * are now (a raised cap sends today, a widened window at once). Conditional on each action's
     * version; idempotent. The next message, or 'done' after the last page.
     */
    async repace(message: SchedulingMessage): Promise<'done' | SchedulingMessage> {
      const campaign = await deps.campaigns.get(message.workspace_id, message.campaign_id);
      if (campaign?.status !== 'ACTIVE' && campaign?.status !== 'PAUSED') return 'done';
      const now = deps.clock.now();
      if (message.after === undefined) {
        // The waits past the cap placed again take their demand positions again: the count of them
        // starts over, or they would be put on later days than the demand calls for. The next date
        // too: after a timezone change it may be the day the demand was counted on.
        const span = openSpanFrom(now, campaign.sendingWindow, campaign.timezone);
        const days = span ? [span.day, utcDay(nextUtcDay(new Date(`${span.day}T00:00:00Z`)))] : [];
        await Promise.all(days.flatMap((day) => SEND_KINDS.map((kind) => deps.counters.clearCampaignDemand(campaign.id, day, kind))));
      }
      const page = await deps.parked.inCampaign(campaign.id, message.after ?? 0, deps.pageSize);
      await Promise.all(
        page.actions.map((action) =>
          waitsOnPacing(action, now) ? deps.parked.replace(action, { ...action, ...NOT_PAST_CAP, dueAt: now.toISOString(), version: action.version + 1, updatedAt: now.toISOString() }) : false,
        ),
      );
      return page.last === undefined ? 'done' : { ...message, after: page.last };
    },

    /** Asks whether the campaign is complete; an error is thrown, so the queue delivers the message again. */
    complete(message: SchedulingMessage): Promise<void> {
      return completeCampaignsLeft({ campaigns: deps.campaigns, prospects: deps.prospects, clock: deps.clock }, message.workspace_id, [message.campaign_id]);
    },

    /** 'more' when prospects may still wait (send the message again), 'done' otherwise. */
    async run(message: SchedulingMessage): Promise<'done' | 'more'> {
      const campaign = await deps.campaigns.get(message.workspace_id, message.campaign_id);
      if (campaign?.status !== 'ACTIVE') return 'done';
      const now = deps.clock.now().toISOString();
      const page = await deps.waiting.page(campaign.id, deps.pageSize);
      // At the flow's root as it is now: the node that was the root when they were added may have
      // moved down, or been deleted (its redirect would end their sequence before it began).
      await Promise.all(page.map((prospect) => deps.waiting.schedule(prospect, campaign.flow.root, now)));
      if (page.length === deps.pageSize) return 'more';
      // Then the actions that were due while it was paused: due now (a replaced one was moved on meanwhile).
      const parked = await deps.parked.parkedForCampaign(campaign.id, deps.pageSize - page.length);
      await Promise.all(
        parked.map((action) => deps.parked.replace(action, { ...action, dueAt: now, parked: null, reservation: null, version: action.version + 1, updatedAt: now })),
      );
      if (page.length + parked.length === deps.pageSize) return 'more';
      // Activated or resumed with every prospect finished (a COMPLETED campaign activated, or the
      // last unfinished one removed while it was paused): nothing will end a sequence to ask, so
      // the end of the sweep asks whether it is complete, as a departure does.
      await completeCampaignsLeft({ campaigns: deps.campaigns, prospects: deps.prospects, clock: deps.clock }, campaign.workspaceId, [campaign.id]);
      return 'done';
    },
  };
}

export type SchedulingSweep = ReturnType<typeof createSchedulingSweep>;
