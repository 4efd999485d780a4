import type { StepType } from '../campaigns/flow';
import type { Variant } from './render';

/**
 * A prospect's next action in a campaign: the engine's own item beside the campaign prospect
 * (shared/db/outreach-actions.ts). It exists while the prospect is scheduled in the campaign and is
 * deleted with it (moved out, archived, removed) or when its sequence ends. Every write of it is
 * conditional on `version` and `stint` (optimistic concurrency), so a redelivered or duplicate
 * message can never act on it twice. docs/engine.md, "The state of an action".
 */

/** The three kinds of sends, each with its own daily caps. */
export const SEND_KINDS = ['EMAIL', 'INVITE', 'MESSAGE'] as const;
export type SendKind = (typeof SEND_KINDS)[number];

export const kindOfStep = (type: StepType): SendKind => (type === 'EMAIL' ? 'EMAIL' : type === 'NETWORK_INVITE' ? 'INVITE' : 'MESSAGE');
export const channelOfKind = (kind: SendKind): 'EMAIL' | 'NETWORK' => (kind === 'EMAIL' ? 'EMAIL' : 'NETWORK');

/** Why an action is out of the due-time index: the campaign stopped running, or the flow waits at a condition. */
export type ParkReason = 'CAMPAIGN_NOT_ACTIVE' | 'CONDITION' | 'NO_SENDING_DAY';

export interface ActionClaim {
  /** Unique per claim: the result write must carry it. */
  token: string;
  at: string;
  /** The sender account the send goes through. */
  accountId: number;
  kind: SendKind;
  /** The UTC day the account's counter was taken in, and the campaign day of its counter. */
  accountDay: string;
  campaignDay: string;
  /** The position the send holds in its campaign day's cap (since 2026-11-28 night): given back by value. */
  campaignK?: number;
  /**
   * A network step's text as it goes out (the message, or the invitation's note): what the crash
   * rule looks for in the account's chat, whatever the step or the prospect became since. Unset
   * for an email (the provider cannot be asked) and on claims written before 2026-11-27.
   */
  text?: string;
  /** The A/B variant of that text. */
  variant?: 'A' | 'B';
  /**
   * A look only, for a send whose answer was lost (LostAnswer.counted): it carries that send's
   * counts (its days) instead of taking new ones, and sends nothing (docs/engine.md, "A timeout is
   * ambiguous").
   */
  lookOnly?: true;
}

/** A slot taken in the campaign's daily cap for a later moment of the same day (sends spread through the window). */
export interface SlotReservation {
  day: string;
  kind: SendKind;
  /** The position in the day's cap (1-based). */
  k: number;
}

/** Where a wait for a later day (the cap reached) was counted: `OutreachAction.pastCap`. */
export interface PastCapWait {
  day: string;
  kind: SendKind;
}

/**
 * What a write that makes an action due (or moves it on) sets: it waits past the cap no longer and
 * is no longer a pull in progress, so its lsi3 entry goes (every such write of the engine and its sweeps).
 */
export const NOT_PAST_CAP = { pastCap: null, pulledFor: null } as const;

/** Where a wait past the cap stands in line: its kind and due time (`placeInLine`). */
export interface PlaceInLine {
  kind: SendKind;
  dueAt: string;
}

/**
 * What a pending action holds, with the version it was read at (shared/domain/engine/held-slots.ts):
 * a slot reservation of a day's cap, or (reservation null) a place in line past the cap.
 */
export interface HeldSlot {
  version: number;
  reservation: SlotReservation | null;
  /** Its place in line past the cap: handed to the latest wait when its prospect leaves (slot-returns.ts `passOn`). */
  inLine?: PlaceInLine;
}

/**
 * Where an action stands in line past its campaign's cap, if it waits there (neither claimed nor
 * parked): what a handover passes on when its prospect leaves (slot-returns.ts `passOn`).
 */
export function placeInLine(action: Pick<OutreachAction, 'pastCap' | 'dueAt'> & { claim: unknown; parked: unknown }): PlaceInLine | undefined {
  const { pastCap, claim, parked, dueAt } = action;
  return pastCap && claim === null && parked === null && dueAt !== null ? { kind: pastCap.kind, dueAt } : undefined;
}

/** What a cancelled action held (`reservation` null: none; `inLine`: its place in line past the cap). */
export type Cancelled = Pick<HeldSlot, 'reservation' | 'inLine'>;

