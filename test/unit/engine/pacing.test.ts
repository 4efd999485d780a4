import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import { emptyFlow } from '../../../shared/domain/campaigns/flow';
import type { OutreachAction, SendKind, SlotReservation } from '../../../shared/domain/engine/action';
import { NO_ACCOUNT_CAN_SEND, accountDayWake, capOf, checkCampaignCap, chooseAccount, spreadIndex } from '../../../shared/domain/engine/pacing';
import type { SendCounters } from '../../../shared/domain/engine/ports';
import { type OpenSpan, openSpanFrom } from '../../../shared/domain/engine/window';
import type { SenderAccount } from '../../../shared/domain/sender-accounts/sender-account';
import { actionWith as anAction } from '../../support/actions';

/** The SendCounters port in memory: campaign positions per day and kind (past the cap counted apart), account sends refused at their limit. */
class FakeCounters implements SendCounters {
  readonly campaignCounts = new Map<string, number>();
  /** Positions taken past the cap, per day and kind. */
  readonly campaignDemand = new Map<string, number>();
  readonly accountCounts = new Map<string, number>();
  /** Every takeAccountSend call, as `accountId day kind limit`. */
  readonly accountCalls: string[] = [];
  campaignTakes = 0;

  async takeCampaignSlot(campaignId: number, day: string, kind: SendKind, cap: number): Promise<number> {
    this.campaignTakes += 1;
    const key = `${campaignId} ${day} ${kind}`;
    const taken = this.campaignCounts.get(key) ?? 0;
    if (taken < cap) {
      this.campaignCounts.set(key, taken + 1);
      return taken + 1;
    }
    const over = (this.campaignDemand.get(key) ?? 0) + 1;
    this.campaignDemand.set(key, over);
    return cap + over;
  }

  async returnCampaignSlot(campaignId: number, day: string, kind: SendKind): Promise<boolean> {
    const key = `${campaignId} ${day} ${kind}`;
    this.campaignCounts.set(key, (this.campaignCounts.get(key) ?? 0) - 1);
    return true;
  }

  async takePull(): Promise<boolean> {
    throw new Error('pacing takes no pulls');
  }

  async returnPull(): Promise<void> {
    throw new Error('pacing takes no pulls');
  }

  async clearCampaignDemand(campaignId: number, day: string, kind: SendKind): Promise<void> {
    this.campaignDemand.delete(`${campaignId} ${day} ${kind}`);
  }

  async takeAccountSend(accountId: number, day: string, kind: SendKind, limit: number): Promise<boolean> {
    this.accountCalls.push(`${accountId} ${day} ${kind} ${limit}`);
    const key = `${accountId} ${day} ${kind}`;
    const count = this.accountCounts.get(key) ?? 0;
    if (count >= limit) return false;
    this.accountCounts.set(key, count + 1);
    return true;
  }

  async returnAccountSend(accountId: number, day: string, kind: SendKind): Promise<void> {
    const key = `${accountId} ${day} ${kind}`;
    this.accountCounts.set(key, (this.accountCounts.get(key) ?? 0) - 1);
  }
}

const CREATED = '2027-01-04T10:00:00.000Z';
const TIMEZONE = 'Europe/Amsterdam';

const campaignWith = (fields: Partial<Campaign> = {}): Campaign => ({
  id: 1,
  workspaceId: 1,
  name: 'Pacing',
  status: 'ACTIVE',
  timezone: TIMEZONE,
  language: 'en',
  emailMaxMessages: 4,
  networkMaxMessages: 6,
  networkMaxConnections: 5,
  sendingWindow: {},
  accountIds: [],
  stopOnCompanyReply: false,
  prospectCount: 0,
  flow: emptyFlow(),
  flowVersion: 1,
  createdAt: CREATED,
  updatedAt: CREATED,
  ...fields,
});

const actionWith = (fields: Partial<OutreachAction> = {}): OutreachAction => anAction(CREATED, fields);

const accountWith = (id: number, type: 'EMAIL' | 'NETWORK', fields: Partial<SenderAccount> = {}): SenderAccount => ({
  id,
  workspaceId: 1,
  name: `account ${id}`,
  type,
  status: 'OK',
  providerAccountId: `provider-${id}`,
  providerType: type === 'EMAIL' ? 'MAIL' : 'LINKEDIN',
  ownProviderUserId: null,
  createdAt: CREATED,
  updatedAt: CREATED,
  ...fields,
});

