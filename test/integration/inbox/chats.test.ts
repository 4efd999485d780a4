import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCreditRepository } from '../../../shared/db/credit-repository';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { enrichmentRunningKey } from '../../../shared/db/keys';
import { createCreditService } from '../../../shared/domain/credits/credits';
import { ManualClock } from '../../../shared/time/clock';
import { createKey, signUp } from '../../support/test-stack';
import { type EngineWorld, activate, advance, campaignWith, engineWorld, prospectsIn, sandboxSent } from '../engine/helpers';
import { type Workspace, createList, importLeads, person } from '../leads/helpers';

interface Message {
  id: string;
  channel: string;
  kind: string;
  sent_by_lead: boolean;
  text: string;
  subject_line: string | null;
  sender_account_id: number | null;
  campaign_id: number | null;
  sent_at: string;
}
interface Chat {
  id: number;
  channel: string;
  prospect: Record<string, unknown>;
  sender_account: { id: number; name: string; type: string } | null;
  last_message: { text: string; sent_by_lead: boolean; sent_at: string };
}

/** The inbox: conversations newest first, one conversation across channels, manual messages through the provider. */
describe('chats', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;
  let bob: Workspace;
  // Every day, all day: a step's delay is then exactly when it is sent.
  const open = { enabled: true, start: '00:00', end: '23:59' };
  const everyDay = { sending_window: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, open])) };

  beforeAll(async () => {
    world = await engineWorld(clock);
    const user = await signUp(world.stack);
    bob = { key: (await createKey(world.stack, user)).key, workspaceId: user.workspaceId };
  });
  afterAll(async () => world?.stack.stop());

  const chats = (key: string, cursor?: string) =>
    world.stack.call<{ success: boolean; chats: Chat[]; next_cursor: string | null }>('GET', `/public/chats${cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`}`, { apiKey: key });
  const messages = (prospectId: number, key = world.ws.key, cursor?: string) =>
    world.stack.call<{ success: boolean; messages: Message[]; next_cursor: string | null }>(
      'GET',
      `/public/chats/${prospectId}/messages/${cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`}`,
      { apiKey: key },
    );
  const send = (prospectId: number, body: unknown, key = world.ws.key) =>
    world.stack.call<{ success: boolean; message: Message }>('POST', `/public/chats/${prospectId}/send-message/`, { apiKey: key, body });
  const now = () => clock.now().toISOString();
  const lastSent = async () => (await sandboxSent(world.stack)).at(-1);

  it('lists a workspace’s conversations newest first, 25 a page, and continues with the cursor', async () => {
    const user = await signUp(world.stack);
    const carol: Workspace = { key: (await createKey(world.stack, user)).key, workspaceId: user.workspaceId };
    await world.stack.provider.control.createAccount({ id: 'sbx-mailbox-carol', type: 'MAIL', name: 'Carol mailbox' });
    const registered = await world.stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: carol.key, body: { provider_account_id: 'sbx-mailbox-carol' } });
    expect(registered.status, registered.text).toBe(201);
    const mailbox = registered.body.account.id;
    const list = await createList(world.stack, carol, 'Inbox paging');
    const ids = (await importLeads(world.stack, carol, list.id, { leads: Array.from({ length: 27 }, (_, i) => person(500 + i, { email: `paging${i}@example.com` })) })).leads.map(
      (lead) => lead.id,
    );
    const sentAt: string[] = [];
    for (const [i, id] of ids.entries()) {
      clock.advance(60_000);
      const sent = await send(id, { message: `Hello ${i}`, subject_line: `Paging ${i}` }, carol.key);
      expect(sent.status, sent.text).toBe(201);
      sentAt.push(now());
    }
    const first = await chats(carol.key);
    expect(first.status, first.text).toBe(200);
    expect(first.body.chats.map((chat) => chat.id)).toEqual(ids.slice(2).reverse());
    expect(first.body.chats[0]).toEqual({
      id: ids[26],
      channel: 'EMAIL',
      prospect: {
        id: ids[26],
        first_name: 'First526',
        last_name: 'Last526',
        email: 'paging26@example.com',
        network_profile_url: 'https://www.linkedin.com/in/person-526',
        job_title: '',
        profile_picture_url: '',
        status: 'NEW',
        campaign_id: null,
        company: null,
      },
      sender_account: { id: mailbox, name: 'Carol mailbox', type: 'EMAIL' },
      last_message: { text: 'Hello 26', sent_by_lead: false, sent_at: sentAt[26] },
    });
    expect(first.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await chats(carol.key, first.body.next_cursor as string);
    expect(second.status, second.text).toBe(200);
    expect(second.body.chats.map((chat) => chat.id)).toEqual([ids[1], ids[0]]);
    expect(second.body.next_cursor).toBeNull();
    // Nothing of carol's shows to bob, and the other way round.
    expect((await chats(bob.key)).body).toEqual({ success: true, chats: [], next_cursor: null });
    expect((await chats(world.ws.key)).body.chats.map((chat) => chat.id).filter((id) => ids.includes(id))).toEqual([]);
    const foreign = await messages(ids[0] as number, world.ws.key);
    expect([foreign.status, foreign.body]).toEqual([404, { error: 'Prospect not found' }]);
    // A cursor is the service's own: anything else is a 400, as is a messages cursor on the chat list.
    const messageCursor = Buffer.from(`MSG#${sentAt[0]}#trk_1`).toString('base64url');
    for (const cursor of ['not a cursor!', Buffer.from('garbage').toString('base64url'), messageCursor]) {
      const bad = await chats(carol.key, cursor);
      expect([bad.status, bad.body], cursor).toEqual([400, { error: 'cursor is not valid' }]);
    }
    const badMessages = await messages(ids[0] as number, carol.key, first.body.next_cursor as string);
    expect([badMessages.status, badMessages.body]).toEqual([400, { error: 'cursor is not valid' }]);
  });

  it('keeps a campaign’s emails and network messages and the prospect’s replies in one conversation, oldest first, and answers on its channel', async () => {
    const { stack } = world;
    const campaign = await campaignWith(
      world,
      'Inbox',
      [
        { step_type: 'EMAIL', subject_line: 'Hello {{first_name}}', message_template: '<p>Hi {{first_name}}</p>' },
        { step_type: 'NETWORK_MESSAGE', message_template: 'Hi again {{first_name}}', delay_in_hours: 1 },
      ],
      everyDay,
    );
    const [ada] = (await prospectsIn(world, campaign.id, [{ first_name: 'Ada', email: 'ada@inbox.example', network_profile_url: 'https://www.linkedin.com/in/inbox-ada' }])) as [number];
    await stack.provider.control.setProfile('inbox-ada', { network_distance: 'FIRST_DEGREE' });
    const emailAt = now();
    await activate(world, campaign.id);
    const email = await lastSent();
    expect(email).toEqual(expect.objectContaining({ kind: 'email', to: 'ada@inbox.example', subject: 'Hello Ada' }));
    await advance(stack, clock, 1);
    const networkAt = now();
    const network = await lastSent();
    expect(network).toEqual(expect.objectContaining({ kind: 'chat', text: 'Hi again Ada' }));
    clock.advance(30 * 60_000);
    const emailReplyAt = now();
    const emailReply = await stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', from: 'ada@inbox.example', channel: 'EMAIL', text: 'Tell me more', subject: 'Re: Hello Ada' });
    clock.advance(30 * 60_000);
    const networkReplyAt = now();
    const networkReply = await stack.provider.control.reply({ account_id: 'sbx-network-dev', from: 'inbox-ada', text: 'Sounds good' });
    expect(networkReply.chat_id).toBe(network?.chatId);

    const conversation = await messages(ada);
    expect(conversation.status, conversation.text).toBe(200);
    const ours = { kind: 'MESSAGE', sent_by_lead: false, campaign_id: campaign.id };
    const theirs = { kind: 'MESSAGE', sent_by_lead: true, campaign_id: campaign.id };
    expect(conversation.body).toEqual({
      success: true,
      messages: [
        { ...ours, id: email?.trackingId, channel: 'EMAIL', text: 'Hi Ada', subject_line: 'Hello Ada', sender_account_id: world.mailbox, sent_at: emailAt },
        { ...ours, id: network?.messageId, channel: 'NETWORK', text: 'Hi again Ada', subject_line: null, sender_account_id: world.network, sent_at: networkAt },
        { ...theirs, id: emailReply.message_id, channel: 'EMAIL', text: 'Tell me more', subject_line: 'Re: Hello Ada', sender_account_id: world.mailbox, sent_at: emailReplyAt },
        { ...theirs, id: networkReply.message_id, channel: 'NETWORK', text: 'Sounds good', subject_line: null, sender_account_id: world.network, sent_at: networkReplyAt },
      ],
      next_cursor: null,
    });
    const listed = (await chats(world.ws.key)).body.chats[0];
    expect(listed).toEqual(
      expect.objectContaining({
        id: ada,
        channel: 'NETWORK',
        prospect: expect.objectContaining({ id: ada, first_name: 'Ada', status: 'REPLIED', campaign_id: campaign.id }),
        sender_account: { id: world.network, name: 'Sandbox network account', type: 'NETWORK' },
        last_message: { text: 'Sounds good', sent_by_lead: true, sent_at: networkReplyAt },
      }),
    );

    // The newest message is on the network: the answer goes into that chat, HTML stripped (a `<`
    // that opens no tag is text: before 2026-11-29 `< 5k, >` was cut out as a tag).
    clock.advance(60_000);
    const onNetwork = await send(ada, { message: '<p>Great, <b>Tuesday</b> at 10? Budget < 5k, timeline > 3 months</p>' });
    expect(onNetwork.status, onNetwork.text).toBe(201);
    const posted = await lastSent();
    expect(posted).toEqual({ kind: 'message', accountId: 'sbx-network-dev', to: network?.chatId, text: 'Great, Tuesday at 10? Budget < 5k, timeline > 3 months', at: now(), chatId: network?.chatId, messageId: expect.any(String) });
    expect(onNetwork.body).toEqual({
      success: true,
      message: { ...ours, campaign_id: null, id: posted?.messageId, channel: 'NETWORK', text: 'Great, Tuesday at 10? Budget < 5k, timeline > 3 months', subject_line: null, sender_account_id: world.network, sent_at: now() },
    });
    // The same mailbox can answer on email when asked to: threaded on her last email, "Re:" kept once.
    clock.advance(60_000);
    const wrongChannel = await send(ada, { message: 'Hi', sender_account_id: world.mailbox });
    expect([wrongChannel.status, wrongChannel.body]).toEqual([400, { error: "sender_account_id must be an account of the conversation's channel (NETWORK)" }]);
    expect((await messages(ada)).body.messages.map((message) => message.text)).toEqual(['Hi Ada', 'Hi again Ada', 'Tell me more', 'Sounds good', 'Great, Tuesday at 10? Budget < 5k, timeline > 3 months']);
  });

  it('answers an email conversation through its mailbox, threaded on the prospect’s last email', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Inbox email', [{ step_type: 'EMAIL', subject_line: 'Question for {{first_name}}' }], everyDay);
    const [eve] = (await prospectsIn(world, campaign.id, [{ first_name: 'Eve', last_name: 'Adams', email: 'eve@inbox.example' }])) as [number];
    await activate(world, campaign.id);
    clock.advance(60_000);
    const reply = await stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', from: 'eve@inbox.example', channel: 'EMAIL', text: 'Maybe', subject: 'Re: Question for Eve' });
    clock.advance(60_000);
    const sent = await send(eve, { message: 'Thanks!\nTalk soon' });
    expect(sent.status, sent.text).toBe(201);
    const mail = await lastSent();
    expect(mail).toEqual(
      expect.objectContaining({ kind: 'email', accountId: 'sbx-mailbox-dev', to: 'eve@inbox.example', subject: 'Re: Question for Eve', text: 'Thanks!<br>Talk soon', replyTo: reply.message_id, at: now() }),
    );
    expect(sent.body).toEqual({
      success: true,
      message: {
        id: mail?.trackingId,
        channel: 'EMAIL',
        kind: 'MESSAGE',
        sent_by_lead: false,
        text: 'Thanks!\nTalk soon',
        subject_line: 'Re: Question for Eve',
        sender_account_id: world.mailbox,
        campaign_id: null,
        sent_at: now(),
      },
    });
    const conversation = (await messages(eve)).body.messages;
    expect(conversation.map((message) => [message.channel, message.sent_by_lead, message.text])).toEqual([
      ['EMAIL', false, 'Hi Eve'],
      ['EMAIL', true, 'Maybe'],
      ['EMAIL', false, 'Thanks!\nTalk soon'],
    ]);
    // A given subject wins; a provider failure is a 502 and leaves the conversation as it was.
    await stack.provider.control.addFault({ kind: 'status', status: 503, path: '/api/v1/emails', times: 1 });
    const failed = await send(eve, { message: 'Again', subject_line: 'Other subject' });
    expect([failed.status, failed.body]).toEqual([502, { error: 'The provider could not send the message', details: 'The provider answered HTTP 503 (errors/provider_error)' }]);
    expect((await messages(eve)).body.messages).toHaveLength(3);
    const again = await send(eve, { message: 'Again', subject_line: 'Other subject' });
    expect([again.status, (await lastSent())?.subject]).toEqual([201, 'Other subject']);
    // Plain text with an autolink and a lone <: sent escaped, shown in the conversation as written.
    const linked = await send(eve, { message: 'See <https://a.example/x>\nif 2<3' });
    expect([linked.status, (await lastSent())?.text, linked.body.message?.text]).toEqual([201, 'See &lt;https://a.example/x&gt;<br>if 2&lt;3', 'See <https://a.example/x>\nif 2<3']);
  });

  it('builds a manual email on the prospect’s last real email, not on an out-of-office that came after it', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Inbox ooo', [{ step_type: 'EMAIL', subject_line: 'Plans for {{first_name}}' }], everyDay);
    const [kate] = (await prospectsIn(world, campaign.id, [{ first_name: 'Kate', last_name: 'Moss', email: 'kate@inbox.example' }])) as [number];
    await activate(world, campaign.id);
    clock.advance(60_000);
    const reply = await stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', from: 'kate@inbox.example', channel: 'EMAIL', text: 'Interesting', subject: 'Re: Plans for Kate' });
    clock.advance(60_000);
    await stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', from: 'kate@inbox.example', channel: 'EMAIL', text: 'I am out until Monday', kind: 'auto_reply' });
    clock.advance(60_000);
    const sent = await send(kate, { message: 'Great, talk Tuesday?' });
    expect(sent.status, sent.text).toBe(201);
    expect(await lastSent()).toEqual(expect.objectContaining({ kind: 'email', to: 'kate@inbox.example', subject: 'Re: Plans for Kate', replyTo: reply.message_id }));
    expect((await messages(kate)).body.messages.map((message) => [message.kind, message.sent_by_lead, message.text])).toEqual([
      ['MESSAGE', false, 'Hi Kate'],
      ['MESSAGE', true, 'Interesting'],
      ['AUTO_REPLY', true, 'I am out until Monday'],
      ['MESSAGE', false, 'Great, talk Tuesday?'],
    ]);
  });

  it('starts a conversation by email when the prospect has one, else on the network with a new chat', async () => {
    const list = await createList(world.stack, world.ws, 'Fresh');
    const [withEmail, networkOnly] = (
      await importLeads(world.stack, world.ws, list.id, {
        leads: [
          { first_name: 'Fresh', last_name: 'Mail', email: 'fresh@inbox.example' },
          { first_name: 'Fresh', last_name: 'Net', network_profile_url: 'https://www.linkedin.com/in/fresh-net' },
        ],
      })
    ).leads.map((lead) => lead.id) as [number, number];
    const noSubject = await send(withEmail, { message: 'Hello' });
    expect([noSubject.status, noSubject.body]).toEqual([400, { error: 'subject_line is required for a first email to a prospect' }]);
    const mailed = await send(withEmail, { message: 'Hello', subject_line: 'First contact' });
    expect([mailed.status, mailed.body.message?.channel, (await lastSent())?.replyTo]).toEqual([201, 'EMAIL', undefined]);
    // A subject is one line: a line break would start a header of its own.
    const injected = await send(withEmail, { message: 'Again', subject_line: 'Again\r\nBcc: evil@inbox.example\u0000' });
    expect([injected.status, injected.body.message?.subject_line, (await lastSent())?.subject]).toEqual([201, 'Again Bcc: evil@inbox.example', 'Again Bcc: evil@inbox.example']);
    await world.stack.provider.control.setProfile('fresh-net', { network_distance: 'FIRST_DEGREE' });
    const messaged = await send(networkOnly, { message: 'Hello <i>there</i>' });
    expect(messaged.status, messaged.text).toBe(201);
    const chat = await lastSent();
    expect(chat).toEqual(expect.objectContaining({ kind: 'chat', accountId: 'sbx-network-dev', text: 'Hello there' }));
    expect(messaged.body.message).toEqual(expect.objectContaining({ id: chat?.messageId, channel: 'NETWORK', text: 'Hello there' }));
    // Her answer in that chat finds her.
    clock.advance(60_000);
    const answer = await world.stack.provider.control.reply({ account_id: 'sbx-network-dev', from: 'fresh-net', text: 'Hi!' });
    expect(answer.chat_id).toBe(chat?.chatId);
    expect((await messages(networkOnly)).body.messages.map((message) => [message.sent_by_lead, message.text])).toEqual([
      [false, 'Hello there'],
      [true, 'Hi!'],
    ]);
    // A workspace with no account to send through.
    const bobsList = await createList(world.stack, bob, 'No accounts');
    const [nobody] = (await importLeads(world.stack, bob, bobsList.id, { leads: [person(801, { email: 'nobody@inbox.example' })] })).leads.map((lead) => lead.id) as [number];
    const none = await send(nobody, { message: 'Hello' }, bob.key);
    expect([none.status, none.body]).toEqual([
      400,
      {
        error:
          'No way to reach this prospect: it needs an email and the workspace an active mailbox, or a network profile URL and the workspace an active network account',
      },
    ]);
  });

  it('reads every character reference of a manual message, and never cuts the summary inside an emoji', async () => {
    const list = await createList(world.stack, world.ws, 'References');
    const [id] = (await importLeads(world.stack, world.ws, list.id, { leads: [person(802, { network_profile_url: 'https://www.linkedin.com/in/refs-one' })] })).leads.map(
      (lead) => lead.id,
    ) as [number];
    await world.stack.provider.control.setProfile('refs-one', { network_distance: 'FIRST_DEGREE' });
    const decoded = await send(id, { message: '<p>Caf&eacute; &#233; &#x41; &lt;tag&gt; &euro;</p>' });
    expect([decoded.status, decoded.body.message?.text, (await lastSent())?.text]).toEqual([201, 'Café é A <tag> €', 'Café é A <tag> €']);

    // 499 units, then an emoji (two): the summary's 500 would end inside it.
    clock.advance(60_000);
    const long = `${'a'.repeat(499)}😀 tail`;
    expect((await send(id, { message: long })).status).toBe(201);
    const listed = (await chats(world.ws.key)).body.chats.find((chat) => chat.prospect.id === id);
    expect(listed?.last_message.text).toBe('a'.repeat(499));
    expect((await messages(id)).body.messages.at(-1)?.text).toBe(long);
  });

  it('refuses a manual email to a suppressed address, like every email the engine sends', async () => {
    const list = await createList(world.stack, world.ws, 'Suppressed');
    const [id] = (await importLeads(world.stack, world.ws, list.id, { leads: [person(901, { email: 'Gone@Suppressed.example' })] })).leads.map((lead) => lead.id) as [number];
    const added = await world.stack.call('POST', '/public/suppressions/', { apiKey: world.ws.key, body: { domains: ['suppressed.example'] } });
    expect(added.status, added.text).toBe(200);
    const before = (await sandboxSent(world.stack)).length;
    const response = await send(id, { message: 'Hello', subject_line: 'Still there?' });
    expect([response.status, response.body]).toEqual([
      400,
      { error: "The prospect's email address is on this workspace's suppression list (unsubscribed or bounced); remove it there to write to it" },
    ]);
    expect((await sandboxSent(world.stack)).length).toBe(before);
  });

  it.each([
    [{ message: '   ' }, 'message is required'],
    [{}, 'message is required'],
    [{ message: null }, 'message is required'],
    [{ message: 7 }, 'message must be a string'],
    [{ message: 'Hi', sender_account_id: 987654321 }, 'sender_account_id must be an active account of this workspace'],
    [{ message: 'Hi', sender_account_id: 'one' }, 'sender_account_id must be a positive integer'],
    [{ message: 'Hi', cc: 'x@example.com' }, 'cc is not a field of a message (fields: message, subject_line, sender_account_id)'],
  ])('refuses %j with 400 "%s"', async (body, error) => {
    const list = await createList(world.stack, world.ws, `Refused ${JSON.stringify(body)}`);
    const [id] = (await importLeads(world.stack, world.ws, list.id, { leads: [person(700 + Object.keys(body).length, { email: 'refused@inbox.example' })] })).leads.map((lead) => lead.id) as [number];
    const before = (await sandboxSent(world.stack)).length;
    const response = await send(id, body);
    expect([response.status, response.body]).toEqual([400, { error }]);
    expect((await sandboxSent(world.stack)).length).toBe(before);
  });

  it('refuses a network message with nothing but HTML, and keeps workspaces apart', async () => {
    const list = await createList(world.stack, world.ws, 'Apart');
    const [id] = (await importLeads(world.stack, world.ws, list.id, { leads: [person(800, { network_profile_url: 'https://www.linkedin.com/in/apart-one' })] })).leads.map(
      (lead) => lead.id,
    ) as [number];
    for (const message of ['<p> </p>', '\u0000', '\u200b', '<p>&#8203;</p>']) {
      const empty = await send(id, { message });
      expect([empty.status, empty.body], JSON.stringify(message)).toEqual([400, { error: 'message is required' }]);
    }
    const bobAccount = await world.stack.provider.control.createAccount({ id: 'sbx-network-bob', type: 'LINKEDIN', name: 'Bob network' });
    const registered = await world.stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: bob.key, body: { provider_account_id: bobAccount.id } });
    expect(registered.status, registered.text).toBe(201);
    const viaBobs = await send(id, { message: 'Hi', sender_account_id: registered.body.account.id });
    expect([viaBobs.status, viaBobs.body]).toEqual([400, { error: 'sender_account_id must be an active account of this workspace' }]);
    for (const response of [await send(id, { message: 'Hi' }, bob.key), await messages(id, bob.key), await send(987654321, { message: 'Hi' })]) {
      expect([response.status, response.body]).toEqual([404, { error: 'Prospect not found' }]);
    }
  });

  it('shows a prospect a running enrichment job holds as Loading…, as the lists do, and its status again once the job is done', async () => {
    const { stack } = world;
    const user = await signUp(stack);
    const erin: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await createCreditService({ credits: new DynamoCreditRepository(stack.db, stack.tableName), ids: new DynamoIdAllocator(stack.db, stack.tableName), clock }).grant(erin.workspaceId, 30, 'test grant');
    await stack.provider.control.createAccount({ id: 'sbx-mailbox-erin', type: 'MAIL', name: 'Erin mailbox' });
    const registered = await stack.call('POST', '/public/accounts/', { apiKey: erin.key, body: { provider_account_id: 'sbx-mailbox-erin' } });
    expect(registered.status, registered.text).toBe(201);
    const list = await createList(stack, erin, 'Inbox while enriching');
    const [held, other] = (
      await importLeads(stack, erin, list.id, { leads: [person(700, { email: 'held@example.com' }), person(701, { email: 'other@example.com' })] })
    ).leads.map((lead) => lead.id) as [number, number];
    for (const id of [held, other]) expect((await send(id, { message: 'Hello', subject_line: 'Enriching' }, erin.key)).status).toBe(201);
    const statuses = async () => Object.fromEntries((await chats(erin.key)).body.chats.map((chat) => [chat.id, chat.prospect.status]));
    expect(await statuses()).toEqual({ [held]: 'NEW', [other]: 'NEW' });

    // Async: the job holds the one prospect it takes (the first by id) until its worker has run.
    const started = await stack.call('POST', `/public/lead-lists/${list.id}/enrichment/`, { apiKey: erin.key, body: { enrichment_type: 'FIND_PHONE', prospect_limit: 1 } });
    expect([started.status, started.body.success], started.text).toEqual([200, true]);
    expect(await statuses()).toEqual({ [held]: 'Loading…', [other]: 'NEW' });
    // A running item that does not say its chunks are all written (a start cut off between its
    // debit and its chunks): the job itself is read, which the chats function is granted.
    await stack.db.send(
      new UpdateCommand({ TableName: stack.tableName, Key: enrichmentRunningKey(erin.workspaceId, started.body.job_id as number), UpdateExpression: 'REMOVE chunksWritten' }),
    );
    expect(await statuses()).toEqual({ [held]: 'Loading…', [other]: 'NEW' });
    await stack.drain('enrichment');
    expect(await statuses()).toEqual({ [held]: 'NEW', [other]: 'NEW' });
  });
});
