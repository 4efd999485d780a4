import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignKey } from '../../../shared/db/keys';
import { ManualClock } from '../../../shared/time/clock';
import {
  type EngineWorld,
  actionsOf,
  activate,
  advance,
  campaignStatus,
  campaignWith,
  engineWorld,
  extraAccount,
  outcomesOf,
  play,
  prospectStatuses,
  prospectsIn,
  sandboxSent,
} from './helpers';
import { createList, importLeads, person } from '../leads/helpers';

/** Pause and resume, cancelling on moves and archiving, quota pauses. */
describe('the engine and the campaign lifecycle', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  const emailsWithSubject = async (subject: string) => (await sandboxSent(world.stack)).filter((item) => item.kind === 'email' && item.subject === subject).map((item) => item.at);
  const post = (path: string) => world.stack.call('POST', path, { apiKey: world.ws.key });

  it('stops sending at once when paused and sends what came due when resumed', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Pause', [
      { step_type: 'EMAIL', subject_line: 'Pause one' },
      { step_type: 'EMAIL', subject_line: 'Pause two', delay_in_hours: 2 },
    ]);
    const [id] = await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    expect(await emailsWithSubject('Pause one')).toEqual(['2026-11-23T09:00:00.000Z']);
    expect((await post(`/public/campaigns/${campaign.id}/pause/`)).status).toBe(200);
    await advance(stack, clock, 3);
    expect(await emailsWithSubject('Pause two')).toEqual([]);
    expect(await actionsOf(stack, campaign.id)).toEqual([expect.objectContaining({ parked: 'CAMPAIGN_NOT_ACTIVE', dueAt: null })]);
    expect((await post(`/public/campaigns/${campaign.id}/resume/`)).status).toBe(200);
    await play(stack);
    expect(await emailsWithSubject('Pause two')).toEqual(['2026-11-23T12:00:00.000Z']);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [id as number]: { status: 'FINISHED', last_error: null } });
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });

  it('schedules the prospects waiting in a COMPLETED campaign once a move with activate makes it ACTIVE again', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Reopen', [{ step_type: 'EMAIL', subject_line: 'Reopen one' }]);
    const [first] = await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
    // Added without activate: it waits, saying why, and the campaign stays COMPLETED.
    const [waiting] = await prospectsIn(world, campaign.id, [{}]);
    await play(stack);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [first as number]: { status: 'FINISHED', last_error: null },
      [waiting as number]: { status: 'IN_REVIEW', last_error: 'not scheduled: added without activate; activate the campaign (or add it with activate: true) to start its sequence' },
    });
    // Added with activate: the campaign is ACTIVE again, and the one waiting goes too.
    const [added] = await prospectsIn(world, campaign.id, [{}], { activate: true });
    await play(stack);
    const now = clock.now().toISOString();
    expect(await emailsWithSubject('Reopen one')).toEqual([now, now, now]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [first as number]: { status: 'FINISHED', last_error: null },
      [waiting as number]: { status: 'FINISHED', last_error: null },
      [added as number]: { status: 'FINISHED', last_error: null },
    });
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });

  it('shows the prospects an activation is scheduling as being scheduled, not as added without activate', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Sweeping', [
      { step_type: 'EMAIL', subject_line: 'Sweeping one' },
      { step_type: 'EMAIL', subject_line: 'Sweeping two', delay_in_hours: 24 },
    ]);
    const [before] = await prospectsIn(world, campaign.id, [{}]);
    const page = async () =>
      (
        await stack.call<{ prospects: { id: number; next_action_at: string | null; last_error: string | null }[] }>('GET', `/public/campaigns/${campaign.id}/prospects/`, {
          apiKey: world.ws.key,
        })
      ).body.prospects.map(({ id, next_action_at, last_error }) => ({ id, next_action_at, last_error }));
    const sweeping = 'being scheduled: the campaign was activated; its next action is set in a moment';
    const notActivated = 'not scheduled: added without activate; activate the campaign (or add it with activate: true) to start its sequence';
    // Activated; its sweep (the campaign-scheduling queue) has not run yet.
    clock.advance(1_000);
    expect((await post(`/public/campaigns/${campaign.id}/activate/`)).status).toBe(200);
    expect(await page()).toEqual([{ id: before, next_action_at: null, last_error: sweeping }]);
    // One added without activate after the activation waits for the next one, and says so.
    clock.advance(1_000);
    const [after] = await prospectsIn(world, campaign.id, [{}]);
    expect(await page()).toEqual([
      { id: before, next_action_at: null, last_error: sweeping },
      { id: after, next_action_at: null, last_error: notActivated },
    ]);
    await stack.drain('campaign-scheduling');
    const scheduledAt = clock.now().toISOString();
    expect(await page()).toEqual([
      { id: before, next_action_at: scheduledAt, last_error: null },
      // The sweep took it too: it was waiting when the sweep read the campaign's waiting prospects.
      { id: after, next_action_at: scheduledAt, last_error: null },
    ]);
    // An ACTIVE campaign activated again: one added since without activate is being scheduled.
    await play(stack);
    expect(await campaignStatus(world, campaign.id)).toBe('ACTIVE');
    clock.advance(1_000);
    const [later] = await prospectsIn(world, campaign.id, [{}]);
    expect((await page()).find((p) => p.id === later)).toEqual({ id: later, next_action_at: null, last_error: notActivated });
    clock.advance(1_000);
    expect((await post(`/public/campaigns/${campaign.id}/activate/`)).status).toBe(200);
    expect((await page()).find((p) => p.id === later)).toEqual({ id: later, next_action_at: null, last_error: sweeping });
    // A sweep that has not reached it 15 minutes after the activation will not (its message was
    // lost): the page says what to do again.
    clock.advance(15 * 60_000 - 1);
    expect((await page()).find((p) => p.id === later)?.last_error).toBe(sweeping);
    clock.advance(1);
    expect((await page()).find((p) => p.id === later)?.last_error).toBe(notActivated);
    await play(stack);
    expect(await emailsWithSubject('Sweeping one')).toHaveLength(3);
  });

  it('completes a campaign whose last unfinished prospect is removed, moved to another campaign or archived', async () => {
    const { stack } = world;
    const finished = { status: 'FINISHED', last_error: null };
    // One email a day: the second prospect of each campaign waits for tomorrow, and says why.
    const waiting = { status: 'IN_REVIEW', last_error: "the campaign's email_max_messages (1 a day) is reached for 2026-11-23: it goes on a later day" };
    const removedFrom = await campaignWith(world, 'Leave by removal', [{ step_type: 'EMAIL', subject_line: 'Leave one' }], { email_max_messages: 1 });
    // Which of the two goes first is the engine's choice: the test leaves with the one that waits.
    const sentAndWaiting = async (campaignId: number) => {
      const statuses = await prospectStatuses(world, campaignId);
      expect(Object.values(statuses).sort((a, b) => a.status.localeCompare(b.status))).toEqual([finished, waiting]);
      return Number(Object.keys(statuses).find((id) => statuses[Number(id)]?.status === 'IN_REVIEW'));
    };
    await prospectsIn(world, removedFrom.id, [{}, {}]);
    await activate(world, removedFrom.id);
    const removed = await sentAndWaiting(removedFrom.id);
    expect(await campaignStatus(world, removedFrom.id)).toBe('ACTIVE');
    const removal = await stack.call('POST', `/public/campaigns/${removedFrom.id}/remove-prospects/`, { apiKey: world.ws.key, body: { prospect_ids: [removed] } });
    expect(removal.body).toEqual({ success: true, count: 1 });
    expect(await campaignStatus(world, removedFrom.id)).toBe('COMPLETED');

    const movedFrom = await campaignWith(world, 'Leave by move', [{ step_type: 'EMAIL', subject_line: 'Leave two' }], { email_max_messages: 1 });
    await prospectsIn(world, movedFrom.id, [{}, {}]);
    await activate(world, movedFrom.id);
    const moved = await sentAndWaiting(movedFrom.id);
    const target = await campaignWith(world, 'Leave target', [{ step_type: 'EMAIL', subject_line: 'Leave three' }]);
    const lead = await stack.call<{ prospect: Record<string, unknown> }>('GET', `/public/prospects/${moved}/`, { apiKey: world.ws.key });
    const { first_name, last_name, network_profile_url } = lead.body.prospect;
    const imported = await stack.call('POST', `/public/campaigns/${target.id}/import/`, {
      apiKey: world.ws.key,
      body: { leads: [{ first_name, last_name, network_profile_url }] },
    });
    expect(imported.body).toMatchObject({ success: true, count: 1, created: 0, updated: 1 });
    expect(await campaignStatus(world, movedFrom.id)).toBe('COMPLETED');

    // Archived by delete-leads: it leaves its lists and its campaign.
    const archivedFrom = await campaignWith(world, 'Leave by archive', [{ step_type: 'EMAIL', subject_line: 'Leave five' }], { email_max_messages: 1 });
    const list = await createList(stack, world.ws, 'Leave by archive');
    const inList = await importLeads(stack, world.ws, list.id, {
      leads: [person(90_001, { email: 'leave90001@example.com' }), person(90_002, { email: 'leave90002@example.com' })],
    });
    const added = await stack.call('POST', `/public/lead-lists/${list.id}/add-to-campaign/`, {
      apiKey: world.ws.key,
      body: { campaign: archivedFrom.id, prospect_ids: inList.leads.map((lead) => lead.id) },
    });
    expect(added.body).toMatchObject({ success: true, count: 2 });
    await activate(world, archivedFrom.id);
    const archived = await sentAndWaiting(archivedFrom.id);
    const deleted = await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: world.ws.key, body: { prospect_ids: [archived] } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await campaignStatus(world, archivedFrom.id)).toBe('COMPLETED');

    // A campaign left without any prospect is not complete: it never ran them.
    const emptied = await campaignWith(world, 'Leave empty', [{ step_type: 'EMAIL', subject_line: 'Leave four' }]);
    const [only] = await prospectsIn(world, emptied.id, [{}]);
    expect((await post(`/public/campaigns/${emptied.id}/activate/`)).status).toBe(200);
    await stack.call('POST', `/public/campaigns/${emptied.id}/remove-prospects/`, { apiKey: world.ws.key, body: { prospect_ids: [only] } });
    expect(await campaignStatus(world, emptied.id)).toBe('ACTIVE');
  });

  it('completes again at the end of the activation’s sweep when every prospect had finished: a COMPLETED campaign activated, a resume after the last unfinished one left while paused', async () => {
    const { stack } = world;
    const finished = { status: 'FINISHED', last_error: null };
    const done = await campaignWith(world, 'Activated when done', [{ step_type: 'EMAIL', subject_line: 'Done once' }]);
    const [first] = await prospectsIn(world, done.id, [{}]);
    await activate(world, done.id);
    expect(await prospectStatuses(world, done.id)).toEqual({ [first as number]: finished });
    expect(await campaignStatus(world, done.id)).toBe('COMPLETED');
    // activate answers ACTIVE; its sweep finds nobody to run and completes it again.
    const again = await stack.call<{ campaign: { status: string } }>('POST', `/public/campaigns/${done.id}/activate/`, { apiKey: world.ws.key });
    expect(again.body.campaign.status).toBe('ACTIVE');
    await play(stack);
    expect(await campaignStatus(world, done.id)).toBe('COMPLETED');

    // One email a day: the second prospect waits; removed while paused, the resume completes it.
    const paused = await campaignWith(world, 'Resumed when done', [{ step_type: 'EMAIL', subject_line: 'Done twice' }], { email_max_messages: 1 });
    const ids = await prospectsIn(world, paused.id, [{}, {}]);
    await activate(world, paused.id);
    const statuses = await prospectStatuses(world, paused.id);
    const waiting = ids.find((id) => statuses[id]?.status === 'IN_REVIEW') as number;
    expect((await post(`/public/campaigns/${paused.id}/pause/`)).status).toBe(200);
    const removal = await stack.call('POST', `/public/campaigns/${paused.id}/remove-prospects/`, { apiKey: world.ws.key, body: { prospect_ids: [waiting] } });
    expect(removal.body).toEqual({ success: true, count: 1 });
    expect(await campaignStatus(world, paused.id)).toBe('PAUSED');
    expect((await post(`/public/campaigns/${paused.id}/resume/`)).status).toBe(200);
    await play(stack);
    expect(await campaignStatus(world, paused.id)).toBe('COMPLETED');
  });

  it('takes a deleted account out of account_ids; one still listed (its detach failed) is dropped when sent back as read; an id never attached is refused', async () => {
    const { stack } = world;
    const spare = await extraAccount(world, 'MAIL', 'deleted-while-attached');
    const campaign = await campaignWith(world, 'Deleted account', [{ step_type: 'EMAIL', subject_line: 'Hi' }], { account_ids: [world.mailbox, spare] });
    expect((await stack.call('DELETE', `/public/accounts/${spare}/`, { apiKey: world.ws.key })).status).toBe(200);
    const read = await stack.call<{ campaign: { account_ids: number[] } }>('GET', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key });
    expect(read.body.campaign.account_ids).toEqual([world.mailbox]);

    // As if the detach had failed (the campaign changing three times meanwhile): still listed.
    await stack.db.send(
      new UpdateCommand({ TableName: stack.tableName, Key: campaignKey(campaign.id), UpdateExpression: 'SET accountIds = :ids', ExpressionAttributeValues: { ':ids': [world.mailbox, spare] } }),
    );
    const listed = await stack.call<{ campaign: { account_ids: number[] } }>('GET', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key });
    expect(listed.body.campaign.account_ids).toEqual([world.mailbox, spare]);
    const sentBack = await stack.call<{ campaign: { account_ids: number[] } }>('PATCH', `/public/campaigns/${campaign.id}/`, {
      apiKey: world.ws.key,
      body: { account_ids: listed.body.campaign.account_ids },
    });
    expect(sentBack.status, sentBack.text).toBe(200);
    expect(sentBack.body.campaign.account_ids).toEqual([world.mailbox]);
    const again = await stack.call('PATCH', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key, body: { account_ids: [world.mailbox, spare] } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: `account_ids: account ${spare} not found in this workspace` });
  });

  it('cancels the pending actions of a prospect removed from the campaign and of an archived campaign', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Cancel', [
      { step_type: 'EMAIL', subject_line: 'Cancel one' },
      { step_type: 'EMAIL', subject_line: 'Cancel two', delay_in_hours: 1 },
    ]);
    const [removed, kept] = await prospectsIn(world, campaign.id, [{}, {}]);
    await activate(world, campaign.id);
    expect((await emailsWithSubject('Cancel one')).length).toBe(2);
    const removal = await stack.call('POST', `/public/campaigns/${campaign.id}/remove-prospects/`, { apiKey: world.ws.key, body: { prospect_ids: [removed] } });
    expect(removal.status, removal.text).toBe(200);
    expect((await actionsOf(stack, campaign.id)).map((a) => a.prospectId)).toEqual([kept]);
    expect((await post(`/public/campaigns/${campaign.id}/archive/`)).status).toBe(200);
    await advance(stack, clock, 2);
    expect(await emailsWithSubject('Cancel two')).toEqual([]);
    expect(await actionsOf(stack, campaign.id)).toEqual([]);
  });

  it('pauses an account at its provider quota until the next UTC day', async () => {
    const { stack } = world;
    clock.set('2026-11-26T09:00:00.000Z'); // Thursday
    const campaign = await campaignWith(world, 'Quota', [{ step_type: 'NETWORK_INVITE', message_template: 'Quota invite' }]);
    await prospectsIn(world, campaign.id, [{}]);
    await stack.provider.control.addFault({ kind: 'error', type: 'errors/limit_exceeded', path: '/api/v1/users/invite', times: 1 });
    await activate(world, campaign.id);
    const accounts = await stack.call<{ accounts: { id: number; sending_paused: unknown }[] }>('GET', '/public/accounts/', { apiKey: world.ws.key });
    expect(accounts.body.accounts.find((a) => a.id === world.network)?.sending_paused).toEqual({
      reason: 'errors/limit_exceeded',
      until: '2026-11-27T00:00:00.000Z',
      at: '2026-11-26T09:00:00.000Z',
    });
    await advance(stack, clock, 6);
    expect((await sandboxSent(stack)).filter((item) => item.text === 'Quota invite')).toEqual([]);
    // Friday 09:00 local: the pause is over and the window open.
    await playAtFriday();
    expect((await sandboxSent(stack)).filter((item) => item.text === 'Quota invite').map((item) => item.at)).toEqual(['2026-11-27T08:00:00.000Z']);
    expect((await outcomesOf(stack, campaign.id)).map((o) => o.outcome)).toEqual(['SENT']);

    async function playAtFriday() {
      clock.set('2026-11-27T08:00:00.000Z');
      await play(stack);
    }
  });
});
