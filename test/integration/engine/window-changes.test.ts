import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_SENDING_DAY } from '../../../shared/domain/engine/pacing';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, activate, advance, campaignStatus, campaignWith, engineWorld, extraAccount, play, prospectStatuses, prospectsIn, sandboxSent, sentSummary } from './helpers';

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const window = (enabled: boolean) => Object.fromEntries(DAYS.map((day) => [day, { enabled, start: '00:00', end: '23:59' }]));

/** A window changed while prospects wait: a step that meets a window without any open day waits and looks again. */
describe('a sending window without an open day', () => {
  // Monday 2026-11-30 08:00 UTC.
  const clock = new ManualClock('2026-11-30T08:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  it('holds the step with a reason while no day is open, and sends it within the hour once a day opens again', async () => {
    const campaign = await campaignWith(
      world,
      'Holiday by window',
      [
        { step_type: 'EMAIL', subject_line: 'Before the holiday' },
        { step_type: 'EMAIL', subject_line: 'After the holiday', delay_in_hours: 1 },
      ],
      { timezone: 'UTC', sending_window: window(true) },
    );
    const [second] = campaign.stepIds.slice(1) as [number];
    const [id] = await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    const setWindow = async (enabled: boolean) => {
      const patched = await world.stack.call('PATCH', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key, body: { sending_window: window(enabled) } });
      expect(patched.status, patched.text).toBe(200);
    };
    const page = async () =>
      (
        await world.stack.call<{ prospects: { id: number; current_step_id: number; next_action_at: string | null; last_error: string | null }[] }>(
          'GET',
          `/public/campaigns/${campaign.id}/prospects/`,
          { apiKey: world.ws.key },
        )
      ).body.prospects.map(({ id, current_step_id, next_action_at, last_error }) => ({ id, current_step_id, next_action_at, last_error }));

    await setWindow(false);
    await advance(world.stack, clock, 2);
    expect(await page()).toEqual([{ id, current_step_id: second, next_action_at: '2026-11-30T11:00:00.000Z', last_error: NO_SENDING_DAY }]);
    await advance(world.stack, clock, 24);
    expect((await sentSummary(world.stack)).map(([, subject]) => subject)).toEqual(['Before the holiday']);

    // Open again (a PATCH only; no activate or resume): the step is placed again at once and sent.
    await setWindow(true);
    await play(world.stack);
    expect((await sentSummary(world.stack)).map(([, subject, at]) => [subject, at])).toEqual([
      ['Before the holiday', '2026-11-30T08:00:00.000Z'],
      ['After the holiday', '2026-12-01T10:00:00.000Z'],
    ]);
  });
});

