import { bucketOf } from '../buckets';
import type { Campaign } from '../campaigns/campaign';
import type { SenderAccount } from '../sender-accounts/sender-account';
import { canSendAt, dailyLimitsOf } from '../sender-accounts/sender-account';
import type { OutreachAction, PastCapWait, SendKind } from './action';
import { channelOfKind } from './action';
import type { SendCounters } from './ports';
import { type OpenSpan, SLOT_END_MARGIN_MS, nextUtcDay, openSpanAfterDays, openSpanFrom, slotTime, utcDay } from './window';

/**
 * Daily caps and the choice of sender account. Pure decisions over the atomic counters:
 * - The campaign's cap per kind counts in the campaign's local day. Each due action takes the
 *   next position k of the day; k within the cap is sent at its slot (the day's open hours cut
 *   into `cap` equal slots), so the day's sends spread through the window and all go out before
 *   it closes; past the cap the action waits for the day where its position falls
 *   (positions cap+1..2cap the next sending day, and so on), never dropped.
 * - A sender account's limit per kind counts in UTC days across every campaign; an account at
 *   its limit, paused, or not active is passed over for a prospect not yet contacted on that
 *   channel; a prospect already contacted waits for its own account.
 */

/** A slot this close ahead is sent now rather than waited for. */
export const SLOT_TOLERANCE_MS = 60_000;
/** How long an action waits when no account of its channel can send and none will at a known time. */
export const NO_ACCOUNT_RETRY_MS = 60 * 60_000;

export const capOf = (campaign: Campaign, kind: SendKind): number =>
  kind === 'EMAIL' ? campaign.emailMaxMessages : kind === 'INVITE' ? campaign.networkMaxConnections : campaign.networkMaxMessages;

export const accountLimitOf = (account: SenderAccount, kind: SendKind): number => {
  const limits = dailyLimitsOf(account);
  return kind === 'EMAIL' ? limits.emails : kind === 'INVITE' ? limits.invitations : limits.networkMessages;
};

export type CapDecision =
  | { go: true; k: number; fresh: boolean }
  /**
   * Wait until `dueAt`; `reserve` keeps position k of that day (a slot later today); `reason`: the
   * cap is reached (or 0) and it goes on a later day (the prospects page's `last_error`);
   * `pastCap`: the day whose demand past the cap it was counted in (not for a cap of 0).
   */
  | { go: false; dueAt: string; reserve?: { day: string; kind: SendKind; k: number }; reason?: string; pastCap?: PastCapWait };

/** The campaign setting that caps each kind of send. */
const CAP_SETTINGS: Record<SendKind, string> = { EMAIL: 'email_max_messages', INVITE: 'network_max_connections', MESSAGE: 'network_max_messages' };

/** The `last_error` of a send waiting for a later day because its campaign's daily cap is reached (or 0). */
function capReachedReason(kind: SendKind, cap: number, day: string): string {
  const setting = CAP_SETTINGS[kind];
  return cap === 0 ? `the campaign's ${setting} is 0: none go until it is raised` : `the campaign's ${setting} (${cap} a day) is reached for ${day}: it goes on a later day`;
}

