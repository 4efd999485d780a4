import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import { emptyFlow } from '../../../shared/domain/campaigns/flow';
import type { OutreachAction, SendKind } from '../../../shared/domain/engine/action';
import { type PullFailed, type SlotReturnDeps, createSlotReturns } from '../../../shared/domain/engine/slot-returns';
import { ManualClock } from '../../../shared/time/clock';
import { actionWith } from '../../support/actions';

/**
 * The pure rules of pulling a wait past the cap forward (slot-returns.ts), over ports in memory.
 * The whole path over DynamoDB Local and the sandbox provider: test/integration/engine/pull-forward.test.ts.
 */

// Tuesday 1 December 2026, UTC; the window is open 09:00-17:00 every day.
const DAY = '2026-12-01';
const WINDOW = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, { enabled: true, start: '09:00', end: '17:00' }]));

const campaign: Campaign = {
  id: 7,
  workspaceId: 1,
  name: 'Pull',
  status: 'ACTIVE',
  timezone: 'UTC',
  language: 'en',
  emailMaxMessages: 3,
  networkMaxMessages: 3,
  networkMaxConnections: 3,
  sendingWindow: WINDOW,
  accountIds: [],
  stopOnCompanyReply: false,
  prospectCount: 5,
  flow: emptyFlow(),
  flowVersion: 1,
  createdAt: '2026-11-30T09:00:00.000Z',
  updatedAt: '2026-11-30T09:00:00.000Z',
};

const wait = (prospectId: number, dueAt: string): OutreachAction =>
  actionWith(dueAt, { campaignId: 7, prospectId, pastCap: { day: '2026-11-30', kind: 'EMAIL' }, lastError: 'cap reached' });

function world(now: string, waits: OutreachAction[], overrides: { freed?: boolean; budget?: number; failQuery?: boolean; status?: Campaign['status']; staleIndex?: boolean } = {}) {
  const stored = new Map(waits.map((action) => [action.prospectId, action]));
  // `staleIndex`: the index as it was at the start, as a call running at once with another read it.
  const snapshot = new Map(stored);
  const calls = { returned: [] as string[], pulls: 0, pullsGivenBack: 0, failed: [] as string[] };
  const deps: SlotReturnDeps = {
    clock: new ManualClock(now),
    campaigns: { get: async () => ({ ...campaign, status: overrides.status ?? 'ACTIVE' }) },
    counters: {
      async returnCampaignSlot(campaignId: number, day: string, kind: SendKind, k?: number) {
        calls.returned.push(`${campaignId} ${day} ${kind} ${k}`);
        return overrides.freed ?? true;
      },
      async takePull() {
        if (calls.pulls >= (overrides.budget ?? 3)) return false;
        calls.pulls += 1;
        return true;
      },
      async returnPull() {
        calls.pulls -= 1;
        calls.pullsGivenBack += 1;
      },
    },
    actions: {
      async waitsPastCap(_campaignId, kind, limit) {
        if (overrides.failQuery) throw new Error('throttled');
        return [...(overrides.staleIndex ? snapshot : stored).values()]
          .filter((action) => action.pastCap?.kind === kind && action.dueAt !== null)
          .sort((a, b) => String(b.dueAt).localeCompare(String(a.dueAt)))
          .slice(0, limit)
          .map((action) => ({ prospectId: action.prospectId, dueAt: action.dueAt as string }));
      },
      get: async (_campaignId, prospectId) => stored.get(prospectId),
      async replace(previous, next) {
        if (stored.get(previous.prospectId)?.version !== previous.version) return false;
        stored.set(previous.prospectId, next);
        return true;
      },
    },
    onPullFailed: ((error, at) => calls.failed.push(`${at.campaignId} ${at.day ?? at.place} ${at.kind}: ${String(error)}`)) as PullFailed,
  };
  return { slots: createSlotReturns(deps), stored, calls };
}

