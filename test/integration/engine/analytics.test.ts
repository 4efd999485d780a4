import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { DynamoOutcomeLog } from '../../../shared/db/outcome-log';
import type { ActionOutcome } from '../../../shared/domain/engine/action';
import { type EngineWorld, activate, advance, campaignWith, engineWorld, outcomesOf, play, playAt, prospectsIn, sandboxSent } from './helpers';

/**
 * Analytics of a scripted campaign played with the injected clock (docs/analytics.md): every
 * expectation below is counted by hand from the script.
 *
 * Campaign "Scripted" (Europe/Amsterdam, UTC+1 in November): step 1 EMAIL with an A/B variant,
 * step 2 NETWORK_INVITE 24 hours later. Four prospects: ann, ben, cat, dan.
 * - Mon 23 Nov: the four emails go out (09:00Z-11:00Z); cat answers at 15:00Z (her sequence stops).
 * - Tue 24 Nov 12:00Z: invites to ann, ben and dan; ben accepts at 14:00Z (the webhook twice).
 * - Tue 24 Nov 23:30Z (Wed 00:30 in Amsterdam): ben is set INTERESTED (twice).
 * - Wed 25 Nov 13:00Z: ann answers, in the thread of her email (the webhook twice); dan is set MEETING_SCHEDULED.
 */
