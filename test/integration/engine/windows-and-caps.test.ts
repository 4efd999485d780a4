import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spreadIndex } from '../../../shared/domain/engine/pacing';
import { chooseVariant } from '../../../shared/domain/engine/render';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, activate, advance, campaignStatus, campaignWith, engineWorld, extraAccount, outcomesOf, play, playAt, prospectsIn, sandboxSent, sentAt, emailsFrom } from './helpers';

describe('sending windows, daily caps and the A/B split', () => {
  // Friday 2026-10-23, 18:00 in Amsterdam (UTC+2, summer time): after the window has closed.
  const clock = new ManualClock('2026-10-23T16:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  it('waits for the window across a DST change: Monday 09:00 local is 08:00 UTC once summer time has ended', async () => {
    const campaign = await campaignWith(world, 'DST', [{ step_type: 'EMAIL' }], {
      sending_window: { monday: { enabled: true, start: '09:00', end: '17:00' } },
    });
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    expect(await sentAt(world, 'email')).toEqual([]);
    // Saturday, Sunday (the clocks go back on Sunday 25 October at 03:00): nothing.
    await playAt(world.stack, clock, '2026-10-26T07:59:00.000Z');
    expect(await sentAt(world, 'email')).toEqual([]);
    await playAt(world.stack, clock, '2026-10-26T08:00:00.000Z');
    expect(await sentAt(world, 'email')).toEqual(['2026-10-26T08:00:00.000Z']);
  });

  it('spreads a day’s sends through the window and carries what is over the cap to the next sending days', async () => {
    const { stack } = world;
    clock.set('2026-10-27T07:00:00.000Z'); // Tuesday 08:00 local, before the window
    const mailbox = await extraAccount(world, 'MAIL', 'sbx-mailbox-caps');
    const campaign = await campaignWith(world, 'Caps', [{ step_type: 'EMAIL' }], {
      email_max_messages: 4,
      account_ids: [mailbox],
      sending_window: {
        tuesday: { enabled: true, start: '09:00', end: '17:00' },
        wednesday: { enabled: true, start: '09:00', end: '17:00' },
        thursday: { enabled: true, start: '09:00', end: '17:00' },
      },
    });
    await prospectsIn(world, campaign.id, Array.from({ length: 10 }, () => ({})));
    await activate(world, campaign.id);
    // Slots of a 4-a-day cap in 09:00-17:00 (08:00-16:00 UTC): 08:00, 10:00, 12:00, 14:00 UTC.
    for (const at of ['08:00', '10:00', '12:00', '14:00', '16:00']) await playAt(stack, clock, `2026-10-27T${at}:00.000Z`);
    expect(await sentAt(world, 'email', 'sbx-mailbox-caps')).toEqual([
      '2026-10-27T08:00:00.000Z',
      '2026-10-27T10:00:00.000Z',
      '2026-10-27T12:00:00.000Z',
      '2026-10-27T14:00:00.000Z',
    ]);
    for (const at of ['08:00', '10:00', '12:00', '14:00']) await playAt(stack, clock, `2026-10-28T${at}:00.000Z`);
    for (const at of ['08:00', '10:00', '12:00', '14:00']) await playAt(stack, clock, `2026-10-29T${at}:00.000Z`);
    expect(await sentAt(world, 'email', 'sbx-mailbox-caps')).toEqual([
      '2026-10-27T08:00:00.000Z',
      '2026-10-27T10:00:00.000Z',
      '2026-10-27T12:00:00.000Z',
      '2026-10-27T14:00:00.000Z',
      '2026-10-28T08:00:00.000Z',
      '2026-10-28T10:00:00.000Z',
      '2026-10-28T12:00:00.000Z',
      '2026-10-28T14:00:00.000Z',
      '2026-10-29T08:00:00.000Z',
      '2026-10-29T10:00:00.000Z',
    ]);
    expect((await outcomesOf(stack, campaign.id)).map((o) => o.outcome)).toEqual(Array(10).fill('SENT'));
  });

  it('counts a sender account’s limit across two campaigns sharing it, in UTC days', async () => {
    const { stack } = world;
    clock.set('2026-11-02T08:00:00.000Z'); // Monday 09:00 local
    const mailbox = await extraAccount(world, 'MAIL', 'sbx-mailbox-shared');
    const limited = await stack.call('PATCH', `/public/accounts/${mailbox}/`, { apiKey: world.ws.key, body: { daily_limits: { emails: 3 } } });
    expect(limited.status, limited.text).toBe(200);
    const first = await campaignWith(world, 'Shared A', [{ step_type: 'EMAIL' }], { email_max_messages: 2, account_ids: [mailbox] });
    const second = await campaignWith(world, 'Shared B', [{ step_type: 'EMAIL' }], { email_max_messages: 2, account_ids: [mailbox] });
    await prospectsIn(world, first.id, [{}, {}]);
    await prospectsIn(world, second.id, [{}, {}]);
    await activate(world, first.id);
    await activate(world, second.id);
    // Each campaign's second slot is at 13:00 local (12:00 UTC); the account allows 3 of the 4.
    await playAt(stack, clock, '2026-11-02T12:00:00.000Z');
    await playAt(stack, clock, '2026-11-02T16:00:00.000Z');
    expect(await sentAt(world, 'email', 'sbx-mailbox-shared')).toEqual(['2026-11-02T08:00:00.000Z', '2026-11-02T08:00:00.000Z', '2026-11-02T12:00:00.000Z']);
    // The fourth goes the next UTC day, at the window's opening.
    await playAt(stack, clock, '2026-11-03T08:00:00.000Z');
    expect(await sentAt(world, 'email', 'sbx-mailbox-shared')).toEqual([
      '2026-11-02T08:00:00.000Z',
      '2026-11-02T08:00:00.000Z',
      '2026-11-02T12:00:00.000Z',
      '2026-11-03T08:00:00.000Z',
    ]);
  });

  it('spreads a campaign’s prospects across its mailboxes and keeps each prospect on its own', async () => {
    const { stack } = world;
    clock.set('2026-11-04T09:00:00.000Z'); // Wednesday 10:00 local
    const first = await extraAccount(world, 'MAIL', 'sbx-mailbox-spread-1');
    const second = await extraAccount(world, 'MAIL', 'sbx-mailbox-spread-2');
    const campaign = await campaignWith(
      world,
      'Spread',
      [
        { step_type: 'EMAIL', subject_line: 'Spread one' },
        { step_type: 'EMAIL', subject_line: 'Spread two', delay_in_hours: 1 },
      ],
      { account_ids: [first, second] },
    );
    const ids = await prospectsIn(world, campaign.id, Array.from({ length: 8 }, () => ({})));
    await activate(world, campaign.id);
    // 16 emails in the day's 40 slots of 12 minutes (from 08:00 UTC): played every 15 minutes until 12:00.
    for (let step = 0; step < 12; step += 1) await advance(stack, clock, 0.25);
    const outcomes = await outcomesOf(stack, campaign.id);
    const accountOf = (id: number, stepId: number) => outcomes.find((o) => o.prospectId === id && o.nodeId === stepId)?.accountId;
    const expected = Object.fromEntries(ids.map((id) => [id, [first, second][spreadIndex(id, 2)]]));
    expect(Object.fromEntries(ids.map((id) => [id, accountOf(id, campaign.stepIds[0] as number)]))).toEqual(expected);
    // The second email of each prospect goes through the account that sent its first.
    expect(Object.fromEntries(ids.map((id) => [id, accountOf(id, campaign.stepIds[1] as number)]))).toEqual(expected);
    expect(new Set(Object.values(expected)).size).toBe(new Set(ids.map((id) => spreadIndex(id, 2))).size);
  });

  it('splits the A/B variants 50/50 and records each prospect’s variant', async () => {
    const { stack } = world;
    clock.set('2026-11-05T09:00:00.000Z');
    const campaign = await campaignWith(world, 'AB', [
      { step_type: 'EMAIL', subject_line: 'A subject', message_template: 'Text A', subject_line_b: 'B subject', message_template_b: 'Text B' },
    ]);
    const ids = await prospectsIn(world, campaign.id, [{}, {}, {}, {}, {}, {}]);
    await activate(world, campaign.id);
    await advance(stack, clock, 1);
    const outcomes = await outcomesOf(stack, campaign.id);
    const variants = Object.fromEntries(outcomes.map((o) => [o.prospectId, o.variant]));
    const step = { id: campaign.stepIds[0] as number, messageTemplateB: 'Text B', subjectLineB: 'B subject' };
    const expected = Object.fromEntries(ids.map((id) => [id, chooseVariant(step, id)]));
    expect(variants).toEqual(expected);
    // What went out matches each recorded variant.
    const sent = (await sandboxSent(stack)).filter((item) => item.subject === 'A subject' || item.subject === 'B subject');
    const bs = Object.values(expected).filter((v) => v === 'B').length;
    expect(sent.map((item) => `${item.subject}/${item.text}`).sort()).toEqual([
      ...Array(6 - bs).fill('A subject/Text A'),
      ...Array(bs).fill('B subject/Text B'),
    ]);
  });

  it('skips a prospect without an email at once, without taking one of the day’s capped slots', async () => {
    const { stack } = world;
    clock.set('2026-11-10T07:00:00.000Z'); // Tuesday 08:00 local (UTC+1), before the window
    const mailbox = await extraAccount(world, 'MAIL', 'sbx-mailbox-skips');
    const campaign = await campaignWith(world, 'Skips', [{ step_type: 'EMAIL' }], {
      email_max_messages: 2,
      account_ids: [mailbox],
      sending_window: { tuesday: { enabled: true, start: '09:00', end: '17:00' } },
    });
    const [noEmail1, noEmail2, ada, bob] = await prospectsIn(world, campaign.id, [{ email: undefined }, { email: undefined }, {}, {}]);
    await activate(world, campaign.id);
    // A 2-a-day cap in 09:00-17:00 (08:00-16:00 UTC): slots at 08:00 and 12:00 UTC. The two
    // prospects without an email hold neither.
    for (const at of ['08:00', '12:00', '16:00']) await playAt(stack, clock, `2026-11-10T${at}:00.000Z`);
    expect(await sentAt(world, 'email', 'sbx-mailbox-skips')).toEqual(['2026-11-10T08:00:00.000Z', '2026-11-10T12:00:00.000Z']);
    const outcomes = Object.fromEntries((await outcomesOf(stack, campaign.id)).map((o) => [o.prospectId as number, [o.outcome, o.reason ?? null, o.at]]));
    expect(outcomes).toEqual({
      [noEmail1 as number]: ['SKIPPED', 'no valid email address', '2026-11-10T08:00:00.000Z'],
      [noEmail2 as number]: ['SKIPPED', 'no valid email address', '2026-11-10T08:00:00.000Z'],
      [ada as number]: ['SENT', null, expect.any(String)],
      [bob as number]: ['SENT', null, expect.any(String)],
    });
  });

  it('waits the first step’s delay from when each prospect is scheduled, then for the window', async () => {
    const { stack } = world;
    clock.set('2026-11-16T08:00:00.000Z'); // Monday 09:00 local (UTC+1), the default window open
    const mailbox = await extraAccount(world, 'MAIL', 'sbx-mailbox-root-delay');
    const campaign = await campaignWith(world, 'Root delay', [{ step_type: 'EMAIL', delay_in_hours: 26 }], { account_ids: [mailbox] });
    // Scheduled by the activation at 08:00 UTC: due 26 hours later, Tuesday 10:00 UTC (11:00 local).
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    // Added to the ACTIVE campaign with `activate` at 15:30 UTC: due Tuesday 17:30 UTC (18:30
    // local, the window closed), so it goes when the window opens on Wednesday, 08:00 UTC.
    await playAt(stack, clock, '2026-11-16T15:30:00.000Z');
    await prospectsIn(world, campaign.id, [{}], { activate: true });
    const [step] = campaign.stepIds;
    const positions = async () =>
      (
        await stack.call<{ prospects: { status: string; current_step_id: number | null; next_action_at: string | null }[] }>(
          'GET',
          `/public/campaigns/${campaign.id}/prospects/`,
          { apiKey: world.ws.key },
        )
      ).body.prospects.map(({ status, current_step_id, next_action_at }) => [status, current_step_id, next_action_at]);
    // Until the engine first handles it, the second shows when it was scheduled; then when it goes.
    expect(await positions()).toEqual([
      ['IN_REVIEW', step, '2026-11-17T10:00:00.000Z'],
      ['IN_REVIEW', step, '2026-11-16T15:30:00.000Z'],
    ]);
    await play(stack);
    expect(await positions()).toEqual([
      ['IN_REVIEW', step, '2026-11-17T10:00:00.000Z'],
      ['IN_REVIEW', step, '2026-11-18T08:00:00.000Z'],
    ]);
    await playAt(stack, clock, '2026-11-17T09:59:00.000Z');
    expect(await sentAt(world, 'email', 'sbx-mailbox-root-delay')).toEqual([]);
    for (const at of ['2026-11-17T10:00:00.000Z', '2026-11-17T16:00:00.000Z', '2026-11-17T17:30:00.000Z', '2026-11-18T07:59:00.000Z']) await playAt(stack, clock, at);
    expect(await sentAt(world, 'email', 'sbx-mailbox-root-delay')).toEqual(['2026-11-17T10:00:00.000Z']);
    // A finished sequence is at no step and has nothing due.
    expect(await positions()).toEqual([
      ['FINISHED', null, null],
      ['IN_REVIEW', step, '2026-11-18T08:00:00.000Z'],
    ]);
    await playAt(stack, clock, '2026-11-18T08:00:00.000Z');
    expect(await sentAt(world, 'email', 'sbx-mailbox-root-delay')).toEqual(['2026-11-17T10:00:00.000Z', '2026-11-18T08:00:00.000Z']);
  });

  it('gives back the slot a prospect held for later in the day when it stops or is parked, so the day still sends its cap', async () => {
    const { stack } = world;
    clock.set('2026-11-24T07:00:00.000Z'); // Tuesday 08:00 local (UTC+1), before the window
    const mailbox = await extraAccount(world, 'MAIL', 'sbx-mailbox-given-back');
    const campaign = await campaignWith(world, 'Given back', [{ step_type: 'EMAIL' }], {
      email_max_messages: 4,
      account_ids: [mailbox],
      sending_window: { tuesday: { enabled: true, start: '09:00', end: '17:00' } },
    });
    const emails = ['held1@example.com', 'held2@example.com', 'held3@example.com', 'held4@example.com'];
    const ids = await prospectsIn(world, campaign.id, emails.map((email) => ({ email })));
    await activate(world, campaign.id);
    const sent = () => emailsFrom(world, 'sbx-mailbox-given-back');
    // Slots of a 4-a-day cap (08:00-16:00 UTC): 08:00, 10:00, 12:00, 14:00. One goes at 08:00;
    // the other three hold positions 2, 3 and 4 of the day, waiting for their slots.
    await playAt(stack, clock, '2026-11-24T08:00:00.000Z');
    const [firstSent] = await sent();
    const first = (firstSent as string).split(' ')[0];
    const [stopped, ...kept] = ids.filter((_, i) => emails[i] !== first);

    // At 09:00 one gets a pipeline stage, which stops its sequence: its position is given back, and
    // a prospect added then takes that position (before 2026-11-28 night it took the count's next
    // one, which might be a position another prospect held).
    await playAt(stack, clock, '2026-11-24T09:00:00.000Z');
    const stop = await stack.call('PATCH', `/public/prospects/${stopped}/`, { apiKey: world.ws.key, body: { status: 'INTERESTED' } });
    expect(stop.status, stop.text).toBe(200);
    await prospectsIn(world, campaign.id, [{ email: 'late@example.com' }], { activate: true });
    await play(stack);

    // Paused at 09:30 until 15:00: each action is parked when its slot comes, and gives its
    // position back; on resume they take positions 2 to 4 again, whose slots have passed: at once.
    await playAt(stack, clock, '2026-11-24T09:30:00.000Z');
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/pause/`, { apiKey: world.ws.key })).status).toBe(200);
    await playAt(stack, clock, '2026-11-24T15:00:00.000Z');
    expect(await sent()).toEqual([firstSent]);
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/resume/`, { apiKey: world.ws.key })).status).toBe(200);
    await play(stack);
    await playAt(stack, clock, '2026-11-24T16:00:00.000Z');
    const keptEmails = kept.map((id) => emails[ids.indexOf(id)]);
    expect(await sent()).toEqual(
      [firstSent, ...[...keptEmails, 'late@example.com'].map((email) => `${email} 2026-11-24T15:00:00.000Z`)].sort(),
    );
  });

  it('moves a prospect to another of the campaign’s mailboxes when the one that contacted it is deleted or detached', async () => {
    const { stack } = world;
    clock.set('2026-11-30T08:00:00.000Z'); // Monday 09:00 local
    const kept = await extraAccount(world, 'MAIL', 'sbx-mailbox-kept');
    const deleted = await extraAccount(world, 'MAIL', 'sbx-mailbox-deleted');
    const detached = await extraAccount(world, 'MAIL', 'sbx-mailbox-detached');
    const accounts = [kept, deleted, detached];
    const campaign = await campaignWith(
      world,
      'Accounts gone',
      [
        { step_type: 'EMAIL', subject_line: 'Gone one' },
        { step_type: 'EMAIL', subject_line: 'Gone two', delay_in_hours: 4 },
      ],
      // A cap high enough that every first email goes within minutes, however many prospects it takes.
      { account_ids: accounts, email_max_messages: 1000 },
    );
    // Prospects until each mailbox has at least one (the spread is a hash of the prospect id).
    const ids: number[] = [];
    while (new Set(ids.map((id) => spreadIndex(id, 3))).size < 3) ids.push(...(await prospectsIn(world, campaign.id, [{}])));
    await activate(world, campaign.id);
    for (let step = 0; step < 8; step += 1) await advance(stack, clock, 0.25);
    const outcomes = async () => outcomesOf(stack, campaign.id);
    const accountOf = async (id: number, stepId: number) => (await outcomes()).find((o) => o.prospectId === id && o.nodeId === stepId)?.accountId;
    for (const id of ids) expect(await accountOf(id, campaign.stepIds[0] as number)).toBe(accounts[spreadIndex(id, 3)]);

    // One mailbox is deleted, another detached from the campaign, before the second emails are due.
    expect((await stack.call('DELETE', `/public/accounts/${deleted}/`, { apiKey: world.ws.key })).status).toBe(200);
    const detach = await stack.call('PATCH', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key, body: { account_ids: [kept] } });
    expect(detach.status, detach.text).toBe(200);
    for (let step = 0; step < 8; step += 1) await advance(stack, clock, 1);
    for (const id of ids) expect(await accountOf(id, campaign.stepIds[1] as number)).toBe(kept);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });
});
