import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { aTimestamp, anId } from '../../support/formats';
import { type Receiver, startReceiver } from '../../support/receiver';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';
import { createList, importLeads } from '../leads/helpers';
import { headersOf } from './delivery-world';
import { MAX_INBOUND_TEXT_LENGTH } from '../../../functions/http/provider-webhooks/provider-events';

/** A reply's `message` as delivered: a stored message id, timestamps by format, no campaign. */
const replyMessage = (fields: Record<string, unknown>) => ({
  id: anId(),
  sent_by_lead: true,
  channel: 'NETWORK',
  sent_at: aTimestamp(),
  created_at: aTimestamp(),
  updated_at: aTimestamp(),
  campaign: null,
  ...fields,
});

/** Alice's prospect (every field of her import) as a reply's lead. */
const aliceLead = (id: number) => ({
  id,
  first_name: 'Reply',
  last_name: 'Person',
  profile_picture_url: 'https://example.com/reply.jpg',
  network_profile_url: 'https://www.linkedin.com/in/reply-person',
  network_public_id: 'reply-person',
  job_title: 'Head of Sales',
  industry: 'SaaS',
  headline: 'Helping teams close more deals',
  email: 'reply@example.com',
  phone_number: '+1 555 0100',
  location: 'Amsterdam, NL',
  status: 'NEW',
  company: {
    id: anId(),
    name: 'Acme Inc',
    network_url: '',
    logo_url: '',
    website_url: 'https://acme.example',
    location: '',
    industry: '',
    revenue: '',
    amount_of_employees: '',
  },
  custom_fields: { plan: 'pro' },
});

interface Workspace {
  user: SignedUpUser;
  key: string;
  workspaceId: number;
  secret: string;
  providerAccountId: string;
  ownUserId: string;
}

/**
 * A prospect's reply end to end: the sandbox provider posts `message_received` to our inbound
 * endpoint, which routes it to the webhooks queue; the worker (driven by hand) delivers it to the
 * users' receivers.
 */
