import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignProspectKey, companyKey, inboundLinkKey, padId } from '../../../shared/db/keys';
import { invitationLink } from '../../../shared/domain/inbox/inbound-router';
import { DynamoOutcomeLog } from '../../../shared/db/outcome-log';
import { toMessage } from '../../../shared/messaging/outreach-queue';
import { sendJsonMessages } from '../../../shared/messaging/sqs';
import { ManualClock } from '../../../shared/time/clock';
import {
  type EngineWorld,
  actionsOf,
  activate,
  advance,
  campaignStatus,
  campaignWith,
  claimedAndCrashed,
  engineWorld,
  extraAccount,
  outcomesOf,
  play,
  prospectStatuses,
  prospectsIn,
  sandboxSent,
  tick,
  withCondition,
} from './helpers';
import { campaignItems } from '../campaigns/helpers';

/**
 * How the engine sorts what the provider answers (the sandbox's fault API injects each error by
 * type), and exactly-once under a redelivered message and a crash after the claim.
 */
describe('provider answers, redelivery and crashes', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  const sentOfKind = async (kind: string) => (await sandboxSent(world.stack)).filter((item) => item.kind === kind);
  const crashAfterClaim = (campaignId: number, prospectId: number, kind: 'EMAIL' | 'INVITE', accountId: number) =>
    claimedAndCrashed(world.stack, clock, campaignId, prospectId, kind, accountId);
  /** The outcome record a sender wrote for a crashed invitation's claim before it crashed. */
  const recordInvitation = (pending: Awaited<ReturnType<typeof crashAfterClaim>>, campaign: { id: number; stepIds: number[] }, outcome: 'SENT' | 'SKIPPED', reason: string | null) =>
    new DynamoOutcomeLog(world.stack.db, world.stack.tableName, clock).record({
      workspaceId: pending.workspaceId,
      campaignId: campaign.id,
      prospectId: pending.prospectId,
      stint: pending.stint,
      nodeId: campaign.stepIds[0] as number,
      stepType: 'NETWORK_INVITE',
      outcome,
      reason,
      accountId: world.network,
      variant: 'A',
      at: pending.claim.at,
    });
  const outcomeSummary = async (campaignId: number) => (await outcomesOf(world.stack, campaignId)).map((o) => `${o.stepType} ${o.outcome}${o.reason ? ` (${o.reason})` : ''}`);

  it('retries a transient failure after a backoff and sends once', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Transient', [{ step_type: 'EMAIL', subject_line: 'Transient' }]);
    const [id] = await prospectsIn(world, campaign.id, [{}]);
    await stack.provider.control.addFault({ kind: 'status', status: 503, method: 'POST', path: '/api/v1/emails', times: 1 });
    await activate(world, campaign.id);
    expect((await sentOfKind('email')).filter((e) => e.subject === 'Transient')).toEqual([]);
    expect(await actionsOf(stack, campaign.id)).toEqual([expect.objectContaining({ attempts: 1, dueAt: '2026-11-23T09:01:00.000Z', claim: null })]);
    // The prospects page shows the retry: the step, when it is tried again, and why it failed.
    const page = await stack.call<{ prospects: Record<string, unknown>[] }>('GET', `/public/campaigns/${campaign.id}/prospects/`, { apiKey: world.ws.key });
    expect(page.body.prospects.map(({ status, current_step_id, next_action_at, last_error }) => ({ status, current_step_id, next_action_at, last_error }))).toEqual([
      { status: 'IN_REVIEW', current_step_id: campaign.stepIds[0], next_action_at: '2026-11-23T09:01:00.000Z', last_error: 'errors/provider_error' },
    ]);
    await advance(stack, clock, 1 / 60);
    expect((await sentOfKind('email')).filter((e) => e.subject === 'Transient').map((e) => e.at)).toEqual(['2026-11-23T09:01:00.000Z']);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [id as number]: { status: 'FINISHED', last_error: null } });
  });

  it('ends the sequence of a prospect the provider refuses, and bounces a hard bounce', async () => {
    const { stack } = world;
    const invite = await campaignWith(world, 'Refused', [{ step_type: 'NETWORK_INVITE' }, { step_type: 'EMAIL', delay_in_hours: 1 }]);
    const [refused] = await prospectsIn(world, invite.id, [{}]);
    await stack.provider.control.addFault({ kind: 'error', type: 'errors/invalid_recipient', path: '/api/v1/users/invite', times: 1 });
    await activate(world, invite.id);
    expect(await prospectStatuses(world, invite.id)).toEqual({ [refused as number]: { status: 'FINISHED', last_error: 'errors/invalid_recipient' } });
    expect(await outcomeSummary(invite.id)).toEqual(['NETWORK_INVITE FAILED (errors/invalid_recipient)']);

    const email = await campaignWith(world, 'Bounce', [{ step_type: 'EMAIL' }, { step_type: 'NETWORK_INVITE', delay_in_hours: 1 }]);
    const [bounced] = await prospectsIn(world, email.id, [{}]);
    await stack.provider.control.addFault({ kind: 'error', type: 'errors/recipient_rejected', path: '/api/v1/emails', times: 1 });
    await activate(world, email.id);
    await advance(stack, clock, 2);
    expect(await prospectStatuses(world, email.id)).toEqual({ [bounced as number]: { status: 'BOUNCED', last_error: 'errors/recipient_rejected' } });
    expect(await outcomeSummary(email.id)).toEqual(['EMAIL FAILED (errors/recipient_rejected)']);
    expect(await actionsOf(stack, email.id)).toEqual([]);
  });

  it('skips the invitation of a prospect already connected, and a message to one who is not', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Connections', [
      { step_type: 'NETWORK_INVITE' },
      { step_type: 'NETWORK_MESSAGE', message_template: 'Thanks {{first_name}}', delay_in_hours: 1 },
    ]);
    const [connected, stranger] = await prospectsIn(world, campaign.id, [
      { first_name: 'Connie', network_profile_url: 'https://www.linkedin.com/in/connie-connected' },
      { first_name: 'Stan', network_profile_url: 'https://www.linkedin.com/in/stan-stranger' },
    ]);
    await stack.provider.control.setProfile('connie-connected', { network_distance: 'FIRST_DEGREE' });
    await stack.provider.control.setProfile('stan-stranger', { network_distance: 'THIRD_DEGREE' });
    await activate(world, campaign.id);
    await advance(stack, clock, 1);
    const outcomes = await outcomesOf(stack, campaign.id);
    const byProspect = (id: number | undefined) => outcomes.filter((o) => o.prospectId === id).map((o) => `${o.stepType} ${o.outcome}${o.reason ? ` (${o.reason})` : ''}`);
    expect(byProspect(connected)).toEqual(['NETWORK_INVITE SKIPPED (already connected)', 'NETWORK_MESSAGE SENT']);
    // Stan's invitation is pending (never accepted), so the message cannot reach him.
    expect(byProspect(stranger)).toEqual(['NETWORK_INVITE SENT', 'NETWORK_MESSAGE SKIPPED (not a first-degree connection)']);
    expect((await sentOfKind('chat')).filter((c) => c.text === 'Thanks Connie').length).toBe(1);
  });

  it("keeps the account an invitation found the prospect connected through as the prospect's, so a later message waits for it", async () => {
    clock.set('2026-11-30T09:00:00.000Z'); // Monday, 10:00 in Amsterdam
    const { stack } = world;
    const campaign = await campaignWith(world, 'Connected through one', [
      { step_type: 'NETWORK_INVITE', message_template: 'CT invite' },
      { step_type: 'NETWORK_MESSAGE', message_template: 'CT thanks {{first_name}}', delay_in_hours: 24 },
    ]);
    const ids = await prospectsIn(world, campaign.id, [
      { first_name: 'Cara', network_profile_url: 'https://www.linkedin.com/in/ct-cara' },
      { first_name: 'Carl', network_profile_url: 'https://www.linkedin.com/in/ct-carl' },
    ]);
    // Connected to the workspace's first network account only.
    for (const slug of ['ct-cara', 'ct-carl']) {
      await stack.provider.control.setProfile(slug, { network_distance: 'THIRD_DEGREE' });
      await stack.provider.control.setProfile(slug, { network_distance: 'FIRST_DEGREE', account_id: 'sbx-network-dev' });
    }
    await activate(world, campaign.id);
    await advance(stack, clock, 1);
    expect(await outcomeSummary(campaign.id)).toEqual(['NETWORK_INVITE SKIPPED (already connected)', 'NETWORK_INVITE SKIPPED (already connected)']);

    // A second network account joins the campaign, and the first one may send no message today.
    const second = await extraAccount(world, 'LINKEDIN', 'sbx-network-ct');
    const api = (method: string, path: string, body: unknown) => stack.call(method, path, { apiKey: world.ws.key, body });
    expect((await api('PATCH', `/public/campaigns/${campaign.id}/`, { account_ids: [world.mailbox, world.network, second] })).status).toBe(200);
    expect((await api('PATCH', `/public/accounts/${world.network}/`, { daily_limits: { network_messages: 0 } })).status).toBe(200);
    await advance(stack, clock, 24.5);
    // The messages wait for the account the prospects are connected through, never sent through the other.
    expect(await outcomeSummary(campaign.id)).toEqual(['NETWORK_INVITE SKIPPED (already connected)', 'NETWORK_INVITE SKIPPED (already connected)']);
    expect((await sentOfKind('chat')).filter((chat) => chat.text.startsWith('CT thanks'))).toEqual([]);

    expect((await api('PATCH', `/public/accounts/${world.network}/`, { daily_limits: { network_messages: 50 } })).status).toBe(200);
    await advance(stack, clock, 1);
    const chats = (await sentOfKind('chat')).filter((chat) => chat.text.startsWith('CT thanks'));
    expect(chats.map((chat) => [chat.text, chat.accountId]).sort()).toEqual([
      ['CT thanks Cara', 'sbx-network-dev'],
      ['CT thanks Carl', 'sbx-network-dev'],
    ]);
    const statuses = await prospectStatuses(world, campaign.id);
    expect(ids.map((id) => statuses[id]?.status)).toEqual(['FINISHED', 'FINISHED']);
  });

  it('counts an invitation the provider says is already pending as sent', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Pending', [{ step_type: 'NETWORK_INVITE' }]);
    await prospectsIn(world, campaign.id, [{}]);
    await stack.provider.control.addFault({ kind: 'error', type: 'errors/already_invited_recently', path: '/api/v1/users/invite', times: 1 });
    await activate(world, campaign.id);
    expect(await outcomeSummary(campaign.id)).toEqual(['NETWORK_INVITE SENT (an invitation was already pending)']);
  });

  it('pauses an account the provider disconnected, shows it, and goes on once it is back', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Disconnected', [{ step_type: 'EMAIL', subject_line: 'After reconnect' }]);
    await prospectsIn(world, campaign.id, [{}]);
    await stack.provider.control.addFault({ kind: 'error', type: 'errors/disconnected_account', path: '/api/v1/emails', times: 1 });
    await activate(world, campaign.id);
    const accounts = await stack.call<{ accounts: { id: number; sending_paused: unknown }[] }>('GET', '/public/accounts/', { apiKey: world.ws.key });
    expect(accounts.body.accounts.find((a) => a.id === world.mailbox)?.sending_paused).toEqual({
      reason: 'errors/disconnected_account',
      until: null,
      at: clock.now().toISOString(),
    });
    await advance(stack, clock, 2);
    expect((await sentOfKind('email')).filter((e) => e.subject === 'After reconnect')).toEqual([]);
    // The provider reports the account healthy again (account-status webhook): the pause ends.
    await stack.provider.control.setAccountStatus('sbx-mailbox-dev', 'OK');
    await advance(stack, clock, 1);
    expect((await sentOfKind('email')).filter((e) => e.subject === 'After reconnect').map((e) => e.at)).toEqual([clock.now().toISOString()]);
  });

  it('sends once when the same outreach message is delivered twice', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Twice', [{ step_type: 'EMAIL', subject_line: 'Once only' }]);
    const [id] = await prospectsIn(world, campaign.id, [{}]);
    const response = await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key });
    expect(response.status).toBe(200);
    await stack.drain('campaign-scheduling');
    // The first action, carried by the campaign prospect item (no action item yet), delivered twice at once.
    const [item] = await campaignItems(stack, campaign.id);
    expect(item?.dueAt).toBe(clock.now().toISOString());
    expect(await actionsOf(stack, campaign.id)).toEqual([]);
    const first = { campaignId: campaign.id, prospectId: id as number, workspaceId: world.ws.workspaceId, dueAt: item?.dueAt as string, first: true };
    await sendJsonMessages(stack.sqs, stack.queue('outreach').queueUrl, [toMessage([first]), toMessage([first])]);
    await stack.drain('outreach');
    expect((await sentOfKind('email')).filter((e) => e.subject === 'Once only').length).toBe(1);
    // Written now; the campaign prospect carries it no more.
    const [written] = await campaignItems(stack, campaign.id);
    expect([written?.dueAt, written?.gsi2pk, written?.gsi2sk]).toEqual([undefined, undefined, undefined]);
    // Its one step sent, its sequence ended: no action left.
    expect(await actionsOf(stack, campaign.id)).toEqual([]);
    // Delivered again, as the first action and as the action's own entry: nothing more is sent.
    await sendJsonMessages(stack.sqs, stack.queue('outreach').queueUrl, [toMessage([first]), toMessage([{ ...first, first: undefined }])]);
    await stack.drain('outreach');
    await play(stack);
    expect((await sentOfKind('email')).filter((e) => e.subject === 'Once only').length).toBe(1);
  });

  it('completes the campaign when a first action whose sequence ended before a crash is delivered again', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Ended before a crash', [{ step_type: 'EMAIL', subject_line: 'Never' }]);
    const [id] = await prospectsIn(world, campaign.id, [{}]);
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    await stack.drain('campaign-scheduling');
    // The sender wrote the prospect's end (FINISHED) and crashed before taking the first action's
    // keys off its campaign prospect: the campaign's last unfinished prospect, still in the due-time index.
    await stack.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: campaignProspectKey(campaign.id, id as number),
        UpdateExpression: 'SET #status = :finished, lsi1sk = :byStatus',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':finished': 'FINISHED', ':byStatus': `FINISHED#${padId(id as number)}` },
      }),
    );
    expect(await campaignStatus(world, campaign.id)).toBe('ACTIVE');
    await tick(stack);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
    const [item] = await campaignItems(stack, campaign.id);
    expect([item?.dueAt, item?.gsi2pk]).toEqual([undefined, undefined]);
    expect((await sentOfKind('email')).filter((e) => e.subject === 'Never')).toEqual([]);
  });

  it('never sends twice after a crash between claim and result', async () => {
    const { stack } = world;
    const email = await campaignWith(world, 'Crash email', [
      { step_type: 'EMAIL', subject_line: 'Crashed' },
      { step_type: 'EMAIL', subject_line: 'Crashed follow-up', delay_in_hours: 1 },
    ]);
    const invite = await campaignWith(world, 'Crash invite', [{ step_type: 'NETWORK_INVITE', message_template: 'Crashed invite' }]);
    const [emailed] = await prospectsIn(world, email.id, [{}]);
    const [invited] = await prospectsIn(world, invite.id, [{}]);
    for (const id of [email.id, invite.id]) {
      expect((await stack.call('POST', `/public/campaigns/${id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    }
    await stack.drain('campaign-scheduling');
    // A sender claimed both and crashed before calling the provider.
    const crashedEmail = await crashAfterClaim(email.id, emailed as number, 'EMAIL', world.mailbox);
    await crashAfterClaim(invite.id, invited as number, 'INVITE', world.network);
    // While the claim is fresh, nothing happens; once expired (and a full sweep reads it), the crash rule settles it.
    await tick(stack);
    expect((await sentOfKind('email')).filter((e) => e.subject === 'Crashed')).toEqual([]);
    for (const campaignId of [email.id, invite.id]) {
      expect((await actionsOf(stack, campaignId)).map((action) => (action.claim as { token: string }).token)).toEqual(['crashed']);
    }
    // The prospects page: a claimed action is being sent, so nothing is due.
    const page = await stack.call<{ prospects: Record<string, unknown>[] }>('GET', `/public/campaigns/${email.id}/prospects/`, { apiKey: world.ws.key });
    expect(page.body.prospects.map(({ current_step_id, next_action_at }) => ({ current_step_id, next_action_at }))).toEqual([
      { current_step_id: email.stepIds[0], next_action_at: null },
    ]);
    await advance(stack, clock, 0.5);
    // The email cannot be told by the provider: not sent again, recorded UNCERTAIN.
    expect((await sentOfKind('email')).filter((e) => e.subject === 'Crashed')).toEqual([]);
    expect(await outcomeSummary(email.id)).toEqual(['EMAIL UNCERTAIN (a crash between claim and result: not sent again (at most once))']);
    // It may have gone out at its claim: the next step's delay counts from then, not from the settling.
    const next = await stack.call<{ prospects: Record<string, unknown>[] }>('GET', `/public/campaigns/${email.id}/prospects/`, { apiKey: world.ws.key });
    expect(next.body.prospects.map(({ current_step_id, next_action_at }) => ({ current_step_id, next_action_at }))).toEqual([
      { current_step_id: email.stepIds[1], next_action_at: new Date(Date.parse(crashedEmail.claim.at) + 3_600_000).toISOString() },
    ]);
    // The provider shows no invitation: it was never sent, so it is sent now, once.
    expect((await sentOfKind('invitation')).filter((i) => i.text === 'Crashed invite').length).toBe(1);
    expect(await outcomeSummary(invite.id)).toEqual(['NETWORK_INVITE SENT']);
  });

  it('claims nothing when a read the send needs fails: the email goes out once the read works, never UNCERTAIN', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Fragile company', [{ step_type: 'EMAIL', subject_line: 'Fragile' }]);
    const [prospectId] = await prospectsIn(world, campaign.id, [{ company_name: 'Fragile Co' }]);
    const shown = await stack.call<{ prospect: { company: { id: number } } }>('GET', `/public/prospects/${prospectId}/`, { apiKey: world.ws.key });
    const key = companyKey(shown.body.prospect.company.id);
    const { Item } = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }));
    // The company's item cannot be read (a value of the wrong type): the email's rendering needs it.
    await stack.db.send(new UpdateCommand({ TableName: stack.tableName, Key: key, UpdateExpression: 'SET version = :bad', ExpressionAttributeValues: { ':bad': 'unreadable' } }));
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    await stack.drain('campaign-scheduling');
    await tick(stack);
    // The delivery failed before its claim: nothing claimed, nothing sent, nothing recorded.
    expect((await sentOfKind('email')).filter((e) => e.subject === 'Fragile')).toEqual([]);
    expect(await actionsOf(stack, campaign.id)).toEqual([]);
    expect(await outcomeSummary(campaign.id)).toEqual([]);

    // Readable again: a later dispatch sends it (within the window, a day at most), once, as SENT;
    // a claim left behind would have been settled as UNCERTAIN and never sent.
    await stack.db.send(new UpdateCommand({ TableName: stack.tableName, Key: key, UpdateExpression: 'SET version = :v', ExpressionAttributeValues: { ':v': Item?.version } }));
    await advance(stack, clock, 24);
    expect((await sentOfKind('email')).filter((e) => e.subject === 'Fragile')).toHaveLength(1);
    expect(await outcomeSummary(campaign.id)).toEqual(['EMAIL SENT']);
  });

  it('settles a crash after a recorded "already connected" skip so that a later ACCEPTED_INVITE is YES at once', async () => {
    clock.set('2026-11-24T09:00:00.000Z'); // Tuesday, 10:00 in Amsterdam
    const { stack } = world;
    const campaign = await campaignWith(world, 'Crash connected', [{ step_type: 'NETWORK_INVITE', message_template: 'CC invite' }]);
    await withCondition(world, campaign.id, campaign.stepIds[0] as number, { condition_type: 'ACCEPTED_INVITE', delay_in_hours: 72 }, {
      YES: { step_type: 'EMAIL', subject_line: 'CC yes' },
      NO: { step_type: 'EMAIL', subject_line: 'CC no' },
    });
    const [prospectId] = await prospectsIn(world, campaign.id, [{ network_profile_url: 'https://www.linkedin.com/in/cc-answer', email: 'cc-answer@example.com' }]);
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    await stack.drain('campaign-scheduling');
    // A sender claimed the invitation, the provider answered "already performed", the sender recorded
    // the skip and crashed before it moved the action on.
    const pending = await crashAfterClaim(campaign.id, prospectId as number, 'INVITE', world.network);
    await recordInvitation(pending, campaign, 'SKIPPED', 'errors/action_already_performed');
    // Once the claim expires the crash rule settles it from the record: the condition does not wait 72 hours.
    await advance(stack, clock, 0.5);
    const emailed = (await sandboxSent(stack)).filter((item) => item.kind === 'email' && item.subject?.startsWith('CC ')).map((item) => [item.subject, item.to]);
    expect(emailed).toEqual([['CC yes', 'cc-answer@example.com']]);
    expect((await sentOfKind('invitation')).filter((item) => item.text === 'CC invite')).toEqual([]);
  });

  it('settles a crash after a recorded invitation by linking it to its campaign and account, as a send does (its acceptance counts there)', async () => {
    clock.set('2026-11-25T09:00:00.000Z'); // Wednesday, 10:00 in Amsterdam
    const { stack } = world;
    const campaign = await campaignWith(world, 'Crash invited', [{ step_type: 'NETWORK_INVITE', message_template: 'CI invite' }]);
    const [prospectId] = await prospectsIn(world, campaign.id, [{ network_profile_url: 'https://www.linkedin.com/in/ci-answer' }]);
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    await stack.drain('campaign-scheduling');
    // A sender sent the invitation, recorded it, and crashed before it linked it and moved the action on.
    const pending = await crashAfterClaim(campaign.id, prospectId as number, 'INVITE', world.network);
    await recordInvitation(pending, campaign, 'SENT', null);
    const link = async () =>
      (
        await stack.db.send(
          new GetCommand({ TableName: stack.tableName, Key: inboundLinkKey(invitationLink(pending.workspaceId, prospectId as number, world.network)), ConsistentRead: true }),
        )
      ).Item;
    expect(await link()).toBeUndefined();
    // Once the claim expires the crash rule settles it from the record, and links it.
    await advance(stack, clock, 0.5);
    expect(await link()).toMatchObject({ workspaceId: pending.workspaceId, prospectId, campaignId: campaign.id, nodeId: campaign.stepIds[0] });
    expect((await sentOfKind('invitation')).filter((item) => item.text === 'CI invite')).toEqual([]);
  });

  it('ends the sequence of a profile the provider does not know, but pauses an account it does not know (both answer 404)', async () => {
    clock.set('2026-11-26T09:00:00.000Z'); // Thursday, 10:00 in Amsterdam
    const { stack } = world;
    const unknownProfile = await campaignWith(world, 'Unknown profile', [{ step_type: 'NETWORK_INVITE', message_template: 'UP invite' }]);
    const [nobody] = await prospectsIn(world, unknownProfile.id, [{ network_profile_url: 'https://www.linkedin.com/in/up-nobody' }]);
    await stack.provider.control.addFault({ kind: 'error', type: 'errors/resource_not_found', method: 'GET', path: '/api/v1/users/up-nobody', times: 1 });
    await activate(world, unknownProfile.id);
    expect(await prospectStatuses(world, unknownProfile.id)).toEqual({ [nobody as number]: { status: 'FINISHED', last_error: 'errors/resource_not_found' } });
    expect(await outcomeSummary(unknownProfile.id)).toEqual(['NETWORK_INVITE FAILED (errors/resource_not_found)']);

    // An account deleted at the provider (or a sandbox restarted without it): its calls answer 404
    // too. Its prospects' sequences do not end; the account's sends pause until it is back.
    const gone = await extraAccount(world, 'LINKEDIN', 'sbx-gone');
    const campaign = await campaignWith(world, 'Deleted account', [{ step_type: 'NETWORK_INVITE', message_template: 'DA invite' }], { account_ids: [gone] });
    const ids = (await prospectsIn(world, campaign.id, [{}, {}])) as number[];
    await stack.provider.control.deleteAccount('sbx-gone');
    await activate(world, campaign.id);
    const pausedAt = clock.now().toISOString();
    const accounts = await stack.call<{ accounts: { id: number; sending_paused: unknown }[] }>('GET', '/public/accounts/', { apiKey: world.ws.key });
    expect(accounts.body.accounts.find((a) => a.id === gone)?.sending_paused).toEqual({ reason: 'errors/account_not_found', until: null, at: pausedAt });
    expect(await prospectStatuses(world, campaign.id)).toEqual(Object.fromEntries(ids.map((id) => [id, { status: 'IN_REVIEW', last_error: 'errors/account_not_found' }])));
    expect(await outcomeSummary(campaign.id)).toEqual([]);
    expect((await sentOfKind('invitation')).filter((i) => i.text === 'DA invite')).toEqual([]);

    // Connected again under the same id, and the pause ended by its owner: both invitations go out.
    await stack.provider.control.createAccount({ id: 'sbx-gone', type: 'LINKEDIN', name: 'sbx-gone' });
    const resumed = await stack.call('PATCH', `/public/accounts/${gone}/`, { apiKey: world.ws.key, body: { sending_paused: null } });
    expect(resumed.status, resumed.text).toBe(200);
    await advance(stack, clock, 1);
    expect((await sentOfKind('invitation')).filter((i) => i.text === 'DA invite')).toHaveLength(2);
    expect(await outcomeSummary(campaign.id)).toEqual(['NETWORK_INVITE SENT', 'NETWORK_INVITE SENT']);
  });
});