const spanAt = (at: string, campaign: Campaign): OpenSpan => openSpanFrom(new Date(at), campaign.sendingWindow, campaign.timezone) as OpenSpan;

describe('the campaign’s daily cap', () => {
  // Monday 22 March 2027: the window is 08:00-16:00 UTC; a cap of 4 has slots at 08:00, 10:00, 12:00 and 14:00 UTC.
  const campaign = campaignWith();
  const monday = spanAt('2027-03-22T08:00:00.000Z', campaign);

  it('takes the cap of the kind', () => {
    expect([capOf(campaign, 'EMAIL'), capOf(campaign, 'INVITE'), capOf(campaign, 'MESSAGE')]).toEqual([4, 5, 6]);
  });

  it('sends position k at the k-th slot of the day: at once when it has come, else a wait holding the position', async () => {
    const counters = new FakeCounters();
    const now = new Date('2027-03-22T08:00:00.000Z');
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await checkCampaignCap(counters, campaign, actionWith({ prospectId: i + 1 }), 'EMAIL', monday, now));
    expect(decisions).toEqual([
      { go: true, k: 1, fresh: true },
      { go: false, dueAt: '2027-03-22T10:00:00.000Z', reserve: { day: '2027-03-22', kind: 'EMAIL', k: 2 } },
      { go: false, dueAt: '2027-03-22T12:00:00.000Z', reserve: { day: '2027-03-22', kind: 'EMAIL', k: 3 } },
      { go: false, dueAt: '2027-03-22T14:00:00.000Z', reserve: { day: '2027-03-22', kind: 'EMAIL', k: 4 } },
    ]);
    expect(counters.campaignCounts).toEqual(new Map([['1 2027-03-22 EMAIL', 4]]));
  });

  it('sends a slot at most 60 s ahead now, and a slot whose moment has passed at once', async () => {
    const decide = async (taken: number, at: string) => {
      const counters = new FakeCounters();
      counters.campaignCounts.set('1 2027-03-22 EMAIL', taken);
      return checkCampaignCap(counters, campaign, actionWith(), 'EMAIL', monday, new Date(at));
    };
    expect(await decide(1, '2027-03-22T09:59:00.000Z')).toEqual({ go: true, k: 2, fresh: true });
    expect(await decide(1, '2027-03-22T09:58:59.999Z')).toEqual({
      go: false,
      dueAt: '2027-03-22T10:00:00.000Z',
      reserve: { day: '2027-03-22', kind: 'EMAIL', k: 2 },
    });
    expect(await decide(2, '2027-03-22T15:30:00.000Z')).toEqual({ go: true, k: 3, fresh: true });
  });

  it('reuses a reservation of the same day and kind without taking a new position', async () => {
    const counters = new FakeCounters();
    counters.campaignCounts.set('1 2027-03-22 EMAIL', 4);
    const reservation: SlotReservation = { day: '2027-03-22', kind: 'EMAIL', k: 2 };
    const now = new Date('2027-03-22T10:00:00.000Z');
    expect(await checkCampaignCap(counters, campaign, actionWith({ reservation }), 'EMAIL', monday, now)).toEqual({ go: true, k: 2, fresh: false });
    // Its slot not yet come: the same wait, still no new position.
    expect(await checkCampaignCap(counters, campaign, actionWith({ reservation }), 'EMAIL', monday, new Date('2027-03-22T09:00:00.000Z'))).toEqual({
      go: false,
      dueAt: '2027-03-22T10:00:00.000Z',
      reserve: reservation,
    });
    expect(counters.campaignTakes).toBe(0);
    // Another kind, or another day: a new position.
    const otherKind = await checkCampaignCap(counters, campaign, actionWith({ reservation: { ...reservation, kind: 'INVITE' } }), 'EMAIL', monday, now);
    const otherDay = await checkCampaignCap(counters, campaign, actionWith({ reservation: { ...reservation, day: '2027-03-19' } }), 'EMAIL', monday, now);
    // Both past the cap of 4: they go on a later day, and say why.
    const reason = "the campaign's email_max_messages (4 a day) is reached for 2027-03-22: it goes on a later day";
    expect([otherKind, otherDay]).toEqual([
      { go: false, dueAt: '2027-03-23T08:00:00.000Z', reason, pastCap: { day: '2027-03-22', kind: 'EMAIL' } },
      { go: false, dueAt: '2027-03-23T10:00:00.000Z', reason, pastCap: { day: '2027-03-22', kind: 'EMAIL' } },
    ]);
    expect(counters.campaignCounts).toEqual(new Map([['1 2027-03-22 EMAIL', 4]]));
    expect(counters.campaignDemand).toEqual(new Map([['1 2027-03-22 EMAIL', 2]]));
  });

  it('does not keep a position reserved past a cap lowered since: it takes the day’s demand like the others past the cap', async () => {
    const counters = new FakeCounters();
    // Six positions were taken under a cap of 6; the cap is 4 now. Position 6 was reserved for 14:40.
    counters.campaignCounts.set('1 2027-03-22 EMAIL', 6);
    const reservation: SlotReservation = { day: '2027-03-22', kind: 'EMAIL', k: 6 };
    expect(await checkCampaignCap(counters, campaign, actionWith({ reservation }), 'EMAIL', monday, new Date('2027-03-22T14:40:00.000Z'))).toEqual({
      go: false,
      dueAt: '2027-03-23T08:00:00.000Z',
      reason: "the campaign's email_max_messages (4 a day) is reached for 2027-03-22: it goes on a later day",
      pastCap: { day: '2027-03-22', kind: 'EMAIL' },
    });
    expect(counters.campaignDemand).toEqual(new Map([['1 2027-03-22 EMAIL', 1]]));
  });

  it('counts the demand past the cap apart, so a cap raised during the day sends at once', async () => {
    const counters = new FakeCounters();
    const now = new Date('2027-03-22T15:00:00.000Z');
    for (let i = 0; i < 4; i += 1) await checkCampaignCap(counters, campaign, actionWith({ prospectId: i + 1 }), 'EMAIL', monday, now);
    const reason = "the campaign's email_max_messages (4 a day) is reached for 2027-03-22: it goes on a later day";
    expect(await checkCampaignCap(counters, campaign, actionWith({ prospectId: 5 }), 'EMAIL', monday, now)).toEqual({ go: false, dueAt: '2027-03-23T08:00:00.000Z', reason, pastCap: { day: '2027-03-22', kind: 'EMAIL' } });
    expect(await checkCampaignCap(counters, campaign, actionWith({ prospectId: 6 }), 'EMAIL', monday, now)).toEqual({ go: false, dueAt: '2027-03-23T10:00:00.000Z', reason, pastCap: { day: '2027-03-22', kind: 'EMAIL' } });
    // Raised to 6: positions 5 and 6 are free (the two past the cap took none), and their slots have passed.
    const raised = campaignWith({ emailMaxMessages: 6 });
    expect(await checkCampaignCap(counters, raised, actionWith({ prospectId: 5 }), 'EMAIL', monday, now)).toEqual({ go: true, k: 5, fresh: true });
    expect(await checkCampaignCap(counters, raised, actionWith({ prospectId: 6 }), 'EMAIL', monday, now)).toEqual({ go: true, k: 6, fresh: true });
    // The next is past the raised cap, after the day's demand of 2 so far: the third slot of 6 the next day.
    expect(await checkCampaignCap(counters, raised, actionWith({ prospectId: 7 }), 'EMAIL', monday, now)).toEqual({
      go: false,
      dueAt: '2027-03-23T10:40:00.000Z',
      reason: "the campaign's email_max_messages (6 a day) is reached for 2027-03-22: it goes on a later day",
      pastCap: { day: '2027-03-22', kind: 'EMAIL' },
    });
    expect(counters.campaignCounts).toEqual(new Map([['1 2027-03-22 EMAIL', 6]]));
  });

  it('puts positions past the cap on the sending day they fall on, at their slot, skipping the weekend', async () => {
    // Friday 19 March 2027, 08:00-16:00 UTC; the next sending days are Monday 22, Tuesday 23, Wednesday 24.
    const friday = spanAt('2027-03-19T08:00:00.000Z', campaign);
    const counters = new FakeCounters();
    counters.campaignCounts.set('1 2027-03-19 EMAIL', 4);
    const now = new Date('2027-03-19T08:00:00.000Z');
    const dues = [];
    for (let k = 5; k <= 13; k += 1) dues.push(await checkCampaignCap(counters, campaign, actionWith({ prospectId: k }), 'EMAIL', friday, now));
    const reason = "the campaign's email_max_messages (4 a day) is reached for 2027-03-19: it goes on a later day";
    expect(dues).toEqual([
      { go: false, dueAt: '2027-03-22T08:00:00.000Z', reason, pastCap: { day: '2027-03-19', kind: 'EMAIL' } },
      { go: false, dueAt: '2027-03-22T10:00:00.000Z', reason, pastCap: { day: '2027-03-19', kind: 'EMAIL' } },
      { go: false, dueAt: '2027-03-22T12:00:00.000Z', reason, pastCap: { day: '2027-03-19', kind: 'EMAIL' } },
      { go: false, dueAt: '2027-03-22T14:00:00.000Z', reason, pastCap: { day: '2027-03-19', kind: 'EMAIL' } },
      { go: false, dueAt: '2027-03-23T08:00:00.000Z', reason, pastCap: { day: '2027-03-19', kind: 'EMAIL' } },
      { go: false, dueAt: '2027-03-23T10:00:00.000Z', reason, pastCap: { day: '2027-03-19', kind: 'EMAIL' } },
      { go: false, dueAt: '2027-03-23T12:00:00.000Z', reason, pastCap: { day: '2027-03-19', kind: 'EMAIL' } },
      { go: false, dueAt: '2027-03-23T14:00:00.000Z', reason, pastCap: { day: '2027-03-19', kind: 'EMAIL' } },
      { go: false, dueAt: '2027-03-24T08:00:00.000Z', reason, pastCap: { day: '2027-03-19', kind: 'EMAIL' } },
    ]);
  });

  it('puts a position past the cap on a Monday after a DST change at its local slot', async () => {
    // Friday 26 March 2027 (UTC+1); Monday 29 March is UTC+2: 09:00 local is 07:00 UTC.
    const friday = spanAt('2027-03-26T08:00:00.000Z', campaign);
    const counters = new FakeCounters();
    counters.campaignCounts.set('1 2027-03-26 EMAIL', 4);
    counters.campaignDemand.set('1 2027-03-26 EMAIL', 1);
    expect(await checkCampaignCap(counters, campaign, actionWith(), 'EMAIL', friday, new Date('2027-03-26T08:00:00.000Z'))).toEqual({
      go: false,
      dueAt: '2027-03-29T09:00:00.000Z',
      reason: "the campaign's email_max_messages (4 a day) is reached for 2027-03-26: it goes on a later day",
      pastCap: { day: '2027-03-26', kind: 'EMAIL' },
    });
  });

  it('stops a kind whose cap is 0 until the next sending day’s start, without taking a position', async () => {
    const stopped = campaignWith({ emailMaxMessages: 0 });
    const friday = spanAt('2027-03-19T08:00:00.000Z', stopped);
    const counters = new FakeCounters();
    expect(await checkCampaignCap(counters, stopped, actionWith(), 'EMAIL', friday, new Date('2027-03-19T09:00:00.000Z'))).toEqual({
      go: false,
      dueAt: '2027-03-22T08:00:00.000Z',
      reason: "the campaign's email_max_messages is 0: none go until it is raised",
    });
    expect(counters.campaignTakes).toBe(0);
  });
});

