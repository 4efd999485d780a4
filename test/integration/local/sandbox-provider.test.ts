import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxProvider, startSandboxProvider } from '../../../infra/local/sandbox-provider';
import { ProviderFailure } from '../../../shared/domain/providers/provider';
import { UnipileProvider } from '../../../shared/providers/unipile-provider';
import { ManualClock } from '../../../shared/time/clock';
import { type Receiver, startReceiver } from '../../support/receiver';

const NETWORK = 'sbx-network-dev';
const MAILBOX = 'sbx-mailbox-dev';
const NOW = '2025-03-04T09:30:00.000Z';

/**
 * The sandbox provider on its own: its fault API (by HTTP status or by provider error type), the
 * provider's refusals of a second invitation, the ids it records for each send, and the
 * `mail_sent` webhook, all through the real adapter (and the provider's SDK) over HTTP.
 */
describe('sandbox provider', () => {
  let sandbox: SandboxProvider;
  let receiver: Receiver;
  let adapter: UnipileProvider;
  const clock = new ManualClock(NOW);

  /** The failure the adapter throws for a call, or a test failure when it succeeds. */
  const failureOf = async (call: Promise<unknown>): Promise<ProviderFailure> => {
    try {
      await call;
    } catch (error) {
      if (error instanceof ProviderFailure) return error;
      throw error;
    }
    throw new Error('the call succeeded');
  };
  const fields = (failure: ProviderFailure) => ({ kind: failure.kind, status: failure.status, type: failure.type, message: failure.message });

  const controlPost = async (path: string, body: unknown) => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  /** A multipart provider call the adapter does not make (custom headers, posting into a chat). */
  const providerForm = async (path: string, form: Record<string, string>) => {
    const data = new FormData();
    for (const [key, value] of Object.entries(form)) data.append(key, value);
    const response = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'X-API-KEY': sandbox.accessToken }, body: data });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const registerWebhook = async (source: string) => {
    const response = await fetch(`${sandbox.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'X-API-KEY': sandbox.accessToken, 'content-type': 'application/json' },
      body: JSON.stringify({
        request_url: `${receiver.url}/${source}`,
        source,
        name: `test-${source}`,
        headers: [
          { key: 'Content-Type', value: 'application/json' },
          { key: 'X-Webhook-Secret', value: 'shh' },
        ],
      }),
    });
    expect(response.status).toBe(201);
  };

  /** The JSON bodies the receiver got on `/<source>`, once there are `count` of them. */
  const deliveries = async (source: string, count: number): Promise<Record<string, unknown>[]> => {
    await expect.poll(() => receiver.requests.filter((request) => request.path === `/${source}`).length, { timeout: 5_000 }).toBe(count);
    return receiver.requests.filter((request) => request.path === `/${source}`).map((request) => JSON.parse(request.body));
  };

  const secondDegree = async (slug: string) => {
    await sandbox.control.setProfile(slug, { network_distance: 'SECOND_DEGREE' });
    return (await adapter.getProfile({ accountId: NETWORK, identifier: slug })).providerId;
  };
  const firstDegree = async (slug: string) => {
    await sandbox.control.setProfile(slug, { network_distance: 'FIRST_DEGREE' });
    return (await adapter.getProfile({ accountId: NETWORK, identifier: slug })).providerId;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await startSandboxProvider({ accessToken: 'sandbox-test-token', clock, webhookRetryDelaysMs: [20, 20] });
    adapter = new UnipileProvider({ baseUrl: sandbox.url, accessToken: sandbox.accessToken, timeoutMs: 2_000 });
    await registerWebhook('email');
    await registerWebhook('messaging');
  });
  afterAll(async () => {
    await sandbox?.stop();
    await receiver?.stop();
  });
  beforeEach(async () => {
    await sandbox.control.reset();
    receiver.reset();
  });

  describe('faults by provider error type', () => {
    it('answers the status and type given with kind status, through the real adapter', async () => {
      const providerId = await secondDegree('fault-by-type');
      const fault = await sandbox.control.addFault({
        kind: 'status',
        status: 401,
        type: 'errors/disconnected_account',
        method: 'POST',
        path: '/api/v1/users/invite',
        times: 1,
      });
      expect(fault).toEqual({
        kind: 'status',
        status: 401,
        type: 'errors/disconnected_account',
        method: 'POST',
        path: '/api/v1/users/invite',
        remaining: 1,
      });

      const failure = await failureOf(adapter.sendInvitation({ accountId: NETWORK, providerId }));
      expect(fields(failure)).toEqual({ kind: 'http', status: 401, type: 'errors/disconnected_account', message: 'Disconnected account' });
      // One call only: the next invitation goes through.
      expect(await adapter.sendInvitation({ accountId: NETWORK, providerId })).toEqual({ invitationId: expect.stringMatching(/^inv_[0-9a-f]{16}$/) });
    });

    it('answers the body the provider documents: {status, type, title, detail}', async () => {
      await sandbox.control.addFault({ kind: 'error', type: 'errors/limit_exceeded', path: '/api/v1/users/invite' });
      const response = await fetch(`${sandbox.url}/api/v1/users/invite`, {
        method: 'POST',
        headers: { 'X-API-KEY': sandbox.accessToken, 'content-type': 'application/json' },
        body: JSON.stringify({ account_id: NETWORK, provider_id: 'ACo1' }),
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({
        status: 422,
        type: 'errors/limit_exceeded',
        title: 'Limit exceeded',
        detail: 'Injected by a sandbox fault (HTTP 422)',
      });
    });

    it.each([
      ['errors/disconnected_account', 401, 'invite'],
      ['errors/invalid_credentials', 401, 'email'],
      ['errors/expired_credentials', 401, 'chat'],
      ['errors/account_restricted', 403, 'invite'],
      ['errors/feature_not_subscribed', 403, 'chat'],
      ['errors/limit_exceeded', 422, 'invite'],
      ['errors/already_invited_recently', 422, 'invite'],
      ['errors/cannot_resend_yet', 422, 'invite'],
      ['errors/insufficient_credits', 422, 'chat'],
      ['errors/not_allowed_inmail', 422, 'chat'],
      ['errors/invalid_recipient', 422, 'invite'],
      ['errors/cannot_invite_attendee', 422, 'invite'],
      ['errors/action_already_performed', 422, 'invite'],
      ['errors/blocked_recipient', 422, 'chat'],
      ['errors/no_connection_with_recipient', 422, 'chat'],
      ['errors/recipient_rejected', 422, 'email'],
      ['errors/sender_rejected', 422, 'email'],
      ['errors/resource_not_found', 404, 'email'],
      ['errors/too_many_requests', 429, 'chat'],
      ['errors/provider_error', 500, 'invite'],
      ['errors/service_unavailable', 503, 'email'],
      ['errors/request_timeout', 504, 'chat'],
    ] as const)('kind error answers %s with its documented HTTP %i (%s send)', async (type, status, send) => {
      const attendee = await firstDegree('error-kind');
      const path = { invite: '/api/v1/users/invite', chat: '/api/v1/chats', email: '/api/v1/emails' }[send];
      const fault = await sandbox.control.addFault({ kind: 'error', type, path, times: 1 });
      expect(fault).toEqual({ kind: 'error', type, status, path, remaining: 1 });
      const call = {
        invite: () => adapter.sendInvitation({ accountId: NETWORK, providerId: attendee }),
        chat: () => adapter.sendMessage({ accountId: NETWORK, attendeeProviderId: attendee, text: 'Hi' }),
        email: () => adapter.sendEmail({ accountId: MAILBOX, to: { email: 'pat@example.com' }, subject: 'S', htmlBody: '<p>B</p>' }),
      }[send];
      const failure = await failureOf(call());
      expect([failure.kind, failure.status, failure.type]).toEqual(['http', status, type]);
      expect((await sandbox.control.state()).sent).toEqual([]);
    });

    it('kind status with a type and no status answers the type’s documented status; without a type it is unchanged', async () => {
      await sandbox.control.addFault({ kind: 'status', type: 'errors/feature_not_subscribed', path: '/api/v1/users/', times: 1 });
      await sandbox.control.addFault({ kind: 'status', status: 404, path: '/api/v1/users/', times: 1 });
      await sandbox.control.addFault({ kind: 'status', path: '/api/v1/users/', times: 1 });
      await sandbox.control.addFault({ kind: 'status', status: 503, type: 'errors/made_up_by_a_test', path: '/api/v1/users/', times: 1 });
      const profile = () => adapter.getProfile({ accountId: NETWORK, identifier: 'status-kind' });
      expect(fields(await failureOf(profile()))).toEqual({
        kind: 'http',
        status: 403,
        type: 'errors/feature_not_subscribed',
        message: 'Feature not subscribed',
      });
      expect(fields(await failureOf(profile()))).toEqual({ kind: 'http', status: 404, type: 'errors/invalid_request', message: 'Sandbox fault' });
      expect(fields(await failureOf(profile()))).toEqual({ kind: 'http', status: 500, type: 'errors/provider_error', message: 'Sandbox fault' });
      expect(fields(await failureOf(profile()))).toEqual({ kind: 'http', status: 503, type: 'errors/made_up_by_a_test', message: 'Made up by a test' });
      expect((await profile()).publicIdentifier).toBe('status-kind');
    });

    it('counts times and keeps the method and path filters', async () => {
      const attendee = await firstDegree('times-count');
      await sandbox.control.addFault({ kind: 'error', type: 'errors/too_many_requests', method: 'POST', path: '/api/v1/chats', times: 2 });
      // Another method or path is not affected.
      expect((await adapter.getProfile({ accountId: NETWORK, identifier: 'times-count' })).networkDistance).toBe('FIRST_DEGREE');
      await adapter.sendEmail({ accountId: MAILBOX, to: { email: 'pat@example.com' }, subject: 'S', htmlBody: 'B' });

      const chat = () => adapter.sendMessage({ accountId: NETWORK, attendeeProviderId: attendee, text: 'Hi' });
      for (let i = 0; i < 2; i += 1) {
        expect(fields(await failureOf(chat()))).toEqual({ kind: 'http', status: 429, type: 'errors/too_many_requests', message: 'Too many requests' });
      }
      expect(await chat()).toEqual({ chatId: expect.stringMatching(/^chat_/), messageId: expect.stringMatching(/^msg_/) });
      const state = await sandbox.control.state();
      expect(state.faults).toEqual([]);
      expect(state.sent.map((item) => item.kind)).toEqual(['email', 'chat']);
    });

    it('refuses a fault it cannot answer (400 from the control API)', async () => {
      const invalid = (title: string) => ({ status: 400, body: { status: 400, type: 'errors/invalid_parameters', title } });
      expect(await controlPost('/_sandbox/faults', { kind: 'error', type: 'errors/not_a_provider_type' })).toEqual(
        invalid('Unknown provider error type errors/not_a_provider_type'),
      );
      expect(await controlPost('/_sandbox/faults', { kind: 'error' })).toEqual({
        status: 400,
        body: { status: 400, type: 'errors/missing_parameters', title: 'kind error needs a type' },
      });
      expect(await controlPost('/_sandbox/faults', { kind: 'error', type: 'errors/limit_exceeded', status: 500 })).toEqual(
        invalid('kind error picks the status: use kind status to choose one'),
      );
      expect(await controlPost('/_sandbox/faults', { kind: 'rate_limit', type: 'errors/limit_exceeded' })).toEqual(
        invalid('type goes with kind status or error'),
      );
      expect(await controlPost('/_sandbox/faults', { kind: 'status', status: 200 })).toEqual(invalid('status must be an HTTP status from 400 to 599'));
      expect(await controlPost('/_sandbox/faults', { kind: 'boom' })).toEqual(invalid('kind must be status, error, rate_limit, timeout or lost_answer'));
      expect(await controlPost('/_sandbox/faults', { kind: 'timeout', skip: -1 })).toEqual(invalid('skip must be an integer of at least 0'));
      expect((await sandbox.control.state()).faults).toEqual([]);
    });
  });

  describe('invitations', () => {
    it('answers 422 action_already_performed for a first-degree profile and already_invited_recently while one is pending', async () => {
      const connected = await firstDegree('already-connected');
      expect(fields(await failureOf(adapter.sendInvitation({ accountId: NETWORK, providerId: connected })))).toEqual({
        kind: 'http',
        status: 422,
        type: 'errors/action_already_performed',
        message: 'Action already performed',
      });

      const invitee = await secondDegree('pending-invitee');
      const { invitationId } = await adapter.sendInvitation({ accountId: NETWORK, providerId: invitee, message: 'Hello' });
      expect(fields(await failureOf(adapter.sendInvitation({ accountId: NETWORK, providerId: invitee })))).toEqual({
        kind: 'http',
        status: 422,
        type: 'errors/already_invited_recently',
        message: 'Already invited recently',
      });
      expect((await adapter.getProfile({ accountId: NETWORK, identifier: 'pending-invitee' })).invitationPending).toBe(true);
      // Another account may still invite the same person.
      const other = await sandbox.control.createAccount({ id: 'sbx-other-network', type: 'LINKEDIN' });
      expect(await adapter.sendInvitation({ accountId: other.id, providerId: invitee })).toEqual({ invitationId: expect.stringMatching(/^inv_/) });

      await sandbox.control.acceptInvitation(invitationId);
      expect((await adapter.getProfile({ accountId: NETWORK, identifier: 'pending-invitee' })).invitationPending).toBe(false);
      expect((await failureOf(adapter.sendInvitation({ accountId: NETWORK, providerId: invitee }))).type).toBe('errors/action_already_performed');

      const { sent } = await sandbox.control.state();
      expect(sent).toEqual([
        { kind: 'invitation', accountId: NETWORK, to: invitee, text: 'Hello', at: NOW, invitationId },
        { kind: 'invitation', accountId: other.id, to: invitee, text: '', at: NOW, invitationId: expect.stringMatching(/^inv_/) },
      ]);
    });
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
