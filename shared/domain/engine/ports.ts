import type { Company, Prospect } from '../leads/lead';
import type { ActionOutcome, ActionRef, OutreachAction, SendKind, SentEmail } from './action';

/** A wait past the cap as the index lists it: a wait whose stored due time differs has moved since (`waitsPastCap`). */
export interface WaitInLine {
  prospectId: number;
  dueAt: string;
}

/** The engine's actions (shared/db/outreach-actions.ts). */
export interface ActionStore {
  /** `consistent` false: an eventually consistent read (half the price), for decisions a conditional write confirms. */
  get(campaignId: number, prospectId: number, consistent?: boolean): Promise<OutreachAction | undefined>;
  /**
   * A prospect's first action while its campaign prospect carries it (not written yet: version 0;
   * see `ActionRef.first`); undefined once written, when the prospect has none, or when its
   * sequence was stopped or ended (then the campaign prospect's keys are removed).
   */
  pending(campaignId: number, prospectId: number, consistent?: boolean): Promise<OutreachAction | undefined>;
  /**
   * Writes `next` (version = previous + 1) if the stored action still has `previous`'s version and
   * stint; false when it changed or is gone. A version 0 `previous` (a first action): written with
   * its campaign prospect's keys removed, in one transaction, if the campaign prospect still carries
   * it and its sequence was not stopped. The due-time index follows `next.dueAt`.
   */
  replace(previous: OutreachAction, next: OutreachAction): Promise<boolean>;
  /** Deletes it if it still has this version and stint (its sequence ended, or it was cancelled). */
  remove(action: OutreachAction): Promise<boolean>;
  /**
   * Prospects whose actions wait for a later day past the campaign's cap of `kind`
   * (`OutreachAction.pastCap`), whatever day counted them, with the due time the index has them
   * at: the latest due first, up to `limit` (strongly consistent).
   */
  waitsPastCap(campaignId: number, kind: SendKind, limit: number): Promise<WaitInLine[]>;
  /** Actions of a campaign parked because it stopped running, up to `limit`. */
  parkedForCampaign(campaignId: number, limit: number): Promise<OutreachAction[]>;
  /**
   * The campaign's actions on a node, of the prospects after `afterProspectId` in id order, looking
   * at up to `limit` actions of the campaign; `last`: the prospect id to go on after, undefined
   * when none is left.
   */
  onNode(campaignId: number, nodeId: number, afterProspectId: number, limit: number): Promise<{ actions: OutreachAction[]; last?: number }>;
  /** The campaign's actions, as `onNode` pages them, on any node. */
  inCampaign(campaignId: number, afterProspectId: number, limit: number): Promise<{ actions: OutreachAction[]; last?: number }>;
}

/** The due-time index the scheduler reads (sharded, see shared/db/keys.ts DUE_SHARDS). */
export interface DueIndex {
  readonly shards: number;
  /** Entries of one shard due in (after, upTo], oldest first; `after` undefined: from the start. */
  due(shard: number, upTo: string, after: string | undefined, limit: number, startKey?: unknown): Promise<{ refs: ActionRef[]; next?: unknown }>;
}

/** A lease per shard, so two scheduler runs never dispatch one shard at once; it keeps how far the shard was dispatched. */
export interface DispatchLeases {
  /** Takes the shard's lease until `until` if it is free at `now`; undefined when another run holds it. */
  take(shard: number, now: string, until: string, holder: string): Promise<{ through?: string; fullSweepAt?: string } | undefined>;
  release(shard: number, holder: string, state: { through: string; fullSweepAt?: string | undefined }): Promise<void>;
}

/** Sends due actions to the sender queue. */
export interface ActionQueue {
  send(batches: ActionRef[][]): Promise<void>;
}

/** Atomic daily counters of sends (shared/db/send-counters.ts). */
export interface SendCounters {
  /**
   * Takes the next position in the campaign's day for a kind (1-based) while fewer than `cap` are
   * taken; at the cap, `cap` + the day's demand past it so far (positions past the cap are demand,
   * not sends, and never count against a cap raised later that day).
   */
  takeCampaignSlot(campaignId: number, day: string, kind: SendKind, cap: number): Promise<number>;
  /**
   * Gives a position back (the send did not happen). `position`: which one, so that the next taker
   * gets it and no position another action holds (unset for a claim written before 2026-11-28 night:
   * the count goes down by one). True when it was given back now (false: already given back, or
   * the count could not be lowered).
   */
  returnCampaignSlot(campaignId: number, day: string, kind: SendKind, position?: number): Promise<boolean>;
  /**
   * Counts one wait pulled forward into the campaign's day (slot-returns.ts) while fewer than
   * `budget` were; false when the day's budget is spent.
   */
  takePull(campaignId: number, day: string, kind: SendKind, budget: number): Promise<boolean>;
  /** Gives back a pull counted by `takePull` that pulled nothing (every candidate changed meanwhile). */
  returnPull(campaignId: number, day: string, kind: SendKind): Promise<void>;
  /** Forgets the day's demand past the cap (its waits are placed again: campaigns/scheduling.ts `repace`). */
  clearCampaignDemand(campaignId: number, day: string, kind: SendKind): Promise<void>;
  /** Counts one send of the account's UTC day if it stays within `limit`; false when the limit is reached. */
  takeAccountSend(accountId: number, day: string, kind: SendKind, limit: number): Promise<boolean>;
  returnAccountSend(accountId: number, day: string, kind: SendKind): Promise<void>;
}

export interface OutcomeLog {
  /** Records the outcome once (a repeat of the same stint and node is ignored). */
  record(outcome: ActionOutcome): Promise<void>;
  recordEmail(email: SentEmail): Promise<void>;
}

/**
 * A prospect's status as the engine moves it, written with the prospect (its lists' views show it)
 * and its campaign prospect item. `gone`: it is no longer in this campaign.
 */
/** A prospect and its company as a caller read them a moment ago (the sender batch's reads). */
export interface KnownProspect {
  prospect: Prospect;
  company: Company | undefined;
}

export interface ProspectProgress {
  /** `known`: the prospect and its company as the caller read them (the write starts from them). */
  start(action: OutreachAction, known?: KnownProspect): Promise<'applied' | 'gone'>;
  finish(action: OutreachAction, status: 'FINISHED' | 'BOUNCED', lastError: string | null, known?: KnownProspect): Promise<'applied' | 'gone'>;
}

/** Whether a campaign still has prospects the engine has not finished with. */
export interface CampaignCompletion {
  hasUnfinished(campaignId: number): Promise<boolean>;
}
