import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookAttemptKey } from '../../../shared/db/keys';
import { DynamoWebhookDeliveryRepository, encodeAttemptCursor } from '../../../shared/db/webhook-repository';
import { SqsDeliveryQueue } from '../../../shared/messaging/sqs';
import type { EventPublisher } from '../../../shared/domain/webhooks/event-publisher';
import { type IncomingMessageData, sampleIncomingMessage } from '../../../shared/domain/webhooks/events';
import type { Receiver } from '../../support/receiver';
import { type SignedUpUser, type TestStack, signUp } from '../../support/test-stack';
import { headersOf, startDeliveryWorld } from './delivery-world';

type Attempt = { event_id: string; attempt: number; outcome: string };

/**
 * Sending again an event whose delivery was given up on (POST /user/webhook/deliveries/{event_id}/redeliver),
 * through the webhooks queue and its worker, with a retry schedule of 0 s, 0 s (three attempts).
 */
describe('a failed webhook delivery sent again on request', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let publisher: EventPublisher;
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let secret: string;

  const drain = () => stack.drain('webhooks');
  const publish = (text: string) => {
    const data = sampleIncomingMessage(0, new Date(), 'evt_x').data as IncomingMessageData;
    return publisher.publish(alice.workspaceId, 'incoming_message', `source-${text}`, { message: { ...data.message, message_id: `provider-${text}`, message: text } });
  };
  const redeliver = (user: SignedUpUser, eventId: string) => stack.call('POST', `/user/webhook/deliveries/${eventId}/redeliver/`, { token: user.token });
  const attemptsOf = async (eventId: string) =>
    (await stack.call<{ deliveries: Attempt[] }>('GET', '/user/webhook/deliveries/', { token: alice.token })).body.deliveries
      .filter((line) => line.event_id === eventId)
      .map((line) => [line.attempt, line.outcome]);

  beforeAll(async () => {
    ({ stack, receiver, publisher } = await startDeliveryWorld());
    alice = await signUp(stack);
    bob = await signUp(stack);
    const set = await stack.call('PUT', '/user/webhook/', { token: alice.token, body: { webhook_url: `${receiver.url}/alice` } });
    secret = String(set.body.signing_secret);
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });
  beforeEach(async () => {
    receiver.reset();
    await drain();
  });

  it('queues the event again with its attempts from the start, as often as they all fail, and delivers it once', async () => {
    receiver.setDefault({ status: 500, body: 'down' });
    const eventId = await publish('Still there?');
    await drain();
    const failedBody = receiver.requests[0]?.body;
    expect(receiver.requests).toHaveLength(3);

    // Given up on, and given up on again: each request starts the three attempts over.
    expect(await redeliver(alice, eventId)).toMatchObject({ status: 202, body: { success: true, event_id: eventId, message: 'Delivery queued: its attempts start over' } });
    await drain();
    expect(receiver.requests).toHaveLength(6);

    receiver.setDefault({ status: 200, body: 'ok' });
    const again = await redeliver(alice, eventId);
    expect([again.status, again.body]).toEqual([202, { success: true, event_id: eventId, message: 'Delivery queued: its attempts start over' }]);
    await drain();
    const delivered = receiver.requests[6];
    expect(receiver.requests).toHaveLength(7);
    expect(delivered?.headers['webhook-id']).toBe(eventId);
    // The same event, signed anew.
    expect(delivered?.body).toBe(failedBody);
    expect(new Webhook(secret).verify(delivered?.body ?? '', headersOf(delivered as never))).toMatchObject({ id: eventId, event: 'incoming_message' });
    expect(await attemptsOf(eventId)).toEqual([
      [1, 'delivered'],
      [3, 'http_error'],
      [2, 'http_error'],
      [1, 'http_error'],
      [3, 'http_error'],
      [2, 'http_error'],
      [1, 'http_error'],
    ]);

    // Delivered: nothing to send again.
    expect(await redeliver(alice, eventId)).toMatchObject({
      status: 409,
      body: { error: 'This delivery was delivered: only one whose attempts all failed can be sent again' },
    });
    await drain();
    expect(receiver.requests).toHaveLength(7);
  });

  it("answers 404 for an event that is no delivery of the caller's: unknown, malformed, or another user's", async () => {
    receiver.setDefault({ status: 500, body: 'down' });
    const eventId = await publish('Hello?');
    await drain();
    for (const [user, id] of [
      [alice, 'evt_0123456789abcdef'],
      [alice, 'not-an-event'],
      [bob, eventId],
    ] as const) {
      expect(await redeliver(user, id)).toMatchObject({ status: 404, body: { error: 'Delivery not found' } });
    }
    await drain();
    expect(receiver.requests).toHaveLength(3);
  });

  it('gives up on a delivery whose worker stopped during its last attempt, sends nothing blindly, and keeps it to be sent again', async () => {
    const repository = new DynamoWebhookDeliveryRepository(stack.db, stack.tableName);
    const eventId = 'evt_stopped_last_attempt';
    const message = sampleIncomingMessage(alice.userId, new Date(), eventId);
    // Three attempts claimed, none recorded: the worker of the last one stopped (its lease is over).
    const past = new Date(Date.now() - 60_000).toISOString();
    const leaseOver = new Date(Date.now() - 61_000).toISOString();
    for (const attempt of [1, 2, 3]) {
      const claim = { userId: alice.userId, eventId, eventType: 'incoming_message', now: past, leaseUntil: leaseOver, maxAttempts: 3, carrier: 'crashed' };
      expect(await repository.claim(claim)).toEqual({ kind: 'claimed', attempt });
    }
    // Still being attempted, as far as anyone can tell, until a worker finds it out of attempts.
    expect((await redeliver(alice, eventId)).status).toBe(409);

    // SQS hands the message out again: nothing is sent, the delivery is given up on.
    receiver.setDefault({ status: 200, body: 'ok' });
    await new SqsDeliveryQueue(stack.sqs, stack.queue('webhooks').queueUrl).enqueue([message]);
    await drain();
    expect(receiver.requests).toHaveLength(0);

    expect(await redeliver(alice, eventId)).toMatchObject({ status: 202, body: { success: true, event_id: eventId } });
    await drain();
    expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([eventId]);
    expect(await attemptsOf(eventId)).toEqual([[1, 'delivered']]);
  });

  it('forgets a delivery given up on more than 14 days ago and log lines over 30 days old, though DynamoDB has not deleted them yet', async () => {
    const repository = new DynamoWebhookDeliveryRepository(stack.db, stack.tableName);
    const daysAgo = (days: number, minutes = 0) => new Date(Date.now() - days * 86_400_000 + minutes * 60_000).toISOString();
    const giveUpAt = async (eventId: string, at: string) => {
      const message = sampleIncomingMessage(alice.userId, new Date(at), eventId);
      const claim = { userId: alice.userId, eventId, eventType: 'incoming_message', now: at, leaseUntil: at, maxAttempts: 1, carrier: `carrier-${eventId}` };
      expect(await repository.claim(claim)).toEqual({ kind: 'claimed', attempt: 1 });
      const attempt = { userId: alice.userId, eventId, eventType: 'incoming_message', attempt: 1, at, outcome: 'http_error' as const, statusCode: 500, error: 'HTTP 500', durationMs: 3, nextAttemptAt: null, test: false };
      await repository.complete({ userId: alice.userId, eventId, status: 'FAILED', attempt, message });
    };
    await giveUpAt('evt_given_up_15_days_ago', daysAgo(15));
    await giveUpAt('evt_given_up_13_days_ago', daysAgo(13));
    expect(await redeliver(alice, 'evt_given_up_15_days_ago')).toMatchObject({ status: 404, body: { error: 'Delivery not found' } });
    expect(await redeliver(alice, 'evt_given_up_13_days_ago')).toMatchObject({ status: 202 });
    await drain();

    for (const [eventId, at] of [
      ['evt_logged_31_days_ago', daysAgo(31)],
      ['evt_logged_29_days_ago', daysAgo(29)],
      ['evt_logged_30_days_ago_less_a_minute', daysAgo(30, 1)],
    ] as const) {
      await repository.recordAttempt({ userId: alice.userId, eventId, eventType: 'test', attempt: 1, at, outcome: 'delivered', statusCode: 200, error: null, durationMs: 1, nextAttemptAt: null, test: true });
    }
    const page = await stack.call<{ deliveries: Attempt[] }>('GET', '/user/webhook/deliveries/?limit=100', { token: alice.token });
    const logged = page.body.deliveries.map((line) => line.event_id).filter((id) => id.startsWith('evt_logged_') || id.startsWith('evt_given_up_'));
    // Newest first: the redelivery's attempt, then the lines of 13, 15, 29 and 30 days (less a minute) ago.
    expect(logged).toEqual(['evt_given_up_13_days_ago', 'evt_given_up_13_days_ago', 'evt_given_up_15_days_ago', 'evt_logged_29_days_ago', 'evt_logged_30_days_ago_less_a_minute']);
    // A page that ends the log exactly, at its limit, has no cursor (one to an empty page before 2026-11-29).
    const lines = page.body.deliveries.length;
    expect(lines).toBeLessThan(100);
    const exact = await stack.call<{ deliveries: Attempt[]; next_cursor: string | null }>('GET', `/user/webhook/deliveries/?limit=${lines}`, { token: alice.token });
    expect([exact.body.deliveries.length, exact.body.next_cursor]).toEqual([lines, null]);
    const short = await stack.call<{ deliveries: Attempt[]; next_cursor: string | null }>('GET', `/user/webhook/deliveries/?limit=${lines - 1}`, { token: alice.token });
    expect(short.body.next_cursor).toEqual(expect.any(String));
    // A cursor left at a line that has passed its 30 days since is the end of the log, not an error.
    const stale = encodeAttemptCursor(webhookAttemptKey(alice.userId, daysAgo(31), 'evt_logged_31_days_ago', 1).sk);
    const after = await stack.call('GET', `/user/webhook/deliveries/?cursor=${stale}`, { token: alice.token });
    expect([after.status, after.body]).toEqual([200, { success: true, deliveries: [], next_cursor: null }]);
  });

  it('refuses to send again an event that would go nowhere (no webhook URL): it stays given up on, and goes once a URL is set', async () => {
    receiver.setDefault({ status: 500, body: 'down' });
    const eventId = await publish('Nobody home?');
    await drain();
    expect(receiver.requests).toHaveLength(3);
    try {
      expect((await stack.call('PUT', '/user/webhook/', { token: alice.token, body: { webhook_url: null } })).status).toBe(200);
      for (let i = 0; i < 2; i += 1) {
        expect(await redeliver(alice, eventId)).toMatchObject({
          status: 409,
          body: { error: 'No webhook URL is configured: set one (PUT /api/v1/user/webhook/), then ask again' },
        });
      }
    } finally {
      await stack.call('PUT', '/user/webhook/', { token: alice.token, body: { webhook_url: `${receiver.url}/alice` } });
    }
    receiver.setDefault({ status: 200, body: 'ok' });
    expect(await redeliver(alice, eventId)).toMatchObject({ status: 202 });
    await drain();
    expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([eventId, eventId, eventId, eventId]);
    expect((await attemptsOf(eventId))[0]).toEqual([1, 'delivered']);
  });

  it('gives up on an event whose webhook URL was cleared between its attempts, as after its last attempt, and sends it once a URL is set again', async () => {
    receiver.setDefault({ status: 500, body: 'down' });
    const eventId = await publish('Cleared meanwhile?');
    expect(await stack.poller.pollOnce(stack.queue('webhooks'))).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    try {
      expect((await stack.call('PUT', '/user/webhook/', { token: alice.token, body: { webhook_url: null } })).status).toBe(200);
      await drain();
      expect(receiver.requests).toHaveLength(1);
      expect(await attemptsOf(eventId)).toEqual([
        [2, 'skipped'],
        [1, 'http_error'],
      ]);
      expect(await redeliver(alice, eventId)).toMatchObject({
        status: 409,
        body: { error: 'No webhook URL is configured: set one (PUT /api/v1/user/webhook/), then ask again' },
      });
    } finally {
      await stack.call('PUT', '/user/webhook/', { token: alice.token, body: { webhook_url: `${receiver.url}/alice` } });
    }
    // Every message of the dead-letter queue (earlier tests' too), each received once.
    const dead: string[] = [];
    for (;;) {
      const received = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.queue('webhooks').dlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 300 }));
      if (!received.Messages?.length) break;
      dead.push(...received.Messages.map((message) => message.Body ?? ''));
    }
    expect(dead.filter((body) => body.includes(eventId))).toHaveLength(1);

    // Before 2026-11-29 it was skipped for good: 409 "This delivery was not sent ...".
    receiver.setDefault({ status: 200, body: 'ok' });
    expect(await redeliver(alice, eventId)).toMatchObject({ status: 202 });
    await drain();
    expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect((await attemptsOf(eventId))[0]).toEqual([1, 'delivered']);
  });

  it('disables the webhook when its endpoint answers 410 Gone: no retry, nothing sent until the URL is set again, then the event can be sent again', async () => {
    const url = `${receiver.url}/alice`;
    receiver.setDefault({ status: 410, body: 'gone' });
    const eventId = await publish('Gone for good?');
    await drain();
    expect(receiver.requests).toHaveLength(1);
    expect((await stack.call<{ deliveries: Attempt[] }>('GET', '/user/webhook/deliveries/', { token: alice.token })).body.deliveries[0]).toMatchObject({
      event_id: eventId,
      attempt: 1,
      outcome: 'http_error',
      status_code: 410,
      error: 'HTTP 410: the endpoint is gone, the webhook is disabled until its URL is set again',
      next_attempt_at: null,
    });
    const shown = await stack.call('GET', '/user/webhook/', { token: alice.token });
    expect(shown.body).toMatchObject({
      webhook_url: url,
      disabled_at: shown.body.updated_at,
      disabled_reason: 'The endpoint answered 410 Gone: no event is sent to it until its URL is set again (PUT /api/v1/user/webhook/)',
    });

    receiver.setDefault({ status: 200, body: 'ok' });
    const unsent = await publish('Still there after the 410?');
    await drain();
    expect(receiver.requests).toHaveLength(1);
    expect(await attemptsOf(unsent)).toEqual([]);
    expect(await redeliver(alice, eventId)).toMatchObject({
      status: 409,
      body: { error: 'Your webhook is disabled since its endpoint answered 410 Gone: set its URL again (PUT /api/v1/user/webhook/), then ask again' },
    });
    // The test send still goes, so the user can see the endpoint is back; it enables nothing.
    expect((await stack.call('POST', '/user/webhook/test/', { token: alice.token })).status).toBe(200);
    expect((await stack.call('GET', '/user/webhook/', { token: alice.token })).body).toMatchObject({ disabled_at: shown.body.updated_at });

    // Setting the same URL again enables it.
    expect((await stack.call('PUT', '/user/webhook/', { token: alice.token, body: { webhook_url: url } })).status).toBe(200);
    expect((await stack.call('GET', '/user/webhook/', { token: alice.token })).body).toMatchObject({ webhook_url: url, disabled_at: null, disabled_reason: null });
    expect(await redeliver(alice, eventId)).toMatchObject({ status: 202 });
    await drain();
    expect(receiver.requests.slice(2).map((request) => request.headers['webhook-id'])).toEqual([eventId]);
    expect((await attemptsOf(eventId))[0]).toEqual([1, 'delivered']);
  });

  it('keeps a delivery sent again on request whose webhook URL is cleared before its first new attempt, to be sent again later', async () => {
    receiver.setDefault({ status: 500, body: 'down' });
    const eventId = await publish('Cleared after asking?');
    await drain();
    expect(receiver.requests).toHaveLength(3);
    expect(await redeliver(alice, eventId)).toMatchObject({ status: 202 });
    try {
      expect((await stack.call('PUT', '/user/webhook/', { token: alice.token, body: { webhook_url: null } })).status).toBe(200);
      await drain();
      expect(receiver.requests).toHaveLength(3);
      // Given up on and kept (before 2026-11-29 it was skipped, and could never be sent again).
      expect((await attemptsOf(eventId))[0]).toEqual([1, 'skipped']);
    } finally {
      await stack.call('PUT', '/user/webhook/', { token: alice.token, body: { webhook_url: `${receiver.url}/alice` } });
    }
    receiver.setDefault({ status: 200, body: 'ok' });
    expect(await redeliver(alice, eventId)).toMatchObject({ status: 202 });
    await drain();
    expect(receiver.requests).toHaveLength(4);
    expect((await attemptsOf(eventId))[0]).toEqual([1, 'delivered']);
  });

  it('refuses a delivery still being attempted (409); a reopen whose message could not be queued is undone, and can be asked again', async () => {
    const repository = new DynamoWebhookDeliveryRepository(stack.db, stack.tableName);
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 60_000).toISOString();
    const claim = { userId: alice.userId, eventId: 'evt_pending_one', eventType: 'incoming_message', now, leaseUntil: later, maxAttempts: 3, carrier: 'm1' };
    expect(await repository.claim(claim)).toEqual({ kind: 'claimed', attempt: 1 });
    expect(await redeliver(alice, 'evt_pending_one')).toMatchObject({
      status: 409,
      body: { error: 'This delivery is still being attempted: only one whose attempts all failed can be sent again' },
    });

    receiver.setDefault({ status: 500, body: 'down' });
    const eventId = await publish('Anyone?');
    await drain();
    const reopened = await repository.reopen({ userId: alice.userId, eventId, now });
    expect(reopened).toMatchObject({ kind: 'reopened', message: { event_id: eventId, user_id: alice.userId, type: 'incoming_message' } });
    expect(await repository.reopen({ userId: alice.userId, eventId, now })).toEqual({ kind: 'not_failed', status: 'PENDING' });
    await repository.restoreFailed({ userId: alice.userId, eventId, reopenedAt: now });
    expect(await repository.reopen({ userId: alice.userId, eventId, now: later })).toEqual(reopened);
  });
});