const owner = { workspaceId: 1, campaignId: 7 };
const dueNow = (stored: Map<number, OutreachAction>, now: string) =>
  [...stored.values()].filter((action) => action.dueAt === now).map((action) => action.prospectId);

describe('pulling a wait past the cap forward into a position given back', () => {
  const later = [wait(1, '2026-12-02T09:00:00.000Z'), wait(2, '2026-12-02T13:00:00.000Z'), wait(3, '2026-12-03T09:00:00.000Z')];

  it('pulls the latest wait due on a later day, recording the position it takes', async () => {
    const now = '2026-12-01T11:00:00.000Z';
    const { slots, stored, calls } = world(now, later);
    await slots.giveBack(owner, DAY, 'EMAIL', 2);
    expect(calls.returned).toEqual([`7 ${DAY} EMAIL 2`]);
    expect(dueNow(stored, now)).toEqual([3]);
    expect(stored.get(3)).toMatchObject({ pastCap: null, pulledFor: { day: DAY, kind: 'EMAIL', k: 2 }, version: 2 });
  });

  it('pulls for a skip at the day’s last slot, 90 s before the window closes (slots end there)', async () => {
    const now = '2026-12-01T16:58:31.000Z';
    const { slots, stored } = world(now, later);
    await slots.giveBack(owner, DAY, 'EMAIL', 3);
    expect(dueNow(stored, now)).toEqual([3]);
  });

  it('pulls one wait per position of a bulk give-back, the latest first', async () => {
    const now = '2026-12-01T11:00:00.000Z';
    const { slots, stored } = world(now, later);
    await slots.giveBackAll([2, 3].map((k) => ({ owner, day: DAY, kind: 'EMAIL' as const, k })));
    expect(dueNow(stored, now).sort()).toEqual([2, 3]);
  });

  it.each([
    ['the position was not given back now (already given back)', '2026-12-01T11:00:00.000Z', 2, { freed: false }],
    ['the position is past the cap as it is now (a cap lowered)', '2026-12-01T11:00:00.000Z', 4, {}],
    ['the window closes within a minute (the scheduler’s period): the pulled wait might not go today', '2026-12-01T16:59:00.000Z', 2, {}],
    ['the day given back is not today', '2026-12-02T11:00:00.000Z', 2, {}],
    ['the campaign is paused', '2026-12-01T11:00:00.000Z', 2, { status: 'PAUSED' as const }],
    ['the day’s budget of pulls is spent', '2026-12-01T11:00:00.000Z', 2, { budget: 0 }],
  ])('pulls nothing when %s', async (_, now, k, overrides) => {
    const { slots, stored } = world(now, later, overrides);
    await slots.giveBack(owner, DAY, 'EMAIL', k);
    expect(dueNow(stored, now)).toEqual([]);
  });

  it('pulls nothing when the latest wait is due today (it sends today anyway), and gives no budget away', async () => {
    const now = '2026-12-01T11:00:00.000Z';
    const { slots, stored, calls } = world(now, [wait(1, '2026-12-01T15:00:00.000Z')]);
    await slots.giveBack(owner, DAY, 'EMAIL', 2);
    expect(dueNow(stored, now)).toEqual([]);
    expect(calls.pulls).toBe(0);
  });

  it('pulls nothing for a give-back of another reason (pull false) or of unknown position, but gives the position back', async () => {
    const now = '2026-12-01T11:00:00.000Z';
    const { slots, stored, calls } = world(now, later);
    await slots.giveBack(owner, DAY, 'EMAIL', 2, false);
    await slots.giveBack(owner, DAY, 'EMAIL');
    expect(calls.returned).toEqual([`7 ${DAY} EMAIL 2`, `7 ${DAY} EMAIL undefined`]);
    expect(dueNow(stored, now)).toEqual([]);
  });

  it('gives the budget back when every candidate changed before its write', async () => {
    const now = '2026-12-01T11:00:00.000Z';
    const { slots, stored, calls } = world(now, later);
    // Each candidate is read at version 1 and written meanwhile by the engine.
    const real = stored.get.bind(stored);
    stored.get = (id: number) => {
      const found = real(id);
      if (found) stored.set(id, { ...found, version: found.version + 5 });
      return found;
    };
    await slots.giveBack(owner, DAY, 'EMAIL', 2);
    expect(calls.pulls).toBe(0);
    expect(calls.pullsGivenBack).toBe(1);
  });

  it('never fails its caller: a pull that throws is reported, and the position stays given back', async () => {
    const { slots, calls } = world('2026-12-01T11:00:00.000Z', later, { failQuery: true });
    await expect(slots.giveBack(owner, DAY, 'EMAIL', 2)).resolves.toBeUndefined();
    expect(calls.returned).toEqual([`7 ${DAY} EMAIL 2`]);
    expect(calls.failed).toEqual([`7 ${DAY} EMAIL: Error: throttled`]);
  });
});