export interface OutreachAction {
  campaignId: number;
  prospectId: number;
  workspaceId: number;
  /** Identifies this stay of the prospect in the campaign: a prospect moved out and back gets a new one. */
  stint: string;
  /** Incremented on every write; writes are conditional on it. 0: a first action not written yet (its campaign prospect carries it). */
  version: number;
  /** The flow node to carry out next (a deleted node resolves through the flow's redirects); null: the flow has ended. */
  nodeId: number | null;
  /** When it is due; null while parked (not in the due-time index). */
  dueAt: string | null;
  parked: ParkReason | null;
  claim: ActionClaim | null;
  reservation: SlotReservation | null;
  /**
   * A wait for a later day because the campaign's cap was reached: the day whose demand past the
   * cap it was counted in, and the kind. While it waits, a position of today given back may pull
   * the latest such wait forward, and a place in line left may be handed to it (slot-returns.ts).
   * Unset or null otherwise; every other write clears it (`NOT_PAST_CAP`) unless it waits past the
   * cap again (a handover keeps it).
   */
  pastCap?: PastCapWait | null;
  /**
   * Pulled forward to take position `k` of `day` given back (slot-returns.ts): due now, to be
   * placed by the sender. Set by the pull's write only (two pulls of one wait for two positions
   * write different items, so the loser of the race sees it lost); every later write clears it.
   */
  pulledFor?: SlotReservation | null;
  /** Transient failures of the current node so far. */
  attempts: number;
  /** Why the current node's last attempt failed (a retry or an account problem), for the prospects page; null once it moves on. */
  lastError: string | null;
  /**
   * A network step of the current node handed to the provider without an answer coming back (a
   * timeout, a lost connection): the provider may have carried it out, so every later attempt first
   * looks, through that account, for what it sent (docs/engine.md, "A timeout is ambiguous"); null
   * once it moves on.
   */
  answerLost: LostAnswer | null;
  /** The previous action of this prospect (sent or skipped). */
  lastActionAt: string | null;
  /**
   * When the prospect reached its current node (the previous step's send or skip, a condition's
   * answer, or, for the first node, the moment it was scheduled): the node's delay counts from it,
   * as it is now (an edited delay applies to prospects already waiting). Null on a first action not
   * written yet (its due time is that moment) and on actions written before 2026-11-26 17:00.
   */
  reachedAt: string | null;
  /**
   * Whether `dueAt` is the end of its node's delay (then the window), and nothing else: what a
   * delay edit may move (campaigns/scheduling.ts, retime). False for a wait for the window after
   * the delay, a cap, an account, a retry, and for actions written before 2026-11-26 17:30.
   */
  waitingForDelay: boolean;
  /**
   * Whether an invitation step found the prospect already a first-degree connection (skipped, by
   * its profile or by the provider's answer): a later ACCEPTED_INVITE is then YES without asking.
   */
  alreadyConnected: boolean;
  /** Whether a first action has been carried out (the prospect is IN_PROGRESS). */
  started: boolean;
  /**
   * Whether the prospect is still where it entered the campaign, nothing carried out or decided
   * yet: it starts at the flow's root as the flow is when the action is taken (a step or condition
   * put first while it waited comes first), not at the node that was the root when it was added.
   */
  atEntry: boolean;
  /**
   * The steps this stay has carried out (sent or skipped). A step the flow's edits put after the
   * prospect's place again (moved later while it waited) is passed over, never sent twice.
   */
  done: number[];
  /** The sender account per channel once the prospect was contacted on it (the thread stays in one account). */
  accounts: { EMAIL?: number; NETWORK?: number };
  /** The prospect's id at the network provider, once looked up. */
  networkProviderId: string | null;
  updatedAt: string;
}

/** The first attempt of a network step whose answer was lost: when it was claimed, through which account, with what text. */
export interface LostAnswer {
  /** The step it was (a flow edit may put another node where the prospect waits: that one is not it). */
  nodeId: number;
  at: string;
  accountId: number;
  /** The message, or the invitation's note, as sent then (the step or the prospect may change before the next attempt). */
  text: string;
  /** Its A/B variant then (B may be added to the step before the next attempt). */
  variant?: 'A' | 'B';
  /**
   * The days its account's and campaign's counts were taken in: kept (it may have gone out, so the
   * daily limits hold it) until a look shows it was not sent. Unset on answers lost before
   * 2026-11-27 20:00, whose counts were given back.
   */
  counted?: { accountDay: string; campaignDay: string; campaignK?: number };
}

/** What a due-time index entry names: enough to read the action and to tell a stale entry. */
export interface ActionRef {
  campaignId: number;
  prospectId: number;
  workspaceId: number;
  dueAt: string;
  /** The entry is a first action its campaign prospect carries, not written as an action yet (`ActionStore.pending`). */
  first?: boolean;
}

export type OutcomeKind = 'SENT' | 'SKIPPED' | 'FAILED' | 'UNCERTAIN';

/**
 * One append-only record per finished action (sent, skipped, failed, or of unknown result after
 * a crash), keyed by the prospect's stint and the node, so a repeated write is the same record.
 * The analytics capability rolls these up.
 */
export interface ActionOutcome {
  workspaceId: number;
  campaignId: number;
  prospectId: number;
  stint: string;
  nodeId: number;
  stepType: StepType;
  outcome: OutcomeKind;
  /** Why it was skipped or failed (or how a crash was settled). */
  reason: string | null;
  accountId: number | null;
  variant: Variant | null;
  at: string;
  /** Provider references of what was sent. */
  trackingId?: string;
  invitationId?: string;
  chatId?: string;
  messageId?: string;
}

/**
 * An email sent, under the provider's tracking id; `messageId` is the one the provider's `mail_sent`
 * webhook linked to it, when read by it. The engine's carry their campaign and step; a manual email
 * from the inbox (recorded since 2026-11-29, so that a reply or bounce in its thread finds its
 * prospect) has neither.
 */
export interface SentEmail {
  trackingId: string;
  workspaceId: number;
  campaignId?: number;
  prospectId: number;
  nodeId?: number;
  accountId: number;
  at: string;
  messageId: string | null;
  /** The A/B variant sent (recorded since 2026-11-28): a reply in its thread is attributed to it. */
  variant?: 'A' | 'B';
  /** The address it went to (recorded since 2026-11-28): a bounce in its thread suppresses that one. */
  to?: string;
}
