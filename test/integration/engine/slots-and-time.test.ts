import type { Context, ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedProspect } from '../campaigns/helpers';
import { OUTREACH_SCHEDULER } from '../../../shared/runtime/catalog';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, actionsOf, activate, campaignWith, engineWorld, extraAccount, play, playAt, prospectsIn, sentAt, emailsFrom } from './helpers';

/** Daily slots given back when prospects leave, a window open across 00:00 UTC, and the sender's time left. Windows and caps: windows-and-caps.test.ts. */
describe('sending windows and caps: slots given back, windows across midnight UTC, time left', () => {
  // Tuesday 2026-12-01, 08:00 in Amsterdam: before the window.
  const clock = new ManualClock('2026-12-01T07:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  it('gives back the slots of prospects moved out, removed or archived while they waited for them', async () => {
    const { stack } = world;
    clock.set('2026-12-01T07:00:00.000Z'); // Tuesday 08:00 local (UTC+1), before the window
    const mailbox = await extraAccount(world, 'MAIL', 'sbx-mailbox-left');
    const window = { sending_window: { tuesday: { enabled: true, start: '09:00', end: '17:00' } } };
    const campaign = await campaignWith(world, 'Left', [{ step_type: 'EMAIL' }], { email_max_messages: 4, account_ids: [mailbox], ...window });
    const elsewhere = await campaignWith(world, 'Left for', [{ step_type: 'EMAIL' }], window);
    const emails = ['left1@example.com', 'left2@example.com', 'left3@example.com', 'left4@example.com'];
    const ids = await prospectsIn(world, campaign.id, emails.map((email) => ({ email })));
    await activate(world, campaign.id);
    const sent = () => emailsFrom(world, 'sbx-mailbox-left');
    // One goes at 08:00; the other three hold positions 2 to 4 (10:00, 12:00 and 14:00 UTC).
    await playAt(stack, clock, '2026-12-01T08:00:00.000Z');
    const [firstSent] = await sent();
    const [moved, removed, archived] = ids.filter((_, i) => emails[i] !== (firstSent as string).split(' ')[0]) as [number, number, number];

    await playAt(stack, clock, '2026-12-01T09:00:00.000Z');
    const listOf = async (id: number) => {
      const stored = await storedProspect(stack, id);
      if (!stored) throw new Error(`prospect ${id} not stored`);
      return [...(stored.listIds as Set<number>)][0];
    };
    const move = await stack.call('POST', `/public/lead-lists/${await listOf(moved)}/add-to-campaign/`, {
      apiKey: world.ws.key,
      body: { campaign: elsewhere.id, prospect_ids: [moved], allow_duplicates: true },
    });
    expect(move.status, move.text).toBe(200);
    const removal = await stack.call('POST', `/public/campaigns/${campaign.id}/remove-prospects/`, { apiKey: world.ws.key, body: { prospect_ids: [removed] } });
    expect(removal.status, removal.text).toBe(200);
    const archive = await stack.call('DELETE', `/public/lead-lists/${await listOf(archived)}/delete-leads/`, { apiKey: world.ws.key, body: { prospect_ids: [archived] } });
    expect(archive.status, archive.text).toBe(200);
    // Three prospects added then take positions 2 to 4 again: all of the day's cap goes out.
    await prospectsIn(world, campaign.id, [{ email: 'new1@example.com' }, { email: 'new2@example.com' }, { email: 'new3@example.com' }], { activate: true });
    await play(stack);
    for (const at of ['10:00', '12:00', '14:00', '16:00']) await playAt(stack, clock, `2026-12-01T${at}:00.000Z`);
    // The three take the positions in the order their writes land: one each at 10:00, 12:00, 14:00.
    const all = await sent();
    expect(all).toHaveLength(4);
    expect(all).toContain(firstSent);
    expect(all.filter((line) => line.startsWith('new')).map((line) => line.split(' ')[1]).sort()).toEqual([
      '2026-12-01T10:00:00.000Z',
      '2026-12-01T12:00:00.000Z',
      '2026-12-01T14:00:00.000Z',
    ]);
    expect(all.filter((line) => line.startsWith('new')).map((line) => line.split(' ')[0]).sort()).toEqual(['new1@example.com', 'new2@example.com', 'new3@example.com']);
  });

  it('spreads the sends an account’s daily limit held back over the rest of a window open across 00:00 UTC (Auckland), not all at once', async () => {
    const { stack } = world;
    clock.set('2026-12-02T19:00:00.000Z'); // Thursday 3 December, 08:00 in Auckland (UTC+13)
    const mailbox = await extraAccount(world, 'MAIL', 'sbx-mailbox-auckland');
    const limited = await stack.call('PATCH', `/public/accounts/${mailbox}/`, { apiKey: world.ws.key, body: { daily_limits: { emails: 2 } } });
    expect(limited.status, limited.text).toBe(200);
    const days = { enabled: true, start: '09:00', end: '17:00' };
    const everyDay = { monday: days, tuesday: days, wednesday: days, thursday: days, friday: days, saturday: days, sunday: days };
    // 09:00-17:00 local is 20:00-04:00 UTC: the account's UTC day changes at 13:00 local.
    const campaign = await campaignWith(world, 'Auckland', [{ step_type: 'EMAIL' }], {
      timezone: 'Pacific/Auckland',
      email_max_messages: 10,
      account_ids: [mailbox],
      sending_window: everyDay,
    });
    await prospectsIn(world, campaign.id, Array.from({ length: 5 }, () => ({})));
    await activate(world, campaign.id);
    // Slots every 48 minutes from 20:00 UTC: 20:00 and 20:48 go, 21:36, 22:24 and 23:12 find the account at its limit.
    for (const at of ['20:00', '20:48', '21:36', '22:24', '23:12']) await playAt(stack, clock, `2026-12-02T${at}:00.000Z`);
    expect(await sentAt(world, 'email', 'sbx-mailbox-auckland')).toEqual(['2026-12-02T20:00:00.000Z', '2026-12-02T20:48:00.000Z']);
    const page = await stack.call<{ prospects: { next_action_at: string | null }[] }>('GET', `/public/campaigns/${campaign.id}/prospects/`, { apiKey: world.ws.key });
    const waiting = page.body.prospects.flatMap((p) => (p.next_action_at ? [p.next_action_at] : [])).sort();
    // Each waits for a moment of its own in 00:00-03:58:30 UTC (all three woke at 00:00:00 before).
    expect(waiting).toHaveLength(3);
    expect([new Set(waiting).size, waiting.every((at) => at >= '2026-12-03T00:00:00.000Z' && at <= '2026-12-03T03:58:30.000Z')]).toEqual([3, true]);
    // Played minute by minute to the window's end: two go on the new UTC day, each when its moment comes.
    for (let minute = 1; minute <= 240; minute += 1) await playAt(stack, clock, new Date(Date.parse('2026-12-03T00:00:00.000Z') + minute * 60_000).toISOString());
    const sent = await sentAt(world, 'email', 'sbx-mailbox-auckland');
    expect(sent.slice(2)).toEqual(waiting.slice(0, 2).map((at) => new Date(Math.ceil(Date.parse(at) / 60_000) * 60_000).toISOString()));
  });

  it("starts no action the sender's time left cannot hold: it comes back with its message, unclaimed, and is sent then", async () => {
    const { stack } = world;
    // Sunday 6 December, 11:00 in Amsterdam: only this campaign's window is open (the others' are
    // weekdays, Auckland's closed), and what the earlier tests left due is played first.
    await playAt(stack, clock, '2026-12-06T09:59:00.000Z');
    clock.set('2026-12-06T10:00:00.000Z');
    const mailbox = await extraAccount(world, 'MAIL', 'sbx-mailbox-deadline');
    const campaign = await campaignWith(world, 'Deadline', [{ step_type: 'EMAIL' }], {
      account_ids: [mailbox],
      sending_window: { sunday: { enabled: true, start: '09:00', end: '17:00' } },
    });
    await prospectsIn(world, campaign.id, [{}]);
    const started = await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key });
    expect(started.status, started.text).toBe(200);
    await stack.drain('campaign-scheduling');
    const scheduler = stack.functions.schedules[OUTREACH_SCHEDULER.name];
    if (!scheduler) throw new Error('no outreach scheduler');
    await scheduler({ 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} } as ScheduledEvent, {} as Context);
    // The sender's invocation has 1 s left: less than three provider calls at their timeout need.
    const logged = stack.logs.length;
    expect(await stack.poller.pollOnce({ ...stack.queue('outreach'), timeoutMs: 1_000 })).toBe(1);
    expect(await sentAt(world, 'email', 'sbx-mailbox-deadline')).toEqual([]);
    expect((await actionsOf(stack, campaign.id)).filter((action) => action.claim !== undefined && action.claim !== null)).toEqual([]);
    expect(stack.logs.slice(logged).filter((line) => line.includes('"level":"WARN"')).map((line) => JSON.parse(line).message)).toEqual([
      "Outreach actions left for their message's next delivery: the function's time ran short",
    ]);
    // Not lost: the scheduler's full sweep finds it still due, and a sender with its time sends it.
    await playAt(stack, clock, '2026-12-06T10:16:00.000Z');
    expect(await sentAt(world, 'email', 'sbx-mailbox-deadline')).toEqual(['2026-12-06T10:16:00.000Z']);
  });
});