/** Caps raised and windows widened while prospects wait on them: they go by the settings as they are now. */
describe('pacing settings changed while prospects wait on them', () => {
  // Monday 2026-12-07 08:00 UTC.
  const clock = new ManualClock('2026-12-07T08:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  const patch = async (campaignId: number, body: Record<string, unknown>) => {
    const patched = await world.stack.call('PATCH', `/public/campaigns/${campaignId}/`, { apiKey: world.ws.key, body });
    expect(patched.status, patched.text).toBe(200);
  };
  const sentOf = async (subject: string) => (await sentSummary(world.stack)).filter(([, sent]) => sent === subject).map(([, , at]) => at);

  it('sends today what a cap raised during the day lets through, those already waiting for a later day included', async () => {
    const campaign = await campaignWith(world, 'Cap raised', [{ step_type: 'EMAIL', subject_line: 'Capped' }], {
      timezone: 'UTC',
      sending_window: window(true),
      email_max_messages: 1,
    });
    await prospectsIn(world, campaign.id, [{}, {}, {}]);
    await activate(world, campaign.id);
    expect(await sentOf('Capped')).toEqual(['2026-12-07T08:00:00.000Z']);
    const waiting = (await prospectStatuses(world, campaign.id)) as Record<number, { last_error: string | null }>;
    expect(Object.values(waiting).map(({ last_error }) => last_error).sort()).toEqual([
      null,
      "the campaign's email_max_messages (1 a day) is reached for 2026-12-07: it goes on a later day",
      "the campaign's email_max_messages (1 a day) is reached for 2026-12-07: it goes on a later day",
    ]);

    // Raised to 3: the two waiting for the next days take today's positions 2 and 3 (the demand
    // past the old cap holds none), at their slots of the day cut in three.
    await patch(campaign.id, { email_max_messages: 3 });
    await play(world.stack);
    expect(await sentOf('Capped')).toEqual(['2026-12-07T08:00:00.000Z', '2026-12-07T08:00:00.000Z']);
    await advance(world.stack, clock, 8);
    expect(await sentOf('Capped')).toEqual(['2026-12-07T08:00:00.000Z', '2026-12-07T08:00:00.000Z', '2026-12-07T16:00:00.000Z']);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });

  it('sends at once what waited for the window’s opening when the window is widened to now', async () => {
    clock.set('2026-12-08T18:00:00.000Z'); // Tuesday, after a 09:00-17:00 window
    const campaign = await campaignWith(world, 'Window widened', [{ step_type: 'EMAIL', subject_line: 'Widened' }], {
      timezone: 'UTC',
      sending_window: { tuesday: { enabled: true, start: '09:00', end: '17:00' }, wednesday: { enabled: true, start: '09:00', end: '17:00' } },
    });
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    expect(await sentOf('Widened')).toEqual([]);

    await patch(campaign.id, { sending_window: window(true) });
    await play(world.stack);
    expect(await sentOf('Widened')).toEqual(['2026-12-08T18:00:00.000Z']);
  });

  it('puts the waits past a raised cap on the next days as the new cap spreads them, not after the demand they took before', async () => {
    clock.set('2026-12-14T08:00:00.000Z'); // Monday
    const campaign = await campaignWith(world, 'Cap raised, demand again', [{ step_type: 'EMAIL', subject_line: 'Spread' }], {
      timezone: 'UTC',
      sending_window: window(true),
      email_max_messages: 1,
    });
    await prospectsIn(world, campaign.id, [{}, {}, {}, {}]);
    await activate(world, campaign.id);
    expect(await sentOf('Spread')).toEqual(['2026-12-14T08:00:00.000Z']);

    // Raised to 2: one takes today's second slot (12:00); the other two are the day's demand past
    // the cap again, counted from the start, so both go on Tuesday (00:00 and 12:00), its cap of 2.
    await patch(campaign.id, { email_max_messages: 2 });
    await play(world.stack);
    for (const hours of [4, 12, 12]) await advance(world.stack, clock, hours);
    expect(await sentOf('Spread')).toEqual(['2026-12-14T08:00:00.000Z', '2026-12-14T12:00:00.000Z', '2026-12-15T00:00:00.000Z', '2026-12-15T12:00:00.000Z']);
  });

  it('after a timezone change, forgets the demand counted on the date that is the next local day now', async () => {
    clock.set('2026-12-21T02:30:00.000Z'); // Monday 02:30 UTC; Sunday 18:30 in Los Angeles
    const campaign = await campaignWith(world, 'Timezone moved back', [{ step_type: 'EMAIL', subject_line: 'Moved back' }], {
      timezone: 'UTC',
      sending_window: window(true),
      email_max_messages: 2,
    });
    await prospectsIn(world, campaign.id, [{}, {}, {}, {}, {}, {}]);
    await activate(world, campaign.id);
    await patch(campaign.id, { timezone: 'America/Los_Angeles' });
    await play(world.stack);
    for (let day = 0; day < 4; day += 1) await advance(world.stack, clock, 24);
    // Sunday in LA sends its 2 besides the one sent under the UTC date (the known limit of a
    // timezone change: engine.md); Monday's date holds that UTC send, so 1; Tuesday 2. Without the
    // clear of Monday's date, its demand from the UTC hours pushed the last one to Thursday.
    expect(await sentOf('Moved back')).toEqual([
      '2026-12-21T02:30:00.000Z',
      '2026-12-21T02:30:00.000Z',
      '2026-12-21T02:30:00.000Z',
      '2026-12-22T02:30:00.000Z',
      '2026-12-23T02:30:00.000Z',
      '2026-12-23T02:30:00.000Z',
    ]);
  });

  it('counts a send on the day of the campaign’s timezone as it is when the send goes, after a change', async () => {
    clock.set('2027-02-02T07:00:00.000Z'); // Tuesday
    const campaign = await campaignWith(world, 'Timezone days', [{ step_type: 'EMAIL', subject_line: 'TZ one' }, { step_type: 'EMAIL', subject_line: 'TZ two', delay_in_hours: 24 }], {
      timezone: 'UTC',
      sending_window: window(true),
    });
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    await advance(world.stack, clock, 2.5);
    await patch(campaign.id, { timezone: 'America/Los_Angeles' });
    // The follow-up goes on the 3rd at 07:30 UTC (due at 07:00, played at the clock's next stop): 23:30 on the 2nd in Los Angeles.
    await advance(world.stack, clock, 22);
    expect(await sentOf('TZ two')).toEqual(['2027-02-03T07:30:00.000Z']);
    const analytics = await world.stack.call<{ analytics: { daily_metrics: { date: string; emails_sent: number }[] } }>(
      'GET',
      `/public/campaigns/${campaign.id}/analytics/?start_date=2027-02-01&end_date=2027-02-03`,
      { apiKey: world.ws.key },
    );
    // The first was counted on the 2nd (UTC then), the follow-up on the 2nd in Los Angeles, not the 3rd.
    expect(analytics.body.analytics.daily_metrics.map((day) => [day.date, day.emails_sent])).toEqual([
      ['01 Feb', 0],
      ['02 Feb', 2],
      ['03 Feb', 0],
    ]);
  });

  it('sends today what waited for the next day behind its mailbox’s daily limit once that limit is raised', async () => {
    clock.set('2026-12-28T08:00:00.000Z'); // Monday
    const mailbox = await extraAccount(world, 'MAIL', 'sbx-mailbox-raised');
    const limit = async (emails: number) => {
      const patched = await world.stack.call('PATCH', `/public/accounts/${mailbox}/`, { apiKey: world.ws.key, body: { daily_limits: { emails } } });
      expect(patched.status, patched.text).toBe(200);
    };
    await limit(1);
    const campaign = await campaignWith(world, 'Mailbox limit raised', [{ step_type: 'EMAIL', subject_line: 'Limited' }], {
      timezone: 'UTC',
      sending_window: window(true),
      email_max_messages: 3,
      account_ids: [mailbox],
    });
    await prospectsIn(world, campaign.id, [{}, {}, {}]);
    await activate(world, campaign.id);
    // Two slots of the day have passed: one goes, the other finds the mailbox at its limit and
    // waits for the next UTC day, saying so; the third holds the 16:00 slot.
    expect(await sentOf('Limited')).toEqual(['2026-12-28T08:00:00.000Z']);
    const waiting = (await prospectStatuses(world, campaign.id)) as Record<number, { last_error: string | null }>;
    expect(Object.values(waiting).map(({ last_error }) => last_error).sort()).toEqual([
      null,
      null,
      "the campaign's sender accounts are at their daily_limits.emails for 2026-12-28 (UTC): it goes on the next day",
    ]);

    // Raised at 09:00: the wait for tomorrow is placed again, today. It takes the position it gave
    // back (2, whose slot has passed: at once), not the count's next one (3, the day's last slot,
    // which the third prospect holds: before 2026-11-28 night both went at 16:00). The cap's 3
    // sends in the day.
    clock.set('2026-12-28T09:00:00.000Z');
    await limit(3);
    await play(world.stack);
    expect(Object.values(await prospectStatuses(world, campaign.id)).map(({ last_error }) => last_error)).toEqual([null, null, null]);
    expect(await sentOf('Limited')).toEqual(['2026-12-28T08:00:00.000Z', '2026-12-28T09:00:00.000Z']);
    clock.set('2026-12-28T16:00:00.000Z');
    await play(world.stack);
    expect(await sentOf('Limited')).toEqual(['2026-12-28T08:00:00.000Z', '2026-12-28T09:00:00.000Z', '2026-12-28T16:00:00.000Z']);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });

  it('takes a deleted mailbox out of its campaigns, and the prospect that waited for its limit goes through another at once', async () => {
    clock.set('2027-01-04T08:00:00.000Z'); // Monday
    const first = await extraAccount(world, 'MAIL', 'sbx-mailbox-deleted');
    const second = await extraAccount(world, 'MAIL', 'sbx-mailbox-kept');
    const limited = await world.stack.call('PATCH', `/public/accounts/${first}/`, { apiKey: world.ws.key, body: { daily_limits: { emails: 1 } } });
    expect(limited.status, limited.text).toBe(200);
    const campaign = await campaignWith(
      world,
      'Mailbox deleted',
      [
        { step_type: 'EMAIL', subject_line: 'Opening' },
        { step_type: 'EMAIL', subject_line: 'Follow-up', delay_in_hours: 0 },
      ],
      { timezone: 'UTC', sending_window: window(true), email_max_messages: 10, account_ids: [first] },
    );
    const [prospect] = await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    // The follow-up waits for the mailbox that sent the opening, at its limit until tomorrow; a
    // second mailbox attached does not take it (the thread stays with its mailbox).
    await patch(campaign.id, { account_ids: [first, second] });
    await play(world.stack);
    expect(await sentOf('Opening')).toEqual(['2027-01-04T08:00:00.000Z']);
    expect(await sentOf('Follow-up')).toEqual([]);
    expect((await prospectStatuses(world, campaign.id))[prospect as number]?.last_error).toBe(
      `sender account ${first}, which contacted the prospect, is at its daily_limits.emails (1 a day) for 2027-01-04 (UTC): it goes on the next day`,
    );

    clock.set('2027-01-04T09:00:00.000Z');
    const deleted = await world.stack.call('DELETE', `/public/accounts/${first}/`, { apiKey: world.ws.key });
    expect(deleted.status, deleted.text).toBe(200);
    await play(world.stack);
    const follow = (await sandboxSent(world.stack)).filter((item) => item.kind === 'email' && item.subject === 'Follow-up');
    expect(follow.map((item) => [item.accountId, item.at])).toEqual([['sbx-mailbox-kept', '2027-01-04T09:00:00.000Z']]);
    const detail = await world.stack.call<{ campaign: { account_ids: number[] } }>('GET', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key });
    expect(detail.body.campaign.account_ids).toEqual([second]);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });

  it('shows no stale cap reason while a prospect placed again waits for the window', async () => {
    clock.set('2026-12-28T09:00:00.000Z'); // Monday, as a 09:00-17:00 window opens
    const weekdays = Object.fromEntries(DAYS.map((day) => [day, { enabled: true, start: '09:00', end: '17:00' }]));
    const campaign = await campaignWith(world, 'Stale reason', [{ step_type: 'EMAIL', subject_line: 'Stale' }], {
      timezone: 'UTC',
      sending_window: weekdays,
      email_max_messages: 1,
    });
    await prospectsIn(world, campaign.id, [{}, {}]);
    await activate(world, campaign.id);
    const reasons = async () => Object.values(await prospectStatuses(world, campaign.id)).map(({ last_error }) => last_error).sort();
    expect(await reasons()).toEqual([null, "the campaign's email_max_messages (1 a day) is reached for 2026-12-28: it goes on a later day"]);
    // The cap raised after the window closed: the waiting prospect is placed again and waits for the
    // window; the cap no longer holds it (before 2026-11-28 the page kept the reason of 2026-12-28).
    clock.set('2026-12-28T18:00:00.000Z');
    await patch(campaign.id, { email_max_messages: 2 });
    await play(world.stack);
    expect(await reasons()).toEqual([null, null]);
    await advance(world.stack, clock, 15.5); // Tuesday 09:30
    expect(await sentOf('Stale')).toEqual(['2026-12-28T09:00:00.000Z', '2026-12-29T09:30:00.000Z']);
  });
  it('shows no stale cap reason for a prospect parked by a pause', async () => {
    clock.set('2027-01-04T09:00:00.000Z'); // Monday
    const campaign = await campaignWith(world, 'Parked reason', [{ step_type: 'EMAIL', subject_line: 'Parked' }], {
      timezone: 'UTC',
      sending_window: window(true),
      email_max_messages: 1,
    });
    await prospectsIn(world, campaign.id, [{}, {}]);
    await activate(world, campaign.id);
    const reasons = async () => Object.values(await prospectStatuses(world, campaign.id)).map(({ last_error }) => last_error).sort();
    expect(await reasons()).toEqual([null, "the campaign's email_max_messages (1 a day) is reached for 2027-01-04: it goes on a later day"]);
    const paused = await world.stack.call('POST', `/public/campaigns/${campaign.id}/pause/`, { apiKey: world.ws.key });
    expect(paused.status, paused.text).toBe(200);
    // Its day comes while the campaign is paused: parked, and the cap of 2027-01-04 is no reason any more.
    await advance(world.stack, clock, 24);
    expect(await reasons()).toEqual([null, null]);
  });
});