describe('analytics', () => {
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;
  let campaign: { id: number; stepIds: number[] };
  let idle: { id: number; stepIds: number[] };
  let ben: number;
  let dan: number;
  const reply = async (from: string, messageId: string) => {
    const answered = await world.stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', channel: 'EMAIL', from, thread_with: from, text: 'An answer', message_id: messageId });
    expect(answered.deliveries.map((delivery) => delivery.status)).toEqual([200]);
  };
  const setStatus = async (prospectId: number, status: string) => {
    const response = await world.stack.call('PATCH', `/public/prospects/${prospectId}/`, { apiKey: world.ws.key, body: { status } });
    expect(response.status, response.text).toBe(200);
  };
  const get = (path: string, auth: { apiKey?: string; token?: string } = { apiKey: world.ws.key }) => world.stack.call<Record<string, unknown>>('GET', path, auth);

  beforeAll(async () => {
    world = await engineWorld(clock);
    const { stack } = world;
    campaign = await campaignWith(
      world,
      'Scripted',
      [
        // Variant B gives its text only: its emails go out with A's subject.
        { step_type: 'EMAIL', subject_line: 'S one', message_template: 'Hi A', message_template_b: 'Hi B' },
        { step_type: 'NETWORK_INVITE', message_template: 'S invite', delay_in_hours: 24 },
      ],
      { timezone: 'Europe/Amsterdam' },
    );
    [, ben, , dan] = (await prospectsIn(world, campaign.id, [
      { email: 'ann@a.example', network_profile_url: 'https://www.linkedin.com/in/an-ann' },
      { email: 'ben@b.example', network_profile_url: 'https://www.linkedin.com/in/an-ben' },
      { email: 'cat@c.example', network_profile_url: 'https://www.linkedin.com/in/an-cat' },
      { email: 'dan@d.example', network_profile_url: 'https://www.linkedin.com/in/an-dan' },
    ])) as number[] as [number, number, number, number];
    idle = await campaignWith(world, 'Idle', [{ step_type: 'EMAIL' }]);
    await prospectsIn(world, idle.id, [{ email: 'eve@e.example' }, { email: 'fay@f.example' }]);

    await activate(world, campaign.id);
    await advance(stack, clock, 2);
    await playAt(stack, clock, '2026-11-23T15:00:00.000Z');
    await reply('cat@c.example', 'an_cat_1');
    await playAt(stack, clock, '2026-11-24T12:00:00.000Z');
    await playAt(stack, clock, '2026-11-24T14:00:00.000Z');
    const invitation = (await stack.provider.control.state()).invitations.find((item) => item.publicIdentifier === 'an-ben');
    if (!invitation) throw new Error('no invitation to ben');
    await stack.provider.control.acceptInvitation(invitation.id);
    await stack.provider.control.acceptInvitation(invitation.id);
    await playAt(stack, clock, '2026-11-24T23:30:00.000Z');
    await setStatus(ben, 'INTERESTED');
    await setStatus(ben, 'INTERESTED');
    await playAt(stack, clock, '2026-11-25T13:00:00.000Z');
    await reply('ann@a.example', 'an_ann_1');
    await reply('ann@a.example', 'an_ann_1');
    await setStatus(dan, 'MEETING_SCHEDULED');
    await play(stack);
  });
  afterAll(async () => {
    await world?.stack.stop();
  });

  const day = (date: string, counts: Partial<Record<'emails_sent' | 'network_messages_sent' | 'invites_sent' | 'invites_accepted' | 'replies' | 'interested', number>> = {}) => ({
    date,
    emails_sent: 0,
    network_messages_sent: 0,
    invites_sent: 0,
    invites_accepted: 0,
    replies: 0,
    interested: 0,
    ...counts,
  });
  /** The nine all-time fields of "Scripted", counted from the script. */
  const scriptedFields = {
    amount_of_prospects: 4,
    amount_of_emails_sent: 4,
    amount_of_invites_sent: 3,
    amount_of_invites_accepted: 1,
    amount_of_network_messages_sent: 0,
    amount_of_prospects_contacted: 4,
    amount_of_replies: 2,
    amount_of_interested: 1,
    // cat: 09:00Z to 15:00Z (6 h); ann: the email she answers (23 Nov, 09:00Z-11:00Z) to 25 Nov
    // 13:00Z (50-52 h); mean 28-29 h, shown in whole days.
    average_reply_time: '1 day',
  };
  const idleFields = { ...scriptedFields, amount_of_prospects: 2, amount_of_emails_sent: 0, amount_of_invites_sent: 0, amount_of_invites_accepted: 0, amount_of_prospects_contacted: 0, amount_of_replies: 0, amount_of_interested: 0, average_reply_time: 'N/A' };
  const account = (fields: Record<string, unknown>) => ({
    total_prospects: 6,
    total_emails_sent: 0,
    total_network_messages_sent: 0,
    total_invites_sent: 0,
    total_invites_accepted: 0,
    total_replies: 0,
    total_interested: 0,
    reply_rate: 0,
    invite_acceptance_rate: 0,
    ...fields,
  });
  const allTime = account({
    total_emails_sent: 4,
    total_invites_sent: 3,
    total_invites_accepted: 1,
    total_replies: 2,
    total_interested: 1,
    reply_rate: 50,
    invite_acceptance_rate: 33.33,
  });

  it('campaign analytics: all-time fields, its days in Amsterdam, A/B tests, pipeline and per-step metrics', async () => {
    const [stepOne, stepTwo] = campaign.stepIds as [number, number];
    // The split is a 50/50 hash of prospect and step id (ids differ from run to run): who got B is
    // read from what the sandbox received; cat's and ann's replies count for their variants.
    const onB = (await sandboxSent(world.stack)).filter((item) => item.kind === 'email' && item.text.startsWith('Hi B')).map((item) => item.to);
    const repliedOnB = ['cat@c.example', 'ann@a.example'].filter((address) => onB.includes(address)).length;
    const variant = (sent: number, replied: number) => ({ sent_count: sent, reply_count: replied, reply_rate: sent === 0 ? 0 : Math.round((replied / sent) * 10_000) / 100 });
    const response = await get(`/public/campaigns/${campaign.id}/analytics/?start_date=2026-11-23&end_date=2026-11-26`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      success: true,
      analytics: {
        ...scriptedFields,
        daily_metrics: [
          day('23 Nov', { emails_sent: 4, replies: 1 }),
          day('24 Nov', { invites_sent: 3, invites_accepted: 1 }),
          // ben's INTERESTED at 24 Nov 23:30Z is 25 Nov 00:30 in Amsterdam.
          day('25 Nov', { replies: 1, interested: 1 }),
          day('26 Nov'),
        ],
      },
      ab_testing: {
        tests: [
          {
            step_id: stepOne,
            step_name: 'Step 1: EMAIL',
            variant_a: { subject_line: 'S one', message_template: 'Hi A', ...variant(4 - onB.length, 2 - repliedOnB) },
            // What B's emails went out with: A's subject, as B gives none.
            variant_b: { subject_line: 'S one', message_template: 'Hi B', ...variant(onB.length, repliedOnB) },
          },
        ],
      },
      pipeline: { leads_contacted: 4, replied: 2, interested: 1, meeting_scheduled: 1 },
      // ann's reply answers her email (its thread), not the invite sent to her after it (before
      // 2026-11-28 it went to the invite, the last step sent to her).
      metrics_per_step: { [stepOne]: { emails_sent: 4, replies: 2, reply_rate: 50 }, [stepTwo]: { emails_sent: 3, replies: 0, reply_rate: 0 } },
    });

    const withoutRange = await get(`/public/campaigns/${campaign.id}/analytics/`);
    expect(withoutRange.body.analytics).toEqual({
      ...scriptedFields,
      daily_metrics: [day('23 Nov', { emails_sent: 4, replies: 1 }), day('24 Nov', { invites_sent: 3, invites_accepted: 1 }), day('25 Nov', { replies: 1, interested: 1 })],
    });
    expect(withoutRange.body.pipeline).toEqual(response.body.pipeline);
  });

  it('campaign analytics over one day: contacted and replied count first contacts and first replies in it', async () => {
    const response = await get(`/public/campaigns/${campaign.id}/analytics/?start_date=2026-11-25&end_date=2026-11-25`);
    expect(response.body.analytics).toEqual({
      ...scriptedFields,
      amount_of_emails_sent: 0,
      amount_of_invites_sent: 0,
      amount_of_invites_accepted: 0,
      amount_of_prospects_contacted: 0,
      amount_of_replies: 1,
      amount_of_interested: 1,
      // ann alone: 50-52 hours after the email she answers.
      average_reply_time: '2 days',
      daily_metrics: [day('25 Nov', { replies: 1, interested: 1 })],
    });
    const empty = await get(`/public/campaigns/${campaign.id}/analytics/?start_date=2026-12-01&end_date=2026-12-02`);
    expect(empty.body.analytics).toEqual({ ...idleFields, amount_of_prospects: 4, daily_metrics: [day('01 Dec'), day('02 Dec')] });
    // A/B, pipeline and per-step metrics are all-time whatever the range.
    expect(empty.body.pipeline).toEqual({ leads_contacted: 4, replied: 2, interested: 1, meeting_scheduled: 1 });
  });

  it('a campaign without activity: zeros, N/A, no A/B test for a step without a B text', async () => {
    const response = await get(`/public/campaigns/${idle.id}/analytics/`);
    expect(response.body).toEqual({
      success: true,
      analytics: { ...idleFields, daily_metrics: [] },
      ab_testing: { tests: [] },
      pipeline: { leads_contacted: 0, replied: 0, interested: 0, meeting_scheduled: 0 },
      metrics_per_step: { [idle.stepIds[0] as number]: { emails_sent: 0, replies: 0, reply_rate: 0 } },
    });
  });

  it('account analytics: all-time, over UTC days, and each filter and their combination', async () => {
    expect((await get('/public/analytics/')).body).toEqual({ success: true, analytics: allTime });
    // UTC days: ben's INTERESTED (23:30Z) is on 24 Nov here.
    expect((await get('/public/analytics/?start_date=2026-11-24&end_date=2026-11-25')).body.analytics).toEqual(
      account({
        total_invites_sent: 3,
        total_invites_accepted: 1,
        total_replies: 1,
        total_interested: 1,
        invite_acceptance_rate: 33.33,
        daily_metrics: [day('24 Nov', { invites_sent: 3, invites_accepted: 1, interested: 1 }), day('25 Nov', { replies: 1 })],
      }),
    );
    expect((await get('/public/analytics/?start_date=2027-01-01&end_date=2027-01-01')).body.analytics).toEqual(account({ daily_metrics: [day('01 Jan')] }));
    const { mailbox, network } = world;
    expect((await get(`/public/analytics/?sender_accounts=${mailbox}`)).body.analytics).toEqual(account({ total_emails_sent: 4, total_replies: 2, reply_rate: 50 }));
    expect((await get(`/public/analytics/?sender_accounts=${network}`)).body.analytics).toEqual(
      account({ total_invites_sent: 3, total_invites_accepted: 1, total_interested: 1, invite_acceptance_rate: 33.33 }),
    );
    expect((await get(`/public/analytics/?sender_accounts=${mailbox}&sender_accounts=${network}`)).body.analytics).toEqual(allTime);
    expect((await get(`/public/analytics/?campaigns=${idle.id}`)).body.analytics).toEqual(account({ total_prospects: 2 }));
    expect((await get(`/public/analytics/?campaigns=${campaign.id}`)).body.analytics).toEqual({ ...allTime, total_prospects: 4 });
    const status = (await get(`/public/campaigns/${campaign.id}/`)).body.campaign as { status: string };
    expect(status.status).toBe('COMPLETED');
    expect((await get('/public/analytics/?campaign_statuses=DRAFT')).body.analytics).toEqual(account({ total_prospects: 2 }));
    expect((await get('/public/analytics/?campaign_statuses=completed,DRAFT')).body.analytics).toEqual(allTime);
    expect((await get('/public/analytics/?campaign_statuses=ACTIVE')).body.analytics).toEqual(account({ total_prospects: 0 }));
    expect(
      (await get(`/public/analytics/?campaigns=${idle.id}&campaigns=${campaign.id}&campaign_statuses=COMPLETED&sender_accounts=${network},${mailbox}&start_date=2026-11-23&end_date=2026-11-23`)).body
        .analytics,
    ).toEqual(account({ total_prospects: 4, total_emails_sent: 4, total_replies: 1, reply_rate: 25, daily_metrics: [day('23 Nov', { emails_sent: 4, replies: 1 })] }));
    expect((await get(`/public/analytics/?campaigns=${campaign.id},${idle.id}&campaign_statuses=DRAFT&sender_accounts=${network}`)).body.analytics).toEqual(
      account({ total_prospects: 2 }),
    );
  });

  it('a replayed send, acceptance, reply or status counts once', async () => {
    const log = new DynamoOutcomeLog(world.stack.db, world.stack.tableName, clock);
    for (const item of await outcomesOf(world.stack, campaign.id)) {
      const { pk, sk, entityType, ...outcome } = item;
      await log.record(outcome as unknown as ActionOutcome);
    }
    await reply('cat@c.example', 'an_cat_1');
    await setStatus(dan, 'MEETING_SCHEDULED');
    expect((await get('/public/analytics/')).body.analytics).toEqual(allTime);
    expect((await get(`/public/campaigns/${campaign.id}/analytics/`)).body.pipeline).toEqual({ leads_contacted: 4, replied: 2, interested: 1, meeting_scheduled: 1 });
  });

  it('the dashboard: the current workspace, ALL, by key or session; 403 for a workspace not linked; 400 for a bad selector', async () => {
    const expected = {
      campaigns: [
        { id: idle.id, name: 'Idle', status: 'DRAFT', workspace_id: world.ws.workspaceId, analytics: idleFields },
        { id: campaign.id, name: 'Scripted', status: 'COMPLETED', workspace_id: world.ws.workspaceId, analytics: scriptedFields },
      ],
    };
    const token = world.ws.user?.token as string;
    expect((await get('/dashboard/campaign-analytics/')).body).toEqual(expected);
    expect((await get('/dashboard/campaign-analytics/', { token })).body).toEqual(expected);
    expect((await get('/dashboard/campaign-analytics/?workspace_id=ALL', { token })).body).toEqual(expected);
    expect((await get(`/dashboard/campaign-analytics/?workspace_id=${world.ws.workspaceId}`)).body).toEqual(expected);
    for (const query of [`?workspace_id=${world.other.workspaceId}`, '?workspace_id=999999999']) {
      const refused = await get(`/dashboard/campaign-analytics/${query}`);
      expect(refused.status, query).toBe(403);
      expect(refused.body).toEqual({ error: 'Access denied' });
    }
    const bad = await get('/dashboard/campaign-analytics/?workspace_id=mine');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'workspace_id must be a workspace id or ALL' });
  });

  it('another workspace sees none of it', async () => {
    const other = { apiKey: world.other.key };
    const missing = await get(`/public/campaigns/${campaign.id}/analytics/`, other);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Campaign not found' });
    expect((await get(`/public/analytics/?campaigns=${campaign.id}`, other)).body.analytics).toEqual(account({ total_prospects: 0 }));
    expect((await get('/public/analytics/', other)).body.analytics).toEqual(account({ total_prospects: 0 }));
    expect((await get('/dashboard/campaign-analytics/', other)).body).toEqual({ campaigns: [] });
  });

  it('answers bad input with 400 naming the parameter, and unknown campaigns with 404', async () => {
    const cases: [string, string][] = [
      ['?start_date=2026-11-23', 'start_date and end_date must be given together'],
      ['?end_date=2026-11-23', 'start_date and end_date must be given together'],
      ['?start_date=23-11-2026&end_date=2026-11-23', 'start_date must be a date as YYYY-MM-DD'],
      ['?start_date=2026-02-30&end_date=2026-03-01', 'start_date must be a date as YYYY-MM-DD'],
      ['?start_date=2026-11-23&end_date=tomorrow', 'end_date must be a date as YYYY-MM-DD'],
      ['?start_date=2026-11-23&end_date=2026-11-22', 'end_date must not be before start_date'],
      ['?start_date=2025-01-01&end_date=2026-01-02', 'A date range covers at most 366 days'],
      // An empty parameter counts as not given.
      ['?start_date=2026-11-23&end_date=', 'start_date and end_date must be given together'],
    ];
    for (const path of [`/public/campaigns/${campaign.id}/analytics/`, '/public/analytics/']) {
      for (const [query, error] of cases) {
        const response = await get(`${path}${query}`);
        expect(response.status, `${path}${query}`).toBe(400);
        expect(response.body, `${path}${query}`).toEqual({ error });
      }
    }
    // Both empty: all-time, as without them; given twice, the last value counts.
    for (const path of [`/public/campaigns/${campaign.id}/analytics/`, '/public/analytics/']) {
      expect((await get(`${path}?start_date=&end_date=`)).body, path).toEqual((await get(path)).body);
      expect((await get(`${path}?start_date=2024-01-01&start_date=2024-03-01&end_date=2024-03-02`)).body, path).toEqual(
        (await get(`${path}?start_date=2024-03-01&end_date=2024-03-02`)).body,
      );
    }
    const leapYear = await get(`/public/campaigns/${campaign.id}/analytics/?start_date=2024-01-01&end_date=2024-12-31`);
    expect(leapYear.status).toBe(200);
    expect((leapYear.body.analytics as { daily_metrics: unknown[] }).daily_metrics).toHaveLength(366);
    for (const [query, error] of [
      ['?sender_accounts=abc', 'sender_accounts must be a list of ids'],
      ['?campaigns=1,x', 'campaigns must be a list of ids'],
      ['?campaigns=0', 'campaigns must be a list of ids'],
      ['?sender_accounts=5,0', 'sender_accounts must be a list of ids'],
      ['?campaigns=9007199254740993', 'campaigns must be a list of ids'],
      ['?campaign_statuses=DONE', 'campaign_statuses must be among DRAFT, ACTIVE, PAUSED, COMPLETED, ARCHIVED'],
    ] as const) {
      const response = await get(`/public/analytics/${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body).toEqual({ error });
    }
    // An empty entry of a repeated list parameter is none, as an empty parameter is not given.
    for (const [withEmpty, without] of [
      [`?campaigns=${campaign.id}&campaigns=`, `?campaigns=${campaign.id}`],
      ['?campaign_statuses=&campaign_statuses=ACTIVE', '?campaign_statuses=ACTIVE'],
      ['?sender_accounts=,', ''],
    ]) {
      const answer = await get(`/public/analytics/${withEmpty}`);
      expect([answer.status, answer.body], withEmpty).toEqual([200, (await get(`/public/analytics/${without}`)).body]);
    }
    for (const id of ['999999999', 'abc']) {
      const response = await get(`/public/campaigns/${id}/analytics/`);
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual({ error: 'Campaign not found' });
    }
  });
});
