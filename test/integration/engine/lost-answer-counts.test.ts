import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOUND_AFTER_LOST_ANSWER, INVITATION_FOUND_AFTER_LOST_ANSWER } from '../../../shared/domain/engine/steps';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, activate, actionsOf, advance, campaignWith, engineWorld, extraAccount, outcomesOf, prospectsIn, sandboxSent } from './helpers';

/**
 * The daily limits of a send whose provider answer was lost: it may have gone out, so its counts
 * stay taken until a look shows it did not, and the look needs no count of its own
 * (docs/engine.md, "A timeout is ambiguous").
 */
describe('the counts of a network send whose answer was lost', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    // A short bound, so a call the sandbox never answers times out at once.
    world = await engineWorld(clock, { providerTimeoutMs: 300 });
  });
  afterAll(async () => world?.stack.stop());

  /** A network account of its own allowing one send of each network kind a day. */
  const accountOfOneADay = async (providerId: string) => {
    const id = await extraAccount(world, 'LINKEDIN', providerId);
    const limited = await world.stack.call('PATCH', `/public/accounts/${id}/`, { apiKey: world.ws.key, body: { daily_limits: { invitations: 1, network_messages: 1 } } });
    expect(limited.status, limited.text).toBe(200);
    return id;
  };
  /** A campaign of one step through that account, with one prospect of that slug. */
  const oneProspect = async (account: number, step: 'NETWORK_MESSAGE' | 'NETWORK_INVITE', name: string, slug: string, distance: 'FIRST_DEGREE' | 'SECOND_DEGREE') => {
    const campaign = await campaignWith(world, name, [{ step_type: step, message_template: `${name} {{first_name}}` }], { account_ids: [account] });
    const [prospectId] = await prospectsIn(world, campaign.id, [{ first_name: 'Lena', network_profile_url: `https://www.linkedin.com/in/${slug}` }]);
    await world.stack.provider.control.setProfile(slug, { network_distance: distance });
    return { campaign, prospectId: prospectId as number };
  };
  const sentThrough = async (providerId: string) => (await sandboxSent(world.stack)).filter((item) => item.accountId === providerId).map((item) => [item.kind, item.text, item.at]);

  it('holds the day’s only message for one that went out unanswered: another waits for the next day, and the look needs no count', async () => {
    const account = await accountOfOneADay('sbx-network-one-message');
    const lost = await oneProspect(account, 'NETWORK_MESSAGE', 'Held message', 'hella-held', 'FIRST_DEGREE');
    await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: 1 });
    await activate(world, lost.campaign.id);
    const other = await oneProspect(account, 'NETWORK_MESSAGE', 'Other message', 'otto-other', 'FIRST_DEGREE');
    await activate(world, other.campaign.id);
    // The retry a minute later finds it through the account at its limit.
    await advance(world.stack, clock, 1 / 60);
    expect(await sentThrough('sbx-network-one-message')).toEqual([['chat', 'Held message Lena', '2026-11-23T09:00:00.000Z']]);
    expect((await outcomesOf(world.stack, lost.campaign.id)).map((o) => [o.outcome, o.reason, o.at])).toEqual([['SENT', FOUND_AFTER_LOST_ANSWER, '2026-11-23T09:00:00.000Z']]);
    expect(await actionsOf(world.stack, other.campaign.id)).toEqual([expect.objectContaining({ dueAt: '2026-11-24T08:00:00.000Z', claim: null })]);
    // Tuesday, when the window opens (played at the end of the move, a minute late): the other one goes.
    await advance(world.stack, clock, 23);
    expect(await sentThrough('sbx-network-one-message')).toEqual([
      ['chat', 'Held message Lena', '2026-11-23T09:00:00.000Z'],
      ['chat', 'Other message Lena', '2026-11-24T08:01:00.000Z'],
    ]);
  });

  it('gives the counts back when the look shows it did not go out: the step is sent that day with counts of its own', async () => {
    // Tuesday 10:00 in Amsterdam.
    clock.set('2026-11-24T09:00:00.000Z');
    const account = await accountOfOneADay('sbx-network-one-invite');
    const { campaign } = await oneProspect(account, 'NETWORK_INVITE', 'Timed out invite', 'tina-timeout', 'SECOND_DEGREE');
    await world.stack.provider.control.addFault({ kind: 'timeout', method: 'POST', path: '/api/v1/users/invite', times: 1 });
    await activate(world, campaign.id);
    expect(await sentThrough('sbx-network-one-invite')).toEqual([]);
    await advance(world.stack, clock, 1 / 60);
    expect(await sentThrough('sbx-network-one-invite')).toEqual([['invitation', 'Timed out invite Lena', '2026-11-24T09:01:00.000Z']]);
    expect((await outcomesOf(world.stack, campaign.id)).map((o) => [o.outcome, o.reason])).toEqual([['SENT', null]]);
  });

  it('holds the day’s only invitation for one that went out unanswered, and records it found pending on the day it went out', async () => {
    clock.set('2026-11-25T09:00:00.000Z');
    const account = await accountOfOneADay('sbx-network-found-invite');
    const { campaign } = await oneProspect(account, 'NETWORK_INVITE', 'Unanswered invite', 'ulla-unanswered', 'SECOND_DEGREE');
    await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/users/invite', times: 1 });
    await activate(world, campaign.id);
    const other = await oneProspect(account, 'NETWORK_INVITE', 'Next invite', 'nina-next', 'SECOND_DEGREE');
    await activate(world, other.campaign.id);
    await advance(world.stack, clock, 1 / 60);
    expect(await sentThrough('sbx-network-found-invite')).toEqual([['invitation', 'Unanswered invite Lena', '2026-11-25T09:00:00.000Z']]);
    expect((await outcomesOf(world.stack, campaign.id)).map((o) => [o.outcome, o.reason, o.at])).toEqual([['SENT', INVITATION_FOUND_AFTER_LOST_ANSWER, '2026-11-25T09:00:00.000Z']]);
    // The day's one invitation is that one: the other prospect waits for Thursday.
    expect(await actionsOf(world.stack, other.campaign.id)).toEqual([expect.objectContaining({ dueAt: '2026-11-26T08:00:00.000Z' })]);
  });

  it('keeps the counts when a look is left claimed by a crash: it looks again, and the account stays at its limit', async () => {
    // Friday 10:00 in Amsterdam.
    clock.set('2026-11-27T09:00:00.000Z');
    const account = await accountOfOneADay('sbx-network-crashed-look');
    const lost = await oneProspect(account, 'NETWORK_MESSAGE', 'Crashed look', 'cleo-crashed', 'FIRST_DEGREE');
    await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: 1 });
    await activate(world, lost.campaign.id);
    // Its look, claimed a few minutes later (the retry held up), then the sender crashed.
    clock.set('2026-11-27T09:05:00.000Z');
    const [item] = (await actionsOf(world.stack, lost.campaign.id)) as [Record<string, unknown> & { version: number; answerLost: { counted: { accountDay: string; campaignDay: string } } }];
    const claim = { token: 'crashed-look', at: clock.now().toISOString(), accountId: account, kind: 'MESSAGE', ...item.answerLost.counted, text: 'Crashed look Lena', variant: 'A', lookOnly: true };
    await world.stack.db.send(new PutCommand({ TableName: world.stack.tableName, Item: { ...item, claim, version: item.version + 1 } }));
    // The crash rule: nothing was sent by a look, so it looks again (not from the claim's time, which
    // would miss the message and give its counts back), and finds it.
    await advance(world.stack, clock, 11 / 60);
    expect((await outcomesOf(world.stack, lost.campaign.id)).map((o) => [o.outcome, o.reason])).toEqual([['SENT', FOUND_AFTER_LOST_ANSWER]]);
    const other = await oneProspect(account, 'NETWORK_MESSAGE', 'After the crash', 'ari-after', 'FIRST_DEGREE');
    await activate(world, other.campaign.id);
    expect(await sentThrough('sbx-network-crashed-look')).toEqual([['chat', 'Crashed look Lena', '2026-11-27T09:00:00.000Z']]);
    // Monday, 09:00 in Amsterdam: the day's one message went.
    expect(await actionsOf(world.stack, other.campaign.id)).toEqual([expect.objectContaining({ dueAt: '2026-11-30T08:00:00.000Z' })]);
  });

  it('retries a look whose profile read fails, even with a 404, and finds the invitation: the sequence does not end', async () => {
    clock.set('2026-11-30T09:00:00.000Z');
    const account = await accountOfOneADay('sbx-network-failed-look');
    const { campaign, prospectId } = await oneProspect(account, 'NETWORK_INVITE', 'Failed look', 'fay-failed', 'SECOND_DEGREE');
    await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/users/invite', times: 1 });
    await activate(world, campaign.id);
    await world.stack.provider.control.addFault({ kind: 'status', status: 404, method: 'GET', path: '/api/v1/users/', times: 1 });
    await advance(world.stack, clock, 1 / 60);
    expect(await outcomesOf(world.stack, campaign.id)).toEqual([]);
    expect(await actionsOf(world.stack, campaign.id)).toEqual([expect.objectContaining({ prospectId, attempts: 2, dueAt: '2026-11-30T09:06:00.000Z' })]);
    await advance(world.stack, clock, 5 / 60);
    expect((await outcomesOf(world.stack, campaign.id)).map((o) => [o.outcome, o.reason])).toEqual([['SENT', INVITATION_FOUND_AFTER_LOST_ANSWER]]);
    expect(await sentThrough('sbx-network-failed-look')).toEqual([['invitation', 'Failed look Lena', '2026-11-30T09:00:00.000Z']]);
  });
});