describe('a place in line past the cap left by its prospect, handed to the latest wait', () => {
  const now = '2026-12-01T10:00:00.000Z';
  // Waits placed by Monday's demand: Wednesday 09:00 and 13:00, Thursday 09:00 and 13:00.
  const line = () => [wait(1, '2026-12-02T09:00:00.000Z'), wait(2, '2026-12-02T13:00:00.000Z'), wait(3, '2026-12-03T09:00:00.000Z'), wait(4, '2026-12-03T13:00:00.000Z')];
  const dueTimes = (stored: Map<number, OutreachAction>) => [...stored.values()].map((action) => `${action.prospectId} ${action.dueAt}`);
  const leave = (stored: Map<number, OutreachAction>, prospectId: number) => {
    const left = stored.get(prospectId) as OutreachAction;
    stored.delete(prospectId);
    return { owner, kind: 'EMAIL' as const, dueAt: left.dueAt as string };
  };

  it('the latest wait takes the due time of a place later today, still in line past the cap', async () => {
    const { slots, stored, calls } = world(now, line());
    await slots.passOn([{ owner, kind: 'EMAIL', dueAt: '2026-12-01T13:00:00.000Z' }]);
    expect(stored.get(4)).toMatchObject({ dueAt: '2026-12-01T13:00:00.000Z', pastCap: { day: '2026-11-30', kind: 'EMAIL' }, version: 2 });
    expect(dueTimes(stored).slice(0, 3)).toEqual(['1 2026-12-02T09:00:00.000Z', '2 2026-12-02T13:00:00.000Z', '3 2026-12-03T09:00:00.000Z']);
    // No position is given back or pulled for: it takes one when it comes due, as the one that left would have.
    expect([calls.returned, calls.pulls]).toEqual([[], 0]);
  });

  it('a place on a later day too: Wednesday keeps its two sends, Thursday has one fewer', async () => {
    const { slots, stored } = world(now, line());
    await slots.passOn([leave(stored, 1)]);
    expect(dueTimes(stored)).toEqual(['2 2026-12-02T13:00:00.000Z', '3 2026-12-03T09:00:00.000Z', '4 2026-12-02T09:00:00.000Z']);
  });

  it('places left together are taken earliest first by the latest waits', async () => {
    const { slots, stored } = world(now, line());
    await slots.passOn([leave(stored, 2), leave(stored, 1)]);
    expect(dueTimes(stored)).toEqual(['3 2026-12-02T13:00:00.000Z', '4 2026-12-02T09:00:00.000Z']);
  });

  it('moves nothing when the last in line leaves: no wait is due after its place', async () => {
    const { slots, stored } = world(now, line());
    const place = leave(stored, 4);
    await slots.passOn([place]);
    expect(dueTimes(stored)).toEqual(['1 2026-12-02T09:00:00.000Z', '2 2026-12-02T13:00:00.000Z', '3 2026-12-03T09:00:00.000Z']);
  });

  it('moves only a wait due after the place: the next to last leaving moves the last, within Thursday', async () => {
    const { slots, stored } = world(now, line());
    await slots.passOn([leave(stored, 3)]);
    expect(dueTimes(stored)).toEqual(['1 2026-12-02T09:00:00.000Z', '2 2026-12-02T13:00:00.000Z', '4 2026-12-03T09:00:00.000Z']);
  });

  it('leaves a place already due: its action may be in the sender’s hands, which gives back a position it took', async () => {
    const { slots, stored } = world(now, line());
    const before = dueTimes(stored);
    await slots.passOn([{ owner, kind: 'EMAIL', dueAt: '2026-12-01T10:00:00.000Z' }]);
    expect(dueTimes(stored)).toEqual(before);
  });

  it('passes over a wait parked or claimed (a stale index entry) and one written meanwhile, for the next', async () => {
    const waits = line();
    waits[3] = { ...(waits[3] as OutreachAction), parked: 'CAMPAIGN_NOT_ACTIVE' };
    waits[2] = { ...(waits[2] as OutreachAction), claim: { token: 't', at: now, accountId: 1, kind: 'EMAIL', accountDay: DAY, campaignDay: DAY } };
    const { slots, stored } = world(now, waits);
    // The candidates as the index had them a moment ago: prospect 2 is then written by the engine.
    const real = stored.get.bind(stored);
    stored.get = (id: number) => {
      const found = real(id);
      if (found && id === 2) stored.set(id, { ...found, version: found.version + 1 });
      return found;
    };
    await slots.passOn([{ owner, kind: 'EMAIL', dueAt: '2026-12-01T13:00:00.000Z' }]);
    expect(dueTimes(stored)).toEqual(['1 2026-12-01T13:00:00.000Z', '2 2026-12-02T13:00:00.000Z', '3 2026-12-03T09:00:00.000Z', '4 2026-12-03T13:00:00.000Z']);
  });

  it('passes over a wait another handover moved since the index was read: each place gets its own wait', async () => {
    const { slots, stored } = world(now, line(), { staleIndex: true });
    // Two prospects leave at once: both handovers listed Thursday 13:00's wait as the latest.
    await slots.passOn([{ owner, kind: 'EMAIL', dueAt: '2026-12-01T13:00:00.000Z' }]);
    await slots.passOn([{ owner, kind: 'EMAIL', dueAt: '2026-12-01T11:00:00.000Z' }]);
    expect(dueTimes(stored)).toEqual(['1 2026-12-02T09:00:00.000Z', '2 2026-12-02T13:00:00.000Z', '3 2026-12-01T11:00:00.000Z', '4 2026-12-01T13:00:00.000Z']);
  });

  it('a pull passes over a wait a handover moved into today since the index was read, for the next on a later day', async () => {
    const { slots, stored } = world('2026-12-01T11:00:00.000Z', line(), { staleIndex: true });
    await slots.passOn([{ owner, kind: 'EMAIL', dueAt: '2026-12-01T13:00:00.000Z' }]);
    await slots.giveBack(owner, DAY, 'EMAIL', 2);
    expect(stored.get(3)).toMatchObject({ dueAt: '2026-12-01T11:00:00.000Z', pastCap: null, pulledFor: { day: DAY, kind: 'EMAIL', k: 2 } });
    expect(stored.get(4)).toMatchObject({ dueAt: '2026-12-01T13:00:00.000Z', pastCap: { day: '2026-11-30', kind: 'EMAIL' } });
  });

  it('never fails its caller: a failing handover is reported with the place', async () => {
    const { slots, calls } = world(now, line(), { failQuery: true });
    await expect(slots.passOn([{ owner, kind: 'EMAIL', dueAt: '2026-12-01T13:00:00.000Z' }])).resolves.toBeUndefined();
    expect(calls.failed).toEqual(['7 2026-12-01T13:00:00.000Z EMAIL: Error: throttled']);
  });
});