/** Where an action stands against its campaign's cap for the day `span` is open on. */
export async function checkCampaignCap(
  counters: SendCounters,
  campaign: Campaign,
  action: OutreachAction,
  kind: SendKind,
  span: OpenSpan,
  now: Date,
): Promise<CapDecision> {
  const cap = capOf(campaign, kind);
  // A position reserved past a cap lowered since is not kept: it is given back (the wait's write
  // releases it) and the action takes the day's demand like any other past the cap, so it does not
  // share a later day's slot with one of them.
  const held = action.reservation;
  const reserved = held?.day === span.day && held.kind === kind && held.k <= cap ? held.k : undefined;
  const k = reserved ?? (cap > 0 ? await counters.takeCampaignSlot(campaign.id, span.day, kind, cap) : 1);
  if (cap === 0 || k > cap) {
    // Demand beyond the cap: position k falls on the day (k-1) div cap sending days ahead.
    const daysAhead = cap === 0 ? 1 : Math.floor((k - 1) / cap);
    const later = openSpanAfterDays(span.start, daysAhead, campaign.sendingWindow, campaign.timezone) ?? span;
    const slot = cap === 0 ? later.start : slotTime(later, ((k - 1) % cap) + 1, cap);
    return { go: false, dueAt: slot.toISOString(), reason: capReachedReason(kind, cap, span.day), ...(cap > 0 ? { pastCap: { day: span.day, kind } } : {}) };
  }
  const slot = slotTime(span, k, cap);
  if (slot.getTime() > now.getTime() + SLOT_TOLERANCE_MS) return { go: false, dueAt: slot.toISOString(), reserve: { day: span.day, kind, k } };
  return { go: true, k, fresh: reserved === undefined };
}

/** Where a prospect starts in the rotation of `n` accounts (spread evenly: see bucketOf). */
export function spreadIndex(prospectId: number, n: number): number {
  return bucketOf('spread', prospectId, n);
}

/** The campaign's sender accounts of a channel, in the campaign's order. */
export const campaignAccountsOf = (campaign: Campaign, accounts: Map<number, SenderAccount>, channel: 'EMAIL' | 'NETWORK'): SenderAccount[] =>
  campaign.accountIds.map((id) => accounts.get(id)).filter((account): account is SenderAccount => account !== undefined && account.type === channel);

/** `reason`: why it waits (shown as the prospect's `last_error`): no account can send, or the accounts' daily limit is reached. */
export type AccountDecision = { account: SenderAccount; day: string } | { wait: string; reason: string };

/** The `daily_limits` field (PATCH /accounts/{id}/) that limits each kind of send. */
const LIMIT_FIELDS: Record<SendKind, string> = { EMAIL: 'emails', INVITE: 'invitations', MESSAGE: 'network_messages' };

/**
 * The `last_error` of a send waiting for the next UTC day because its account is at its daily
 * limit: the one that contacted the prospect (`own`), or every account of the campaign that can send.
 */
export function accountLimitReason(kind: SendKind, day: string, own?: SenderAccount): string {
  const field = LIMIT_FIELDS[kind];
  return own
    ? `sender account ${own.id}, which contacted the prospect, is at its daily_limits.${field} (${accountLimitOf(own, kind)} a day) for ${day} (UTC): it goes on the next day`
    : `the campaign's sender accounts are at their daily_limits.${field} for ${day} (UTC): it goes on the next day`;
}

/** The `last_error` of a send waiting because no account of its channel can send now. */
export const NO_ACCOUNT_CAN_SEND = 'no sender account of the campaign can send now (none attached and active, or paused by the provider)';
/** Why an action waits for the account that contacted its prospect on the channel (the conversation stays in one thread). */
export const contactedAccountWaits = (account: SenderAccount) =>
  `sender account ${account.id}, which contacted the prospect, cannot send now (paused, or not connected): it is waited for`;
/** How long an action waits when the campaign's window has no open day (then it looks again: the window may have changed). */
export const NO_SENDING_DAY_RETRY_MS = 60 * 60_000;
/** The `last_error` of a step waiting because the campaign's sending window has no open day. */
export const NO_SENDING_DAY = 'the campaign sending_window has no open day';

/**
 * When an action waiting for its accounts' next UTC day goes again: that day's first open moment
 * of the campaign's window; but when the window is open across 00:00 UTC (a campaign in Asia or
 * the Pacific), a moment of the rest of that open span picked per prospect and day. All of them
 * woke at 00:00 UTC before, their campaign slots of the local day long passed, and went out in
 * one burst (each day's sends of a mailbox within the same second).
 */