describe('the choice of sender account', () => {
  // Monday 22 March 2027, 10:00 UTC; the next UTC day's window opens on Tuesday at 08:00 UTC.
  const now = new Date('2027-03-22T10:00:00.000Z');
  const mailboxes = [accountWith(11, 'EMAIL'), accountWith(12, 'EMAIL'), accountWith(13, 'EMAIL')];
  const network = accountWith(21, 'NETWORK', { dailyLimits: { emails: 5, invitations: 7, networkMessages: 9 } });
  const campaign = campaignWith({ accountIds: [11, 21, 12, 13] });
  const accountsOf = (...accounts: SenderAccount[]) => new Map(accounts.map((account) => [account.id, account]));
  const all = accountsOf(...mailboxes, network);
  const paused = (until: string | null) => ({ sendingPause: { reason: 'errors/limit_exceeded', until, at: '2027-03-22T09:00:00.000Z' } });
  const chosen = (decision: Awaited<ReturnType<typeof chooseAccount>>) => ('wait' in decision ? decision : { account: decision.account.id, day: decision.day });

  it('keeps the account that already contacted the prospect on the channel', async () => {
    const counters = new FakeCounters();
    const action = actionWith({ prospectId: 3, accounts: { EMAIL: 13, NETWORK: 21 } });
    expect(chosen(await chooseAccount(counters, campaign, all, action, 'EMAIL', now))).toEqual({ account: 13, day: '2027-03-22' });
    expect(chosen(await chooseAccount(counters, campaign, all, action, 'INVITE', now))).toEqual({ account: 21, day: '2027-03-22' });
    expect(chosen(await chooseAccount(counters, campaign, all, action, 'MESSAGE', now))).toEqual({ account: 21, day: '2027-03-22' });
    expect(counters.accountCalls).toEqual(['13 2027-03-22 EMAIL 50', '21 2027-03-22 INVITE 7', '21 2027-03-22 MESSAGE 9']);
  });

  it('makes a prospect contacted on a channel wait for its own account', async () => {
    const action = actionWith({ prospectId: 3, accounts: { EMAIL: 13 } });
    const full = new FakeCounters();
    full.accountCounts.set('13 2027-03-22 EMAIL', 50);
    expect(await chooseAccount(full, campaign, all, action, 'EMAIL', now)).toEqual({
      wait: '2027-03-23T08:00:00.000Z',
      reason: 'sender account 13, which contacted the prospect, is at its daily_limits.emails (50 a day) for 2027-03-22 (UTC): it goes on the next day',
    });
    const sentNine = new FakeCounters();
    sentNine.accountCounts.set('21 2027-03-22 MESSAGE', 9);
    expect(await chooseAccount(sentNine, campaign, all, actionWith({ prospectId: 3, accounts: { NETWORK: 21 } }), 'MESSAGE', now)).toEqual({
      wait: '2027-03-23T08:00:00.000Z',
      reason: 'sender account 21, which contacted the prospect, is at its daily_limits.network_messages (9 a day) for 2027-03-22 (UTC): it goes on the next day',
    });
    const pausedUntil = accountsOf(...mailboxes.slice(0, 2), accountWith(13, 'EMAIL', paused('2027-03-22T15:00:00.000Z')));
    // Waited for, and the wait says which account: the campaign's others can send.
    const waits = 'sender account 13, which contacted the prospect, cannot send now (paused, or not connected): it is waited for';
    expect(await chooseAccount(new FakeCounters(), campaign, pausedUntil, action, 'EMAIL', now)).toEqual({ wait: '2027-03-22T15:00:00.000Z', reason: waits });
    const disconnected = accountsOf(...mailboxes.slice(0, 2), accountWith(13, 'EMAIL', { status: 'CREDENTIALS' }));
    expect(await chooseAccount(new FakeCounters(), campaign, disconnected, action, 'EMAIL', now)).toEqual({ wait: '2027-03-22T11:00:00.000Z', reason: waits });
  });

  it('gives a prospect whose account was deleted or detached from the campaign to the campaign’s accounts, as a new one', async () => {
    const action = actionWith({ prospectId: 3, accounts: { EMAIL: 13 } });
    const own = [11, 12][spreadIndex(3, 2)];
    // Deleted: no longer among the workspace's accounts.
    const gone = accountsOf(...mailboxes.slice(0, 2));
    expect(chosen(await chooseAccount(new FakeCounters(), campaign, gone, action, 'EMAIL', now))).toEqual({ account: own, day: '2027-03-22' });
    // Detached: still the workspace's, no longer the campaign's.
    const detached = campaignWith({ accountIds: [11, 21, 12] });
    expect(chosen(await chooseAccount(new FakeCounters(), detached, all, action, 'EMAIL', now))).toEqual({ account: own, day: '2027-03-22' });
    // Neither left on the channel: it waits, and says why.
    expect(await chooseAccount(new FakeCounters(), campaignWith({ accountIds: [21] }), all, action, 'EMAIL', now)).toEqual({
      wait: '2027-03-22T11:00:00.000Z',
      reason: NO_ACCOUNT_CAN_SEND,
    });
  });

  it('starts a new prospect at its own account (a hash of its id over the accounts of the channel)', async () => {
    const counters = new FakeCounters();
    const picks = [];
    for (const prospectId of [3, 4, 5, 6, 7]) picks.push(chosen(await chooseAccount(counters, campaign, all, actionWith({ prospectId }), 'EMAIL', now)));
    expect([3, 4, 5, 6, 7].map((id) => spreadIndex(id, 3))).toEqual([0, 1, 0, 2, 1]);
    expect(picks.map((pick) => ('account' in pick ? pick.account : pick))).toEqual([11, 12, 11, 13, 12]);
    // Ids of one allocator shard (equal modulo 64) still spread: 100 of them over 2 accounts.
    const halves = [0, 0];
    for (let i = 0; i < 100; i += 1) halves[spreadIndex(i * 64 + 5, 2)] = (halves[spreadIndex(i * 64 + 5, 2)] ?? 0) + 1;
    expect(halves).toEqual([41, 59]);
    expect(chosen(await chooseAccount(counters, campaign, all, actionWith({ prospectId: 8 }), 'INVITE', now))).toEqual({ account: 21, day: '2027-03-22' });
  });

  it('passes over accounts that are paused, not active or at their limit', async () => {
    const accounts = accountsOf(
      accountWith(11, 'EMAIL', paused('2027-03-22T09:59:59.999Z')),
      accountWith(12, 'EMAIL', paused('2027-03-22T12:00:00.000Z')),
      accountWith(13, 'EMAIL', { status: 'CREDENTIALS' }),
      network,
    );
    // Prospect 4 starts at 12: paused; 13: not active; 11: its pause has ended.
    const counters = new FakeCounters();
    expect(chosen(await chooseAccount(counters, campaign, accounts, actionWith({ prospectId: 4 }), 'EMAIL', now))).toEqual({ account: 11, day: '2027-03-22' });
    expect(counters.accountCalls).toEqual(['11 2027-03-22 EMAIL 50']);
    // Prospect 4 again, with 12 at its limit: 13.
    const limited = new FakeCounters();
    limited.accountCounts.set('12 2027-03-22 EMAIL', 50);
    expect(chosen(await chooseAccount(limited, campaign, all, actionWith({ prospectId: 4 }), 'EMAIL', now))).toEqual({ account: 13, day: '2027-03-22' });
    expect(limited.accountCalls).toEqual(['12 2027-03-22 EMAIL 50', '13 2027-03-22 EMAIL 50']);
  });

  it('waits for the next UTC day’s first open moment when every account that can send is at its limit', async () => {
    const counters = new FakeCounters();
    for (const id of [11, 13]) counters.accountCounts.set(`${id} 2027-03-22 EMAIL`, 50);
    const accounts = accountsOf(mailboxes[0]!, accountWith(12, 'EMAIL', paused(null)), mailboxes[2]!);
    expect(await chooseAccount(counters, campaign, accounts, actionWith({ prospectId: 4 }), 'EMAIL', now)).toEqual({
      wait: '2027-03-23T08:00:00.000Z',
      reason: "the campaign's sender accounts are at their daily_limits.emails for 2027-03-22 (UTC): it goes on the next day",
    });
    expect(counters.accountCalls).toEqual(['13 2027-03-22 EMAIL 50', '11 2027-03-22 EMAIL 50']);
    // On a Friday the next UTC day is Saturday: Monday's opening.
    const friday = new FakeCounters();
    for (const id of [11, 12, 13]) friday.accountCounts.set(`${id} 2027-03-19 EMAIL`, 50);
    expect(await chooseAccount(friday, campaign, all, actionWith(), 'EMAIL', new Date('2027-03-19T15:00:00.000Z'))).toEqual({
      wait: '2027-03-22T08:00:00.000Z',
      reason: "the campaign's sender accounts are at their daily_limits.emails for 2027-03-19 (UTC): it goes on the next day",
    });
  });

  it('spreads the wait for the next UTC day over the rest of the open span when the window is open across 00:00 UTC', () => {
    // Auckland, every day 09:00-17:00 (NZDT, UTC+13): 20:00-04:00 UTC, open at 00:00 UTC.
    const days = { enabled: true, start: '09:00', end: '17:00' };
    const auckland = campaignWith({
      timezone: 'Pacific/Auckland',
      sendingWindow: { monday: days, tuesday: days, wednesday: days, thursday: days, friday: days, saturday: days, sunday: days },
    });
    // Tuesday 1 December 2026, 21:00 UTC (10:00 local on Wednesday): the next UTC day starts at 13:00 local.
    const at = new Date('2026-12-01T21:00:00.000Z');
    const wakes = Array.from({ length: 50 }, (_, i) => accountDayWake(auckland, i + 1, at).getTime());
    const [earliest, latest] = [Math.min(...wakes), Math.max(...wakes)];
    // Between 00:00 UTC and 90 s before the window closes (04:00 UTC), all at different moments.
    expect([earliest >= Date.parse('2026-12-02T00:00:00.000Z'), latest <= Date.parse('2026-12-02T03:58:30.000Z'), new Set(wakes).size]).toEqual([true, true, 50]);
    // Spread, not bunched: each hour of the span has some of them.
    const hours = new Set(wakes.map((t) => new Date(t).getUTCHours()));
    expect([...hours].sort()).toEqual([0, 1, 2, 3]);
    // The same prospect the same day: the same moment; another day: drawn again.
    expect(accountDayWake(auckland, 7, at).getTime()).toBe(wakes[6]);
    const nextDay = Array.from({ length: 50 }, (_, i) => accountDayWake(auckland, i + 1, new Date('2026-12-02T21:00:00.000Z')).getTime() - 86_400_000);
    expect(nextDay.filter((t, i) => t !== wakes[i]).length).toBe(50);
    // A window that opens after 00:00 UTC wakes them at its opening, as its own slots then spread them.
    expect(accountDayWake(campaign, 7, now).toISOString()).toBe('2027-03-23T08:00:00.000Z');
  });

  it('waits until the earliest pause ends when no account can send, an hour when no end is known', async () => {
    const accounts = accountsOf(
      accountWith(11, 'EMAIL', paused('2027-03-22T13:00:00.000Z')),
      accountWith(12, 'EMAIL', paused('2027-03-22T10:30:00.000Z')),
      accountWith(13, 'EMAIL', paused('2027-03-22T12:00:00.000Z')),
    );
    const counters = new FakeCounters();
    expect(await chooseAccount(counters, campaign, accounts, actionWith(), 'EMAIL', now)).toEqual({ wait: '2027-03-22T10:30:00.000Z', reason: NO_ACCOUNT_CAN_SEND });
    expect(counters.accountCalls).toEqual([]);
    const untilActive = accountsOf(accountWith(11, 'EMAIL', paused(null)), accountWith(12, 'EMAIL', { status: 'CREDENTIALS' }), accountWith(13, 'EMAIL', paused('2027-03-22T12:00:00.000Z')));
    expect(await chooseAccount(counters, campaign, untilActive, actionWith(), 'EMAIL', now)).toEqual({ wait: '2027-03-22T11:00:00.000Z', reason: NO_ACCOUNT_CAN_SEND });
  });

  it('waits an hour when the campaign has no account of the channel', async () => {
    const counters = new FakeCounters();
    const emailOnly = campaignWith({ accountIds: [11, 12, 99] });
    expect(await chooseAccount(counters, emailOnly, all, actionWith(), 'INVITE', now)).toEqual({ wait: '2027-03-22T11:00:00.000Z', reason: NO_ACCOUNT_CAN_SEND });
    expect(await chooseAccount(counters, campaignWith({ accountIds: [] }), all, actionWith(), 'EMAIL', now)).toEqual({ wait: '2027-03-22T11:00:00.000Z', reason: NO_ACCOUNT_CAN_SEND });
    expect(counters.accountCalls).toEqual([]);
  });
});
