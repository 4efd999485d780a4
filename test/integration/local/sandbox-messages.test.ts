import { describe, expect, it } from 'vitest';
import type { SandboxProvider } from '../../../infra/local/sandbox-provider';
import { UnipileProvider } from '../../../shared/providers/unipile-provider';
import { ManualClock } from '../../../shared/time/clock';
import type { Receiver } from '../../support/receiver';
import { MAILBOX, NETWORK, NOW, failureOf, fields, sandboxHelpers, useSandboxWorld } from './sandbox-world';

/**
 * The sandbox provider's chats and messages (the ids it records for each send, lost answers,
 * replies) and the `mail_sent` webhook, through the real adapter over HTTP.
 */
describe('sandbox provider: chats, messages and mail_sent', () => {
  let sandbox: SandboxProvider;
  let receiver: Receiver;
  let adapter: UnipileProvider;
  const clock = new ManualClock(NOW);
  const { providerForm, deliveries, firstDegree } = sandboxHelpers(() => ({ sandbox, receiver, adapter }));

  useSandboxWorld(clock, (world) => {
    ({ sandbox, receiver, adapter } = world);
  });

  describe('chats and messages', () => {
    it('records the chat and message ids it answered, keeps one chat per pair, and posts into the account’s chat', async () => {
      const attendee = await firstDegree('chatty-person');
      const first = await adapter.sendMessage({ accountId: NETWORK, attendeeProviderId: attendee, text: 'Hello' });
      const again = await adapter.sendMessage({ accountId: NETWORK, attendeeProviderId: attendee, text: 'Hello again' });
      expect(again.chatId).toBe(first.chatId);
      expect(again.messageId).not.toBe(first.messageId);

      const posted = await providerForm(`/api/v1/chats/${first.chatId}/messages`, { text: 'Third', account_id: NETWORK });
      expect(posted).toEqual({ status: 201, body: { object: 'MessageSent', message_id: expect.stringMatching(/^msg_[0-9a-f]{16}$/) } });
      // No account_id: the chat's own account, not whichever account comes first.
      const other = await sandbox.control.createAccount({ id: 'sbx-other-network', type: 'LINKEDIN' });
      const otherChat = await adapter.sendMessage({ accountId: other.id, attendeeProviderId: attendee, text: 'From the other account' });
      expect(otherChat.chatId).not.toBe(first.chatId);
      const unguarded = await providerForm(`/api/v1/chats/${otherChat.chatId}/messages`, { text: 'Fourth' });
      expect(unguarded.status).toBe(201);

      const { sent } = await sandbox.control.state();
      expect(sent).toEqual([
        { kind: 'chat', accountId: NETWORK, to: attendee, text: 'Hello', at: NOW, chatId: first.chatId, messageId: first.messageId },
        { kind: 'chat', accountId: NETWORK, to: attendee, text: 'Hello again', at: NOW, chatId: first.chatId, messageId: again.messageId },
        { kind: 'message', accountId: NETWORK, to: first.chatId, text: 'Third', at: NOW, chatId: first.chatId, messageId: posted.body.message_id },
        {
          kind: 'chat',
          accountId: other.id,
          to: attendee,
          text: 'From the other account',
          at: NOW,
          chatId: otherChat.chatId,
          messageId: otherChat.messageId,
        },
        {
          kind: 'message',
          accountId: other.id,
          to: otherChat.chatId,
          text: 'Fourth',
          at: NOW,
          chatId: otherChat.chatId,
          messageId: unguarded.body.message_id,
        },
      ]);

      // account_id guards against another account's chat; a disconnected account cannot post.
      expect(await providerForm(`/api/v1/chats/${first.chatId}/messages`, { text: 'x', account_id: other.id })).toEqual({
        status: 403,
        body: { status: 403, type: 'errors/account_mismatch', title: 'Account mismatch', detail: 'The chat belongs to another account' },
      });
      await sandbox.control.setAccountStatus(other.id, 'CREDENTIALS');
      expect((await providerForm(`/api/v1/chats/${otherChat.chatId}/messages`, { text: 'x' })).body).toEqual({
        status: 401,
        type: 'errors/disconnected_account',
        title: 'Disconnected account',
        detail: 'The account must be reconnected',
      });
      expect((await sandbox.control.state()).sent).toHaveLength(5);
    });

    it('carries out a call with a lost_answer fault without answering, and shows the message in the chat for the adapter to find', async () => {
      const attendee = await firstDegree('lost-answer-person');
      await sandbox.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: 1 });
      const quick = new UnipileProvider({ baseUrl: sandbox.url, accessToken: sandbox.accessToken, timeoutMs: 200 });
      expect(fields(await failureOf(quick.sendMessage({ accountId: NETWORK, attendeeProviderId: attendee, text: 'Sent unanswered' })))).toEqual({
        kind: 'timeout',
        status: undefined,
        type: undefined,
        message: 'The provider did not answer within 200 ms',
      });
      const [sent] = (await sandbox.control.state()).sent.filter((item) => item.text === 'Sent unanswered');
      expect(sent).toMatchObject({ kind: 'chat', accountId: NETWORK, to: attendee, at: NOW });

      const chats = await fetch(`${sandbox.url}/api/v1/chat_attendees/${attendee}/chats?account_id=${NETWORK}`, { headers: { 'X-API-KEY': sandbox.accessToken } });
      expect(await chats.json()).toEqual({
        object: 'ChatList',
        items: [{ object: 'Chat', id: sent?.chatId, account_id: NETWORK, account_type: 'LINKEDIN', provider_id: sent?.chatId, attendee_provider_id: attendee, type: 0 }],
        cursor: null,
      });
      const messages = await fetch(`${sandbox.url}/api/v1/chats/${sent?.chatId}/messages?after=${NOW}`, { headers: { 'X-API-KEY': sandbox.accessToken } });
      expect(await messages.json()).toEqual({
        object: 'MessageList',
        items: [{ object: 'Message', id: sent?.messageId, chat_id: sent?.chatId, provider_id: sent?.messageId, account_id: NETWORK, sender_id: NETWORK, text: 'Sent unanswered', attachments: [], timestamp: NOW, is_sender: 1, seen: 0 }],
        cursor: null,
      });
      expect((await fetch(`${sandbox.url}/api/v1/chats/chat_unknown/messages`, { headers: { 'X-API-KEY': sandbox.accessToken } })).status).toBe(404);

      // The adapter finds it by its text (spacing and line breaks aside), from the time given on; not
      // another text, nor before a later time, nor for someone the account never wrote to.
      const search = { accountId: NETWORK, attendeeProviderId: attendee, text: ' Sent \r\n unanswered ', since: NOW };
      expect(await adapter.findSentMessage(search)).toEqual({ chatId: sent?.chatId, messageId: sent?.messageId });
      await sandbox.control.addFault({ kind: 'error', type: 'errors/resource_not_found', method: 'GET', path: '/api/v1/chat_attendees/', times: 1 });
      expect(await adapter.findSentMessage(search)).toBeUndefined();
      expect(await adapter.findSentMessage({ ...search, text: 'Something else' })).toBeUndefined();
      expect(await adapter.findSentMessage({ ...search, since: '2025-03-04T09:31:00.000Z' })).toBeUndefined();
      expect(await adapter.findSentMessage({ ...search, accountId: MAILBOX })).toBeUndefined();
    });

    it('makes a prospect reply in the chat the account started with them', async () => {
      const attendee = await firstDegree('replying-person');
      const { chatId } = await adapter.sendMessage({ accountId: NETWORK, attendeeProviderId: attendee, text: 'Hello' });
      const reply = await sandbox.control.reply({ account_id: NETWORK, from: 'replying-person', text: 'Hi back' });
      expect(reply.deliveries.map((delivery) => delivery.status)).toEqual([200]);
      const [event] = await deliveries('messaging', 1);
      expect(event?.chat_id).toBe(chatId);
    });
  });

  describe('mail_sent', () => {
    it('posts mail_sent to the email webhooks after the send, with the tracking id it answered and a Message-ID', async () => {
      const { trackingId } = await adapter.sendEmail({
        accountId: MAILBOX,
        to: { email: 'pat@example.com', name: 'Pat Doe' },
        subject: 'Quick question',
        htmlBody: '<p>Hi Pat,</p><p>Fish &amp; chips?</p>',
      });
      expect(trackingId).toMatch(/^trk_[0-9a-f]{16}$/);
      const [email] = (await sandbox.control.state()).sent;
      expect(email).toEqual({
        kind: 'email',
        accountId: MAILBOX,
        to: 'pat@example.com',
        toNames: ['Pat Doe'],
        subject: 'Quick question',
        text: '<p>Hi Pat,</p><p>Fish &amp; chips?</p>',
        at: NOW,
        messageId: expect.stringMatching(/^<[0-9a-f]{24}@sandbox\.local>$/),
        trackingId,
        emailId: expect.stringMatching(/^mail_[0-9a-f]{16}$/),
      });

      const [event] = await deliveries('email', 1);
      expect(event).toEqual({
        object: 'Mail',
        event: 'mail_sent',
        id: email?.emailId,
        email_id: email?.emailId,
        account_id: MAILBOX,
        date: NOW,
        from_attendee: { display_name: 'Sandbox mailbox', identifier: 'sbx-mailbox-dev@sandbox.example', identifier_type: 'EMAIL_ADDRESS' },
        to_attendees: [{ display_name: 'Pat Doe', identifier: 'pat@example.com', identifier_type: 'EMAIL_ADDRESS' }],
        cc_attendees: [],
        bcc_attendees: [],
        reply_to_attendees: [],
        subject: 'Quick question',
        body: '<p>Hi Pat,</p><p>Fish &amp; chips?</p>',
        body_plain: 'Hi Pat,\nFish & chips?',
        provider_id: expect.stringMatching(/^prv_[0-9a-f]{16}$/),
        message_id: email?.messageId,
        tracking_id: trackingId,
        in_reply_to: null,
        has_attachments: false,
        attachments: [],
        read_date: null,
        is_complete: true,
        origin: 'unipile',
        role: 'sent',
        folders: ['SENT'],
        webhook_name: 'test-email',
      });
      const [request] = receiver.requests.filter((r) => r.path === '/email');
      expect([request?.method, request?.headers['content-type'], request?.headers['x-webhook-secret']]).toEqual(['POST', 'application/json', 'shh']);
    });

    it('threads a reply (reply_to: the email id) and records it', async () => {
      await adapter.sendEmail({ accountId: MAILBOX, to: { email: 'pat@example.com' }, subject: 'First', htmlBody: 'One' });
      const [first] = await deliveries('email', 1);
      const { trackingId } = await adapter.sendEmail({
        accountId: MAILBOX,
        to: { email: 'pat@example.com' },
        subject: 'Re: First',
        htmlBody: 'Two',
        replyTo: String(first?.email_id),
      });
      const [, second] = await deliveries('email', 2);
      expect([second?.tracking_id, second?.in_reply_to, second?.to_attendees]).toEqual([
        trackingId,
        { message_id: first?.message_id, id: first?.email_id },
        [{ display_name: 'pat@example.com', identifier: 'pat@example.com', identifier_type: 'EMAIL_ADDRESS' }],
      ]);
      expect(second?.message_id).not.toBe(first?.message_id);
      const [, item] = (await sandbox.control.state()).sent;
      expect([item?.replyTo, item?.trackingId, item?.messageId]).toEqual([first?.email_id, trackingId, second?.message_id]);
    });

    it('answers the send without waiting for the webhook, and retries a webhook that is not answered 200', async () => {
      receiver.plan({ status: 500 }, { status: 200 });
      await adapter.sendEmail({ accountId: MAILBOX, to: { email: 'pat@example.com' }, subject: 'S', htmlBody: 'B' });
      const [failed, retried] = await deliveries('email', 2);
      expect(retried).toEqual(failed);

      receiver.reset();
      receiver.plan({ status: 200, hang: true });
      // The adapter's bound is 2 s; the receiver never answers this delivery.
      const { trackingId } = await adapter.sendEmail({ accountId: MAILBOX, to: { email: 'pat@example.com' }, subject: 'S', htmlBody: 'B' });
      const [pending] = await deliveries('email', 1);
      expect(pending?.tracking_id).toBe(trackingId);
    });

    it('keeps custom headers and refuses the ones the provider does not allow', async () => {
      const ok = await providerForm('/api/v1/emails', {
        account_id: MAILBOX,
        to: JSON.stringify([{ identifier: 'pat@example.com' }]),
        subject: 'S',
        body: 'B',
        custom_headers: JSON.stringify([
          { name: 'X-Campaign', value: 'c-1' },
          { name: 'Reply-To', value: 'team@example.com' },
        ]),
      });
      expect(ok).toEqual({ status: 201, body: { object: 'EmailSent', tracking_id: expect.stringMatching(/^trk_/) } });
      const refused = await providerForm('/api/v1/emails', {
        account_id: MAILBOX,
        to: JSON.stringify([{ identifier: 'pat@example.com' }]),
        body: 'B',
        custom_headers: JSON.stringify([{ name: 'Subject', value: 'x' }]),
      });
      expect(refused).toEqual({
        status: 422,
        body: {
          status: 422,
          type: 'errors/invalid_headers',
          title: 'Invalid headers',
          detail: 'Header names start with X- or are Unscribe-List, Reply-To or Content-Type',
        },
      });
      const { sent } = await sandbox.control.state();
      expect(sent.map((item) => item.headers)).toEqual([
        [
          { name: 'X-Campaign', value: 'c-1' },
          { name: 'Reply-To', value: 'team@example.com' },
        ],
      ]);
    });
  });
});