export function accountDayWake(campaign: Campaign, prospectId: number, now: Date): Date {
  const dayStart = nextUtcDay(now);
  const span = openSpanFrom(dayStart, campaign.sendingWindow, campaign.timezone);
  if (!span) return dayStart;
  if (span.start.getTime() >= dayStart.getTime()) return span.start;
  const room = span.end.getTime() - SLOT_END_MARGIN_MS - dayStart.getTime();
  if (room <= 0) return dayStart;
  // The day in the draw: a prospect late one day is not late every day.
  const share = bucketOf(`account-day:${utcDay(dayStart)}`, prospectId, 1_000_000) / 1_000_000;
  return new Date(dayStart.getTime() + Math.floor(share * room));
}

/**
 * The account the action goes through: the one that already contacted the prospect on this
 * channel, else the campaign's accounts of the channel in turn starting at the prospect's own
 * (spreadIndex: prospects spread evenly across them), the first that can send and is under its limit.
 */
export async function chooseAccount(
  counters: SendCounters,
  campaign: Campaign,
  accounts: Map<number, SenderAccount>,
  action: OutreachAction,
  kind: SendKind,
  now: Date,
): Promise<AccountDecision> {
  const channel = channelOfKind(kind);
  const day = utcDay(now);
  // Only when it waits: a send that goes (most of them) needs no window arithmetic.
  const tomorrow = () => accountDayWake(campaign, action.prospectId, now).toISOString();
  const account = stickyAccount(campaign, accounts, action, channel);
  if (account) {
    if (!canSendAt(account, now)) return { wait: pauseEnd(account, now), reason: contactedAccountWaits(account) };
    if (await counters.takeAccountSend(account.id, day, kind, accountLimitOf(account, kind))) return { account, day };
    return { wait: tomorrow(), reason: accountLimitReason(kind, day, account) };
  }
  const candidates = campaignAccountsOf(campaign, accounts, channel);
  if (candidates.length === 0) return { wait: new Date(now.getTime() + NO_ACCOUNT_RETRY_MS).toISOString(), reason: NO_ACCOUNT_CAN_SEND };
  const first = spreadIndex(action.prospectId, candidates.length);
  let sending = 0;
  for (let i = 0; i < candidates.length; i += 1) {
    const account = candidates[(first + i) % candidates.length] as SenderAccount;
    if (!canSendAt(account, now)) continue;
    sending += 1;
    if (await counters.takeAccountSend(account.id, day, kind, accountLimitOf(account, kind))) return { account, day };
  }
  // Every account that can send is at its limit: tomorrow. None can send: when the first pause ends.
  if (sending > 0) return { wait: tomorrow(), reason: accountLimitReason(kind, day) };
  const ends = candidates.map((account) => pauseEnd(account, now)).sort();
  return { wait: ends[0] as string, reason: NO_ACCOUNT_CAN_SEND };
}

/**
 * The account that contacted the prospect on the channel, while it can still be the campaign's:
 * it exists and is attached to the campaign. One deleted, or detached from the campaign (the user
 * no longer wants the campaign to send from it), leaves the prospect to the campaign's accounts as
 * a prospect not yet contacted (the thread continues from another account; docs/engine.md).
 */
export function stickyAccount(campaign: Campaign, accounts: Map<number, SenderAccount>, action: OutreachAction, channel: 'EMAIL' | 'NETWORK'): SenderAccount | undefined {
  const id = action.accounts[channel];
  if (id === undefined || !campaign.accountIds.includes(id)) return undefined;
  const account = accounts.get(id);
  return account?.type === channel ? account : undefined;
}

/** When a paused or inactive account may be tried again. */
export function pauseEnd(account: SenderAccount, now: Date): string {
  const until = account.sendingPause?.until;
  if (until && new Date(until).getTime() > now.getTime()) return until;
  return new Date(now.getTime() + NO_ACCOUNT_RETRY_MS).toISOString();
}
