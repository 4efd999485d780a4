import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundLinkKey } from '../../../shared/db/keys';
import { invitationLink } from '../../../shared/domain/inbox/inbound-router';
import { ManualClock } from '../../../shared/time/clock';
import { type Receiver, startReceiver } from '../../support/receiver';
import { createList, importLeads, person } from '../leads/helpers';
import { type EngineWorld, activate, advance, campaignWith, engineWorld, play, prospectStatuses, prospectsIn, sandboxSent } from './helpers';

/**
 * What prospects answer, through the sandbox provider's webhooks: replies stop sequences (and a
 * colleague's, with stop_on_company_reply) and reach the user's webhook with their campaign;
 * auto-replies and bounces are not replies; a replayed webhook counts once.
 */
describe('replies', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;
  let receiver: Receiver;
  let secret: string;

  beforeAll(async () => {
    world = await engineWorld(clock);
    receiver = await startReceiver();
    const hook = await world.stack.call('PUT', '/user/webhook/', { token: world.ws.user?.token, body: { webhook_url: `${receiver.url}/hook` } });
    expect(hook.status, hook.text).toBe(200);
    secret = String(hook.body.signing_secret);
  });
  afterAll(async () => {
    await receiver?.stop();
    await world?.stack.stop();
  });

  /** The incoming_message events the user's webhook received, verified against its signing secret. */
  const delivered = async () => {
    await world.stack.drain('webhooks');
    return receiver.requests.map((request) => {
      // Signed at the stack's clock, days away from this machine's: the signature is checked, not the age.
      const id = String(request.headers['webhook-id']);
      const at = new Date(Number(request.headers['webhook-timestamp']) * 1000);
      expect(String(request.headers['webhook-signature'])).toBe(new Webhook(secret).sign(id, at, request.body));
      return JSON.parse(request.body) as { event: string; message: { message: string; channel: string; campaign: unknown; lead: { id: number; status: string } } };
    });
  };
  const eventsOf = async (campaignId: number) => {
    const { Items } = await world.stack.db.send(
      new QueryCommand({
        TableName: world.stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `CAMPAIGN#${String(campaignId).padStart(16, '0')}#EVENTS` },
      }),
    );
    return (Items ?? []).map((item) => [item.kind, item.prospectId, item.channel]);
  };
  /** Moves prospects of a list into a campaign (out of any other), all of them. */
  const moveInto = async (listId: number, campaignId: number, ids: number[]) => {
    const moved = await world.stack.call('POST', `/public/lead-lists/${listId}/add-to-campaign/`, { apiKey: world.ws.key, body: { campaign: campaignId, prospect_ids: ids, allow_duplicates: true } });
    expect([moved.status, moved.body.count], moved.text).toEqual([200, ids.length]);
  };
  /** A list of prospects known by their network profiles (`<handle>` of linkedin.com/in/), in order; their ids. */
  const listOfProfiles = async (name: string, rows: [number, string][]) => {
    const list = await createList(world.stack, world.ws, name);
    const imported = await importLeads(world.stack, world.ws, list.id, {
      leads: rows.map(([row, handle]) => person(row, { network_profile_url: `https://www.linkedin.com/in/${handle}` })),
    });
    return { list, ids: imported.leads.map((lead) => lead.id) as number[] };
  };
  /** The prospects whose acceptance a campaign recorded. */
  const acceptedIn = async (campaignId: number) => (await eventsOf(campaignId)).filter(([kind]) => kind === 'INVITE_ACCEPTED').map(([, prospectId]) => prospectId);
  const emailsWithSubject = async (subject: string) =>
    (await sandboxSent(world.stack)).filter((item) => item.kind === 'email' && item.subject === subject).map((item) => item.to).sort();

  it('an email reply in the thread stops the sequence (and the colleagues’), reaches the webhook once; auto-replies and bounces are not replies', async () => {
    const { stack } = world;
    const campaign = await campaignWith(
      world,
      'Replies',
      [
        { step_type: 'EMAIL', subject_line: 'R one' },
        { step_type: 'EMAIL', subject_line: 'R two', delay_in_hours: 48 },
      ],
      { stop_on_company_reply: true },
    );
    const company = { company_name: 'ReplyCo', company_website_url: 'https://replyco.example' };
    const [replier, colleague, other, away, bouncing] = await prospectsIn(world, campaign.id, [
      { email: 'ann@replyco.example', ...company },
      { email: 'ben@replyco.example', ...company },
      { email: 'cat@other.example' },
      { email: 'dan@away.example' },
      { email: 'eve@gone.example' },
    ], { prospects_per_company: 5 });
    await activate(world, campaign.id);
    await advance(stack, clock, 2);
    expect(await emailsWithSubject('R one')).toEqual(['ann@replyco.example', 'ben@replyco.example', 'cat@other.example', 'dan@away.example', 'eve@gone.example']);

    // Ann answers from another address: the thread (In-Reply-To) says whose answer it is.
    const reply = { account_id: 'sbx-mailbox-dev', channel: 'EMAIL' as const, from: 'ann.private@mail.example', thread_with: 'ann@replyco.example', text: 'Sounds good, call me', message_id: 'mail_ann_1' };
    const first = await stack.provider.control.reply(reply);
    expect(first.in_reply_to).not.toBeNull();
    expect(first.deliveries.map((delivery) => delivery.status)).toEqual([200]);
    // The provider posts it again (a retry): nothing more happens.
    await stack.provider.control.reply(reply);
    await stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', channel: 'EMAIL', from: 'dan@away.example', text: 'I am out until Monday', kind: 'auto_reply' });
    await stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', channel: 'EMAIL', from: 'eve@gone.example', text: 'No such user', kind: 'bounce' });

    const events = await delivered();
    expect(events).toEqual([
      expect.objectContaining({
        event: 'incoming_message',
        message: expect.objectContaining({
          message: 'Sounds good, call me',
          channel: 'EMAIL',
          sent_by_lead: true,
          campaign: { id: campaign.id, name: 'Replies', status: 'ACTIVE' },
          lead: expect.objectContaining({ id: replier, status: 'REPLIED', email: 'ann@replyco.example' }),
        }),
      }),
    ]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [replier as number]: { status: 'REPLIED', last_error: null },
      [colleague as number]: { status: 'FINISHED', last_error: 'a colleague at the same company replied' },
      [other as number]: { status: 'IN_PROGRESS', last_error: null },
      [away as number]: { status: 'IN_PROGRESS', last_error: null },
      [bouncing as number]: { status: 'BOUNCED', last_error: 'the email bounced (reported by the mail system)' },
    });
    expect((await eventsOf(campaign.id)).sort()).toEqual(
      [
        ['AUTO_REPLY', away, 'EMAIL'],
        ['BOUNCED', bouncing, 'EMAIL'],
        ['REPLIED', replier, 'EMAIL'],
      ].sort(),
    );

    const suppressed = await stack.call<{ suppressions: { value: string; reason: string }[] }>('GET', '/public/suppressions/', { apiKey: world.ws.key });
    expect(suppressed.body.suppressions.map((entry) => [entry.value, entry.reason])).toEqual([['eve@gone.example', 'HARD_BOUNCE']]);

    await advance(stack, clock, 48);
    expect(await emailsWithSubject('R two')).toEqual(['cat@other.example', 'dan@away.example']);
    await play(stack);
    expect((await world.stack.call<{ campaign: { status: string } }>('GET', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key })).body.campaign.status).toBe(
      'COMPLETED',
    );
  });

  it('a network reply in the chat the engine wrote in stops the sequence and reaches the webhook with its campaign', async () => {
    const { stack } = world;
    clock.set('2026-11-30T09:00:00.000Z'); // Monday
    receiver.requests.length = 0;
    const campaign = await campaignWith(world, 'Network replies', [
      { step_type: 'NETWORK_MESSAGE', message_template: 'NR hello' },
      { step_type: 'NETWORK_MESSAGE', message_template: 'NR follow-up', delay_in_hours: 24 },
    ]);
    const [friend] = await prospectsIn(world, campaign.id, [{ network_profile_url: 'https://www.linkedin.com/in/nr-friend' }]);
    await stack.provider.control.setProfile('nr-friend', { network_distance: 'FIRST_DEGREE' });
    await activate(world, campaign.id);
    const hello = (await sandboxSent(stack)).find((item) => item.text === 'NR hello');
    if (!hello?.chatId) throw new Error('the first message did not go out');
    const link = await stack.db.send(
      new QueryCommand({
        TableName: stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': inboundLinkKey(`CHAT#sbx-network-dev#${hello.chatId}`).pk },
      }),
    );
    expect(link.Items?.map((item) => item.prospectId)).toEqual([friend]);

    const answered = await stack.provider.control.reply({ account_id: 'sbx-network-dev', from: 'nr-friend', text: 'Happy to chat' });
    expect(answered.chat_id).toBe(hello.chatId);
    expect((await delivered()).map((event) => [event.message.message, event.message.channel, event.message.campaign, event.message.lead.status])).toEqual([
      ['Happy to chat', 'NETWORK', { id: campaign.id, name: 'Network replies', status: 'COMPLETED' }, 'REPLIED'],
    ]);
    await advance(stack, clock, 25);
    expect((await sandboxSent(stack)).filter((item) => item.text === 'NR follow-up')).toEqual([]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [friend as number]: { status: 'REPLIED', last_error: null } });
  });

  it('a network reply in a campaign’s chat counts for that campaign and its step, also after the prospect moved to another campaign', async () => {
    const { stack, ws } = world;
    clock.set('2026-12-07T09:00:00.000Z'); // Monday
    receiver.requests.length = 0;
    const first = await campaignWith(world, 'Wrote first', [{ step_type: 'NETWORK_MESSAGE', message_template: 'MV hello' }]);
    const second = await campaignWith(world, 'Moved into', [{ step_type: 'EMAIL', subject_line: 'MV email' }]);
    const list = await createList(stack, ws, 'Moved repliers');
    const [mover] = (await importLeads(stack, ws, list.id, { leads: [person(9001, { network_profile_url: 'https://www.linkedin.com/in/mv-friend' })] })).leads.map((lead) => lead.id);
    await stack.provider.control.setProfile('mv-friend', { network_distance: 'FIRST_DEGREE' });
    const addTo = async (campaignId: number) => {
      const moved = await stack.call('POST', `/public/lead-lists/${list.id}/add-to-campaign/`, {
        apiKey: ws.key,
        body: { campaign: campaignId, prospect_ids: [mover], allow_duplicates: true },
      });
      expect(moved.status, moved.text).toBe(200);
    };
    await addTo(first.id);
    await activate(world, first.id);
    expect((await sandboxSent(stack)).filter((item) => item.text === 'MV hello')).toHaveLength(1);
    // Moved into a campaign that has not run (DRAFT): nothing of it was sent to the prospect.
    await addTo(second.id);

    await stack.provider.control.reply({ account_id: 'sbx-network-dev', from: 'mv-friend', text: 'Answering your first message' });
    expect((await delivered()).map((event) => [event.message.message, event.message.campaign])).toEqual([
      ['Answering your first message', { id: first.id, name: 'Wrote first', status: 'COMPLETED' }],
    ]);
    expect(await eventsOf(first.id)).toContainEqual(['REPLIED', mover, 'NETWORK']);
    expect((await eventsOf(second.id)).filter(([kind]) => kind === 'REPLIED')).toEqual([]);
    const analytics = async (campaignId: number) =>
      (await stack.call<{ analytics: Record<string, unknown>; metrics_per_step: unknown }>('GET', `/public/campaigns/${campaignId}/analytics/`, { apiKey: ws.key })).body;
    const [wrote, moved] = [await analytics(first.id), await analytics(second.id)];
    expect([wrote.analytics.amount_of_replies, wrote.metrics_per_step]).toEqual([1, { [first.stepIds[0] as number]: { emails_sent: 1, replies: 1, reply_rate: 100 } }]);
    expect([moved.analytics.amount_of_replies, moved.metrics_per_step]).toEqual([0, { [second.stepIds[0] as number]: { emails_sent: 0, replies: 0, reply_rate: 0 } }]);
  });

  it('an accepted invitation counts for the campaign that sent it, also after the prospect moved to another campaign or out of every campaign', async () => {
    const { stack, ws } = world;
    clock.set('2026-12-14T09:00:00.000Z'); // Monday
    const inviting = await campaignWith(world, 'Invited first', [{ step_type: 'NETWORK_INVITE' }]);
    const other = await campaignWith(world, 'Moved into later', [{ step_type: 'EMAIL', subject_line: 'AC email' }]);
    const { list, ids } = await listOfProfiles('Accepting movers', [
      [9101, 'ac-mover'],
      [9102, 'ac-leaver'],
    ]);
    const [mover, leaver] = ids as [number, number];
    const addTo = (campaignId: number, ids: number[]) => moveInto(list.id, campaignId, ids);
    await addTo(inviting.id, [mover, leaver]);
    await activate(world, inviting.id);
    const invitations = (await stack.provider.control.state()).invitations.filter((item) => ['ac-mover', 'ac-leaver'].includes(String(item.publicIdentifier)));
    expect(invitations.map((item) => item.publicIdentifier).sort()).toEqual(['ac-leaver', 'ac-mover']);
    // The mover goes to another campaign, the leaver out of every campaign, before either accepts.
    await addTo(other.id, [mover]);
    const removed = await stack.call('POST', `/public/campaigns/${inviting.id}/remove-prospects/`, { apiKey: ws.key, body: { prospect_ids: [leaver] } });
    expect(removed.status, removed.text).toBe(200);
    for (const invitation of invitations) await stack.provider.control.acceptInvitation(invitation.id);

    const accepted = async (campaignId: number) => (await acceptedIn(campaignId)).sort();
    expect([await accepted(inviting.id), await accepted(other.id)]).toEqual([[mover, leaver].sort(), []]);
    const analytics = async (campaignId: number) =>
      (await stack.call<{ analytics: Record<string, unknown> }>('GET', `/public/campaigns/${campaignId}/analytics/`, { apiKey: ws.key })).body.analytics;
    const [invited, moved] = [await analytics(inviting.id), await analytics(other.id)];
    expect([invited.amount_of_invites_sent, invited.amount_of_invites_accepted]).toEqual([2, 2]);
    expect([moved.amount_of_invites_sent, moved.amount_of_invites_accepted]).toEqual([0, 0]);
  });

  it('an acceptance counts for the campaign whose account sent that invitation, when two campaigns invited through two accounts', async () => {
    const { stack, ws } = world;
    clock.set('2026-12-21T09:00:00.000Z'); // Monday
    await stack.provider.control.createAccount({ id: 'sbx-network-second', type: 'LINKEDIN', name: 'Second network' });
    const registered = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: ws.key, body: { provider_account_id: 'sbx-network-second' } });
    expect(registered.status, registered.text).toBe(201);
    const first = await campaignWith(world, 'Invited through the first', [{ step_type: 'NETWORK_INVITE' }]);
    const second = await campaignWith(world, 'Invited through the second', [{ step_type: 'NETWORK_INVITE' }], { account_ids: [registered.body.account.id] });
    const { list, ids } = await listOfProfiles('Invited twice', [[9201, 'ac-twice']]);
    const [twice] = ids as [number];
    const addTo = (campaignId: number) => moveInto(list.id, campaignId, [twice]);
    await addTo(first.id);
    await activate(world, first.id);
    await addTo(second.id);
    await activate(world, second.id);
    const invitations = (await stack.provider.control.state()).invitations.filter((item) => item.publicIdentifier === 'ac-twice');
    expect(invitations.map((item) => item.accountId).sort()).toEqual(['sbx-network-dev', 'sbx-network-second']);

    // The first campaign's invitation (the first account) is accepted, while the prospect is in the second.
    await stack.provider.control.acceptInvitation((invitations.find((item) => item.accountId === 'sbx-network-dev') as { id: string }).id);
    expect([await acceptedIn(first.id), await acceptedIn(second.id)]).toEqual([[twice], []]);
    await stack.provider.control.acceptInvitation((invitations.find((item) => item.accountId === 'sbx-network-second') as { id: string }).id);
    expect([await acceptedIn(first.id), await acceptedIn(second.id)]).toEqual([[twice], [twice]]);
  });

  it('without an invitation link (sent before links existed), an acceptance counts for the current campaign only when its network steps go through that account', async () => {
    const { stack, ws } = world;
    clock.set('2026-12-28T09:00:00.000Z'); // Monday
    const inviting = await campaignWith(world, 'Invited unlinked', [{ step_type: 'NETWORK_INVITE' }, { step_type: 'EMAIL', subject_line: 'UL later', delay_in_hours: 240 }]);
    const other = await campaignWith(world, 'Moved in unlinked', [{ step_type: 'EMAIL', subject_line: 'UL email', delay_in_hours: 240 }]);
    const { list, ids } = await listOfProfiles('Unlinked', [
      [9301, 'ul-stays'],
      [9302, 'ul-moves'],
    ]);
    const [stays, moves] = ids as [number, number];
    const addTo = (campaignId: number, ids: number[]) => moveInto(list.id, campaignId, ids);
    await addTo(inviting.id, [stays, moves]);
    await activate(world, inviting.id);
    await activate(world, other.id);
    await addTo(other.id, [moves]);
    // The links are gone, as for invitations sent before they were written.
    for (const id of [stays, moves]) {
      await stack.db.send(new DeleteCommand({ TableName: stack.tableName, Key: inboundLinkKey(invitationLink(ws.workspaceId, id, world.network)) }));
    }
    const invitations = (await stack.provider.control.state()).invitations.filter((item) => ['ul-stays', 'ul-moves'].includes(String(item.publicIdentifier)));
    expect(invitations).toHaveLength(2);
    for (const invitation of invitations) await stack.provider.control.acceptInvitation(invitation.id);
    // The one still in the inviting campaign counts there; the moved one's new campaign never wrote to it on the network.
    expect([await acceptedIn(inviting.id), await acceptedIn(other.id)]).toEqual([[stays], []]);
  });

  it('a reply webhook replayed after the prospect moved to another campaign neither stops nor counts there', async () => {
    const { stack, ws } = world;
    clock.set('2027-01-11T09:00:00.000Z'); // Monday
    const first = await campaignWith(world, 'Replied before moving', [{ step_type: 'EMAIL', subject_line: 'RP one' }, { step_type: 'EMAIL', subject_line: 'RP two', delay_in_hours: 24 }]);
    const second = await campaignWith(world, 'Moved after replying', [{ step_type: 'EMAIL', subject_line: 'RP b one' }, { step_type: 'EMAIL', subject_line: 'RP b two', delay_in_hours: 24 }]);
    const profile = 'https://www.linkedin.com/in/rp-replay';
    const [prospectId] = (await prospectsIn(world, first.id, [{ email: 'rp@replay.example', network_profile_url: profile }])) as number[];
    await activate(world, first.id);
    const reply = { account_id: 'sbx-mailbox-dev', channel: 'EMAIL' as const, from: 'rp@replay.example', text: 'Not now, maybe later', message_id: 'rp_replay_1' };
    await stack.provider.control.reply(reply);
    expect(await prospectStatuses(world, first.id)).toEqual({ [prospectId as number]: { status: 'REPLIED', last_error: null } });
    // Later moved into another campaign, which contacts it.
    const moved = await stack.call('POST', `/public/campaigns/${second.id}/import/`, { apiKey: ws.key, body: { leads: [{ first_name: 'Rae', last_name: 'Play', email: 'rp@replay.example', network_profile_url: profile }] } });
    expect([moved.status, moved.body.count], moved.text).toEqual([200, 1]);
    await activate(world, second.id);
    expect(await emailsWithSubject('RP b one')).toEqual(['rp@replay.example']);
    // The provider posts the first reply again.
    await stack.provider.control.reply(reply);
    expect(await prospectStatuses(world, second.id)).toEqual({ [prospectId as number]: { status: 'IN_PROGRESS', last_error: null } });
    await advance(stack, clock, 25);
    expect(await emailsWithSubject('RP b two')).toEqual(['rp@replay.example']);
    const analytics = await stack.call<{ analytics: Record<string, unknown> }>('GET', `/public/campaigns/${second.id}/analytics/`, { apiKey: ws.key });
    expect([analytics.body.analytics.amount_of_prospects_contacted, analytics.body.analytics.amount_of_replies]).toEqual([1, 0]);
    expect((await eventsOf(second.id)).filter(([kind]) => kind === 'REPLIED')).toEqual([]);
  });

  it('a bounce suppresses the address the bounced email went to, not one the prospect was given since', async () => {
    const { stack, ws } = world;
    clock.set('2027-01-18T09:00:00.000Z'); // Monday
    const campaign = await campaignWith(world, 'Bounced then corrected', [{ step_type: 'EMAIL', subject_line: 'BB one' }, { step_type: 'EMAIL', subject_line: 'BB two', delay_in_hours: 24 }]);
    const profile = 'https://www.linkedin.com/in/bb-corrected';
    await prospectsIn(world, campaign.id, [{ email: 'bb-old@bounce.example', network_profile_url: profile }]);
    await activate(world, campaign.id);
    expect(await emailsWithSubject('BB one')).toEqual(['bb-old@bounce.example']);
    // The address is corrected, then the mail system reports the first one bounced.
    const corrected = await stack.call('POST', `/public/campaigns/${campaign.id}/import/`, { apiKey: ws.key, body: { leads: [{ first_name: 'Bea', last_name: 'Bounce', email: 'bb-new@bounce.example', network_profile_url: profile }] } });
    expect([corrected.status, corrected.body.updated], corrected.text).toEqual([200, 1]);
    await stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', channel: 'EMAIL', from: 'bb-old@bounce.example', text: '550 unknown user', kind: 'bounce' });
    const suppressed = await stack.call<{ suppressions: { value: string; reason: string }[] }>('GET', '/public/suppressions/', { apiKey: ws.key });
    expect(suppressed.body.suppressions.filter((entry) => entry.value.endsWith('@bounce.example')).map((entry) => [entry.value, entry.reason])).toEqual([
      ['bb-old@bounce.example', 'HARD_BOUNCE'],
    ]);
    // Its sequence goes on, to the corrected address.
    await advance(stack, clock, 25);
    expect(await emailsWithSubject('BB two')).toEqual(['bb-new@bounce.example']);
  });

  it('a prospect who writes before the campaign contacted them stops the sequence but is no reply in its analytics (replies never exceed contacted)', async () => {
    const { stack, ws } = world;
    clock.set('2027-01-04T09:00:00.000Z'); // Monday
    const campaign = await campaignWith(world, 'Wrote first', [{ step_type: 'EMAIL', subject_line: 'WF first', delay_in_hours: 48 }]);
    const [early] = (await prospectsIn(world, campaign.id, [{ email: 'early@first.example' }])) as number[];
    await activate(world, campaign.id);
    await stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', channel: 'EMAIL', from: 'early@first.example', text: 'Heard of you, tell me more', message_id: 'wf_early_1' });
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [early as number]: { status: 'REPLIED', last_error: null } });
    const analytics = await stack.call<{ analytics: Record<string, unknown>; pipeline: Record<string, number> }>('GET', `/public/campaigns/${campaign.id}/analytics/`, { apiKey: ws.key });
    expect([analytics.body.analytics.amount_of_prospects_contacted, analytics.body.analytics.amount_of_replies, analytics.body.pipeline]).toEqual([
      0,
      0,
      { leads_contacted: 0, replied: 0, interested: 0, meeting_scheduled: 0 },
    ]);
    await advance(stack, clock, 49);
    expect((await sandboxSent(stack)).filter((item) => item.kind === 'email' && item.subject === 'WF first')).toEqual([]);
  });

  it('a reply stops the colleagues at the replier’s company as it is now: one who joined it since the move in, not one who left it', async () => {
    const { stack, ws } = world;
    clock.set('2027-01-25T09:00:00.000Z'); // Monday
    const campaign = await campaignWith(
      world,
      'Colleagues now',
      [
        { step_type: 'EMAIL', subject_line: 'CN one' },
        { step_type: 'EMAIL', subject_line: 'CN two', delay_in_hours: 48 },
      ],
      { stop_on_company_reply: true },
    );
    const nowCo = { company_name: 'NowCo', company_website_url: 'https://nowco.example' };
    const joiner = 'https://www.linkedin.com/in/cn-joiner';
    const leaver = 'https://www.linkedin.com/in/cn-leaver';
    const [replier, joined, left] = (await prospectsIn(
      world,
      campaign.id,
      [
        { email: 'ann@nowco.example', ...nowCo },
        { email: 'joe@joiner.example', network_profile_url: joiner },
        { email: 'lea@nowco.example', network_profile_url: leaver, ...nowCo },
      ],
      { prospects_per_company: 5 },
    )) as number[];
    await activate(world, campaign.id);
    expect(await emailsWithSubject('CN one')).toEqual(['ann@nowco.example', 'joe@joiner.example', 'lea@nowco.example']);
    // Joe joins NowCo and Lea leaves it for ThenCo, while both are in the campaign.
    const changed = await stack.call('POST', `/public/campaigns/${campaign.id}/import/`, {
      apiKey: ws.key,
      body: {
        leads: [
          { first_name: 'Joe', last_name: 'Joiner', email: 'joe@joiner.example', network_profile_url: joiner, ...nowCo },
          { first_name: 'Lea', last_name: 'Leaver', email: 'lea@nowco.example', network_profile_url: leaver, company_name: 'ThenCo', company_website_url: 'https://thenco.example' },
        ],
      },
    });
    expect([changed.status, changed.body.updated], changed.text).toEqual([200, 2]);
    await stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', channel: 'EMAIL', from: 'ann@nowco.example', text: 'Let us talk', message_id: 'cn_ann_1' });
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [replier as number]: { status: 'REPLIED', last_error: null },
      [joined as number]: { status: 'FINISHED', last_error: 'a colleague at the same company replied' },
      [left as number]: { status: 'IN_PROGRESS', last_error: null },
    });
    await advance(stack, clock, 49);
    expect(await emailsWithSubject('CN two')).toEqual(['lea@nowco.example']);
  });
});