describe('incoming_message from a provider reply', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let alice: Workspace;
  let bob: Workspace;
  let counter = 0;

  const queue = () => stack.queue('webhooks');
  const drain = (max?: number) => stack.drain('webhooks', max);
  /** Posts a provider webhook to our endpoint the way the provider does (shared secret header). */
  const inbound = (body: unknown) =>
    stack.call<{ success: boolean; handled: boolean }>('POST', '/webhooks/provider', {
      body,
      headers: { 'X-Webhook-Secret': String(stack.settings.providerWebhookSecret) },
    });
  /** A message_received payload in the provider's shape (providers.md §1.8). */
  const messageReceived = (workspace: Workspace, overrides: Record<string, unknown> = {}, senderSlug = 'reply-person') => {
    counter += 1;
    const sender = {
      attendee_id: `att_${counter}`,
      attendee_name: 'Reply Person',
      attendee_provider_id: `ACo-${senderSlug}`,
      attendee_profile_url: `https://www.linkedin.com/in/${senderSlug}/`,
    };
    return {
      event: 'message_received',
      account_id: workspace.providerAccountId,
      account_type: 'LINKEDIN',
      account_info: { type: 'LINKEDIN', user_id: workspace.ownUserId },
      chat_id: `chat_${counter}`,
      timestamp: new Date().toISOString(),
      webhook_name: 'outreach-messaging',
      message_id: `msg_direct_${counter}`,
      message: `Direct message ${counter}`,
      sender,
      attendees: [sender],
      attachments: [],
      is_sender: false,
      ...overrides,
    };
  };

  const workspace = async (providerAccountId: string): Promise<Workspace> => {
    const user = await signUp(stack);
    const key = (await createKey(stack, user)).key;
    const registered = await stack.call('POST', '/public/accounts/', { apiKey: key, body: { provider_account_id: providerAccountId } });
    expect([200, 201]).toContain(registered.status);
    const hook = await stack.call('PUT', '/user/webhook/', { token: user.token, body: { webhook_url: `${receiver.url}/ws-${user.workspaceId}` } });
    expect(hook.status).toBe(200);
    const state = await stack.provider.control.state();
    const account = state.accounts.find((a) => a.id === providerAccountId) as unknown as { ownUserId?: string; own_user_id?: string };
    return {
      user,
      key,
      workspaceId: user.workspaceId,
      secret: String(hook.body.signing_secret),
      providerAccountId,
      ownUserId: String(account?.ownUserId ?? account?.own_user_id ?? ''),
    };
  };
  const requestsOf = (ws: Workspace) => receiver.requests.filter((request) => request.path === `/ws-${ws.workspaceId}`);
  const payloadOf = (ws: Workspace, index = 0) => {
    const request = requestsOf(ws)[index];
    if (!request) throw new Error('no request');
    return new Webhook(ws.secret).verify(request.body, headersOf(request as never)) as Record<string, unknown> & {
      id: string;
      message: Record<string, unknown> & { lead: Record<string, unknown> };
    };
  };

  let aliceProspectId: number;
  let bobProspectId: number;

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, settings: { webhookRetrySchedule: [0, 0], webhookTimeoutMs: 700 } });
    receiver = await startReceiver();
    alice = await workspace('sbx-network-dev');
    bob = await workspace((await stack.provider.control.createAccount({ type: 'LINKEDIN' })).id);

    // The same person in both workspaces; Alice's import spells the URL differently (canonicalised on import).
    const aliceList = await createList(stack, alice, 'Replies');
    const imported = await importLeads(stack, alice, aliceList.id, {
      leads: [
        {
          first_name: 'Reply',
          last_name: 'Person',
          network_profile_url: 'linkedin.com/in/Reply-Person?utm=x',
          email: 'reply@example.com',
          phone_number: '+1 555 0100',
          job_title: 'Head of Sales',
          location: 'Amsterdam, NL',
          headline: 'Helping teams close more deals',
          industry: 'SaaS',
          profile_picture_url: 'https://example.com/reply.jpg',
          custom_fields: { plan: 'pro' },
          company_name: 'Acme Inc',
          company_website_url: 'https://acme.example',
        },
      ],
    });
    aliceProspectId = Number(imported.leads[0]?.id);
    const bobList = await createList(stack, bob, 'Replies');
    bobProspectId = Number(
      (await importLeads(stack, bob, bobList.id, { leads: [{ first_name: 'Bob-side', last_name: 'Person', network_profile_url: 'https://www.linkedin.com/in/reply-person/' }] }))
        .leads[0]?.id,
    );
    expect(aliceProspectId).not.toBe(bobProspectId);
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });
  beforeEach(async () => {
    await drain();
    receiver.reset();
  });

  it('delivers one signed incoming_message with the prospect as lead when the prospect replies', async () => {
    const reply = await stack.provider.control.reply({ account_id: alice.providerAccountId, from: 'reply-person', text: 'Sounds good, call me' });
    expect(reply.deliveries.map((delivery) => delivery.status)).toEqual([200]);
    await drain();

    expect(requestsOf(alice)).toHaveLength(1);
    expect(requestsOf(bob)).toHaveLength(0);
    const payload = payloadOf(alice);
    expect(payload.event).toBe('incoming_message');
    expect(requestsOf(alice)[0]?.headers['webhook-id']).toBe(payload.id);
    expect(Object.keys(payload).sort()).toEqual(['created_at', 'event', 'id', 'message', 'workspace_id']);
    expect(payload.created_at).toEqual(aTimestamp());
    expect(payload.workspace_id).toBe(alice.workspaceId);
    expect(payload.message).toEqual(replyMessage({ message_id: reply.message_id, message: 'Sounds good, call me', lead: aliceLead(aliceProspectId) }));
  });

  it('delivers a reply whose text has characters SQS or its emulator refuse as they are (an emoji, U+FFFF)', async () => {
    const text = 'Thanks! 👍 see you \uffff then \ufffe 𝒜';
    const reply = await stack.provider.control.reply({ account_id: alice.providerAccountId, from: 'reply-person', text });
    expect(reply.deliveries.map((delivery) => delivery.status)).toEqual([200]);
    await drain();
    expect(requestsOf(alice)).toHaveLength(1);
    expect(payloadOf(alice).message.message).toBe(text);
  });

  it('takes a reply over the usual 256 KB body limit, and keeps its first 32,000 characters (it was a 400, which the provider does not retry: lost)', async () => {
    const text = `${'z'.repeat(299_999)}!`;
    const reply = await stack.provider.control.reply({ account_id: alice.providerAccountId, from: 'reply-person', text });
    expect(reply.deliveries.map((delivery) => delivery.status)).toEqual([200]);
    await drain();
    expect(requestsOf(alice)).toHaveLength(1);
    expect(payloadOf(alice).message.message).toBe(`${'z'.repeat(MAX_INBOUND_TEXT_LENGTH)}…`);
  });

  it('takes a provider webhook whose text holds an unpaired surrogate with U+FFFD in its place: never refused (the provider would retry it)', async () => {
    const raw = JSON.stringify(messageReceived(alice, { message: 'PLACEHOLDER' })).replace('PLACEHOLDER', 'broken \\ud800 text');
    const posted = await stack.call('POST', '/webhooks/provider', {
      rawBody: raw,
      headers: { 'Content-Type': 'application/json', 'X-Webhook-Secret': String(stack.settings.providerWebhookSecret) },
    });
    expect([posted.status, posted.body]).toEqual([200, { success: true, handled: true }]);
    await drain();
    expect(payloadOf(alice).message.message).toBe('broken \uFFFD text');
  });

  it('delivers a provider webhook posted twice once, with one message id', async () => {
    const body = messageReceived(alice);
    expect((await inbound(body)).body).toEqual({ success: true, handled: true });
    expect((await inbound(body)).body).toEqual({ success: true, handled: true });
    await drain();
    expect(requestsOf(alice)).toHaveLength(1);
    expect(payloadOf(alice).message).toEqual(
      replyMessage({ message_id: body.message_id, message: body.message, sent_at: body.timestamp, lead: aliceLead(aliceProspectId) }),
    );

    // The provider retrying later (after the delivery) does not deliver again either.
    expect((await inbound(body)).body).toEqual({ success: true, handled: true });
    await drain();
    expect(requestsOf(alice)).toHaveLength(1);
  });

  it('publishes a replayed reply with the created_at of its first receipt: one event id, one created_at', async () => {
    const body = messageReceived(alice);
    expect((await inbound(body)).body).toEqual({ success: true, handled: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await inbound(body)).body).toEqual({ success: true, handled: true });
    const { Messages = [] } = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: queue().queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
    const published = Messages.map((message) => JSON.parse(message.Body as string) as { event_id: string; user_id: number; created_at: string }).filter(
      (message) => message.user_id === alice.user.userId,
    );
    expect(published).toHaveLength(2);
    expect(new Set(published.map((message) => `${message.event_id} ${message.created_at}`)).size).toBe(1);
    await drain();
    expect(payloadOf(alice).created_at).toBe(published[0]?.created_at);
  });

  it('ignores a reply from someone who is not a prospect of the workspace: 200 handled false, nothing queued', async () => {
    expect((await inbound(messageReceived(alice, {}, 'a-stranger'))).body).toEqual({ success: true, handled: false });
    expect(await stack.poller.pollOnce(queue())).toBe(0);

    const viaSandbox = await stack.provider.control.reply({ account_id: alice.providerAccountId, from: 'another-stranger', text: 'Who is this?' });
    expect(viaSandbox.deliveries.map((delivery) => delivery.status)).toEqual([200]);
    expect(await stack.poller.pollOnce(queue())).toBe(0);
    expect(receiver.requests).toHaveLength(0);
  });

  it('ignores messages the account sent itself, and messages to accounts nobody registered', async () => {
    expect((await inbound(messageReceived(alice, { is_sender: true }))).body).toEqual({ success: true, handled: false });
    const own = messageReceived(alice);
    const fromSelf = { ...own, sender: { ...own.sender, attendee_provider_id: alice.ownUserId } };
    expect(alice.ownUserId).toMatch(/^ACoSELF[0-9a-f]{16}$/);
    expect((await inbound(fromSelf)).body).toEqual({ success: true, handled: false });
    expect((await inbound(messageReceived({ ...alice, providerAccountId: 'acc-nobody-registered' }))).body).toEqual({ success: true, handled: false });
    // A message_received in a shape we do not expect is acknowledged, never retried into a loop.
    const odd = await inbound({ event: 'message_received', account_id: alice.providerAccountId });
    expect([odd.status, odd.body]).toEqual([200, { success: true, handled: false }]);
    expect(await stack.poller.pollOnce(queue())).toBe(0);
    expect(receiver.requests).toHaveLength(0);
  });

  it("matches only the receiving account's workspace: the same URL in another workspace is another prospect", async () => {
    const reply = await stack.provider.control.reply({ account_id: bob.providerAccountId, from: 'reply-person', text: 'Hi Bob' });
    expect(reply.deliveries.map((delivery) => delivery.status)).toEqual([200]);
    await drain();
    expect(requestsOf(alice)).toHaveLength(0);
    expect(requestsOf(bob)).toHaveLength(1);
    expect(payloadOf(bob).message).toEqual(
      replyMessage({
        message_id: reply.message_id,
        message: 'Hi Bob',
        lead: {
          id: bobProspectId,
          first_name: 'Bob-side',
          last_name: 'Person',
          profile_picture_url: '',
          network_profile_url: 'https://www.linkedin.com/in/reply-person',
          network_public_id: 'reply-person',
          job_title: '',
          industry: '',
          headline: '',
          email: '',
          phone_number: '',
          location: '',
          status: 'NEW',
          company: null,
          custom_fields: {},
        },
      }),
    );
  });
  it('hands a reply whose handling failed to the inbound-retry queue, which handles it again until it goes through: delivered once', async () => {
    const webhooks = queue();
    const retries = stack.queue('inbound-retry');
    const { Attributes } = await stack.sqs.send(new GetQueueAttributesCommand({ QueueUrl: webhooks.queueUrl, AttributeNames: ['VisibilityTimeout', 'RedrivePolicy'] }));
    const webhooksGone = () => stack.sqs.send(new DeleteQueueCommand({ QueueUrl: webhooks.queueUrl }));
    const webhooksBack = () => stack.sqs.send(new CreateQueueCommand({ QueueName: webhooks.queueUrl.split('/').pop() as string, ...(Attributes ? { Attributes } : {}) }));
    const inFlight = async () =>
      Number((await stack.sqs.send(new GetQueueAttributesCommand({ QueueUrl: retries.queueUrl, AttributeNames: ['ApproximateNumberOfMessagesNotVisible'] }))).Attributes?.ApproximateNumberOfMessagesNotVisible);

    // The webhooks queue is gone for a moment: routing the reply fails where it publishes the event.
    await webhooksGone();
    const body = messageReceived(alice);
    const answered = await inbound(body);
    expect([answered.status, answered.body]).toEqual([200, { success: true, handled: false, queued: true }]);
    await webhooksBack();
    expect(await stack.drain('inbound-retry')).toBe(1);
    await drain();
    expect(requestsOf(alice)).toHaveLength(1);
    expect(payloadOf(alice).message).toEqual(
      replyMessage({ message_id: body.message_id, message: body.message, sent_at: body.timestamp, lead: aliceLead(aliceProspectId) }),
    );
    // Nothing left to retry, and the provider posting it again delivers nothing more.
    expect(await stack.drain('inbound-retry')).toBe(0);
    expect((await inbound(body)).body).toEqual({ success: true, handled: true });
    await drain();
    expect(requestsOf(alice)).toHaveLength(1);

    // Failing again on the retry, an event stays in the queue (a batch item failure) for the next
    // try after the visibility timeout (5 minutes), and past 12 receives goes to the dead-letter queue.
    await webhooksGone();
    expect((await inbound(messageReceived(alice))).body).toEqual({ success: true, handled: false, queued: true });
    expect(await stack.drain('inbound-retry')).toBe(1);
    expect(await inFlight()).toBe(1);
    await webhooksBack();
  });
});
