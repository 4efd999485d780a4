import type { LeadChange } from '../leads/ports';
import type { HeldSlot } from './action';
import type { SlotReturns } from './slot-returns';

export type { HeldSlot } from './action';

/**
 * Slots of a campaign's daily cap that pending actions hold when their prospects leave the campaign
 * (moved to another, removed, archived). The move deletes the action in its own transaction; read
 * just before, an action that holds a slot reserved for later in the day is deleted only at the
 * version read (a change meanwhile, such as the engine claiming it, fails the write, which is
 * planned again from fresh reads), and once written its slot is given back: the day can still send
 * its cap (docs/engine.md, "Daily caps and accounts"). So is one waiting in line past the cap, and
 * once written its place is handed to the latest wait in line, so the day it would have gone on
 * still sends its cap. An action read holding neither (or not there yet: a first action still on
 * the campaign prospect item) is deleted only while it still holds neither, so one that takes a
 * reservation or a place in line after the read fails the write too and is read again.
 */

export interface HeldSlotReader {
  /** The version and slot or place in line of the named actions that hold one (consistent reads); keyed `campaignId:prospectId`. */
  heldSlots(keys: { campaignId: number; prospectId: number }[]): Promise<Map<string, HeldSlot>>;
}

export interface CampaignSlots {
  /** The changes, those leaving a campaign with the slot or place in line their action there holds. */
  withHeldSlots(changes: LeadChange[]): Promise<LeadChange[]>;
  /** Gives back the slots of the written changes that held one, and hands on their places in line. */
  giveBack(written: LeadChange[]): Promise<void>;
}

export const heldSlotKey = (campaignId: number, prospectId: number) => `${campaignId}:${prospectId}`;

/** The campaign it leaves, unless it enters the same one. */
const leftCampaign = (change: LeadChange): number | undefined => {
  const move = change.campaign;
  return move?.leave !== undefined && move.leave !== move.enter?.campaignId ? move.leave : undefined;
};

export function createCampaignSlots(deps: { actions: HeldSlotReader; slots: SlotReturns }): CampaignSlots {
  return {
    async withHeldSlots(changes) {
      const keys = changes.flatMap((change) => {
        const campaignId = leftCampaign(change);
        return campaignId === undefined ? [] : [{ campaignId, prospectId: change.after.id }];
      });
      if (keys.length === 0) return changes;
      const held = await deps.actions.heldSlots(keys);
      return changes.map((change) => {
        const campaignId = leftCampaign(change);
        const slot = campaignId === undefined ? undefined : held.get(heldSlotKey(campaignId, change.after.id));
        return slot && change.campaign ? { ...change, campaign: { ...change.campaign, leaving: slot } } : change;
      });
    },
    async giveBack(written) {
      // The moves are written: a slot not given back only means that day sends one fewer, so a
      // failure here is not the request's (it must not answer 500 for a move it made; a failed
      // pull is reported by the slot returns themselves). All at once: one campaign read and one
      // index Query per campaign, day and kind pull the waits for all of them, and one index Query
      // per campaign and kind hands on all the places left (slot-returns.ts).
      const owned = written.flatMap((change) => {
        const campaignId = leftCampaign(change);
        const held = change.campaign?.leaving;
        return campaignId === undefined || !held ? [] : [{ owner: { workspaceId: change.after.workspaceId, campaignId }, held }];
      });
      const positions = owned.flatMap(({ owner, held }) => (held.reservation ? [{ owner, ...held.reservation }] : []));
      const places = owned.flatMap(({ owner, held }) => (!held.reservation && held.inLine ? [{ owner, ...held.inLine }] : []));
      if (positions.length > 0) await deps.slots.giveBackAll(positions).catch(() => undefined);
      if (places.length > 0) await deps.slots.passOn(places).catch(() => undefined);
    },
  };
}
