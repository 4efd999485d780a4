import { systemClock } from '../../../shared/time/clock';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoWorkspaceMembers } from '../../../shared/db/workspace-members';
import { type EventPublisher, createEventPublisher } from '../../../shared/domain/webhooks/event-publisher';
import { type IncomingMessageData, sampleIncomingMessage } from '../../../shared/domain/webhooks/events';
import { SqsDeliveryQueue } from '../../../shared/messaging/sqs';
import { aTimestamp } from '../../support/formats';
import { type Receiver, startReceiver } from '../../support/receiver';
import { SAMPLE_LEAD } from '../../support/sample-message';
import { headersOf, startDeliveryWorld } from './delivery-world';
import { type SignedUpUser, type TestStack, signUp, startTestStack } from '../../support/test-stack';

type Attempt = { event_id: string; attempt: number; outcome: string; status_code: number | null; next_attempt_at: string | null; test: boolean };

/** One line of the delivery log of a worker attempt; `attempted_at` and `duration_ms` by format. */
const logLine = (fields: Record<string, unknown>) => ({
  event_type: 'incoming_message',
  attempt: 1,
  error: null,
  duration_ms: expect.toSatisfy((value: unknown) => Number.isInteger(value) && (value as number) >= 0, 'a duration in ms'),
  attempted_at: aTimestamp(),
  next_attempt_at: null,
  test: false,
  ...fields,
});
/** With a schedule of 0 s the next attempt is due the moment the failed one ended. */
const endOf = (line: Record<string, unknown> | undefined) =>
  new Date(Date.parse(String(line?.attempted_at)) + Number(line?.duration_ms)).toISOString();

/**
 * The webhooks queue and its worker, driven by hand (the poller runs one batch per call), with
 * a retry schedule of 0 s, 0 s: three attempts, each immediately after the last.
 */
describe('webhook delivery worker', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let publisher: EventPublisher;
  let alice: SignedUpUser;
  let secret: string;
  let sourceCounter = 0;

  const queue = () => stack.queue('webhooks');
  const drain = (max?: number) => stack.drain('webhooks', max);
  const dlqBodies = async () => {
    const received = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: queue().dlqUrl, MaxNumberOfMessages: 10 }));
    return (received.Messages ?? []).map((message) => message.Body ?? '');
  };
  const reply = (text: string): IncomingMessageData => {
    const data = sampleIncomingMessage(0, new Date(), 'evt_x').data as IncomingMessageData;
    return { message: { ...data.message, id: 42, message_id: `provider-${text}`, message: text, campaign: { id: 7, name: 'Founders', status: 'ACTIVE' } } };
  };
  const publish = (user: SignedUpUser, text: string, sourceId?: string) => {
    sourceCounter += 1;
    return publisher.publish(user.workspaceId, 'incoming_message', sourceId ?? `source-${sourceCounter}`, reply(text));
  };
  const attempts = async (user: SignedUpUser) =>
    (await stack.call<{ deliveries: Attempt[] }>('GET', '/user/webhook/deliveries/', { token: user.token })).body.deliveries;
  const setUrl = async (user: SignedUpUser, url: string | null) => {
    const response = await stack.call('PUT', '/user/webhook/', { token: user.token, body: { webhook_url: url } });
    expect(response.status).toBe(200);
    return response.body.signing_secret as string | undefined;
  };

  beforeAll(async () => {
    ({ stack, receiver, publisher } = await startDeliveryWorld());
    alice = await signUp(stack);
    secret = String(await setUrl(alice, `${receiver.url}/alice`));
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });
  beforeEach(async () => {
    receiver.reset();
    await drain();
  });

  it('delivers a signed incoming_message with a stable event id, and logs it', async () => {
    const eventId = await publish(alice, 'Sounds good, call me');
    await drain();
    expect(receiver.requests.map((r) => r.path)).toEqual(['/alice']);
    const [request] = receiver.requests;
    expect(request?.path).toBe('/alice');
    expect(request?.headers['webhook-id']).toBe(eventId);
    const payload = new Webhook(secret).verify(request?.body ?? '', headersOf(request as never)) as Record<string, unknown>;
    expect(payload).toMatchObject({ id: eventId, event: 'incoming_message' });
    expect(Object.keys(payload).sort()).toEqual(['created_at', 'event', 'id', 'message', 'workspace_id']);
    const sentAt = (payload.message as { sent_at: string }).sent_at;
    expect(payload).toEqual({
      id: eventId,
      event: 'incoming_message',
      created_at: aTimestamp(),
      workspace_id: alice.workspaceId,
      message: {
        id: 42,
        message_id: 'provider-Sounds good, call me',
        message: 'Sounds good, call me',
        sent_by_lead: true,
        channel: 'NETWORK',
        sent_at: aTimestamp(),
        created_at: sentAt,
        updated_at: sentAt,
        campaign: { id: 7, name: 'Founders', status: 'ACTIVE' },
        lead: SAMPLE_LEAD,
      },
    });
    const [logged] = await attempts(alice);
    expect(logged).toEqual(logLine({ event_id: eventId, outcome: 'delivered', status_code: 200 }));
  });

  it('retries after a failure and succeeds, with the same id and body, each attempt signed', async () => {
    receiver.plan({ status: 503, body: 'busy' });
    const eventId = await publish(alice, 'Retry me');
    await drain();
    expect(receiver.requests.map((r) => r.path)).toEqual(['/alice', '/alice']);
    const [first, second] = receiver.requests;
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(second?.body).toBe(first?.body);
    for (const request of [first, second]) {
      expect(new Webhook(secret).verify(request?.body ?? '', headersOf(request as never))).toEqual(JSON.parse(request?.body ?? ''));
    }
    const log = (await attempts(alice)).filter((attempt) => attempt.event_id === eventId);
    expect(log.map((attempt) => [attempt.attempt, attempt.outcome, attempt.status_code])).toEqual([
      [2, 'delivered', 200],
      [1, 'http_error', 503],
    ]);
    expect(log).toEqual([
      logLine({ event_id: eventId, attempt: 2, outcome: 'delivered', status_code: 200 }),
      logLine({ event_id: eventId, attempt: 1, outcome: 'http_error', status_code: 503, error: 'HTTP 503', next_attempt_at: endOf(log[1]) }),
    ]);
  });

  it('waits for the Retry-After a receiver asks for before its next attempt', async () => {
    receiver.plan({ status: 429, body: 'slow down', headers: { 'retry-after': '3600' } });
    const eventId = await publish(alice, 'Not now');
    await drain();
    // The schedule's 0 s would have tried again at once: the retry waits, its message invisible.
    expect(receiver.requests).toHaveLength(1);
    const [line] = (await attempts(alice)).filter((attempt) => attempt.event_id === eventId);
    expect(line).toEqual(
      logLine({ event_id: eventId, outcome: 'http_error', status_code: 429, error: 'HTTP 429', next_attempt_at: new Date(Date.parse(endOf(line)) + 3_600_000).toISOString() }),
    );
  });

  it('retries after a receiver that does not answer in time', async () => {
    receiver.plan({ status: 200, hang: true });
    const eventId = await publish(alice, 'Slow receiver');
    await drain();
    const log = (await attempts(alice)).filter((attempt) => attempt.event_id === eventId);
    expect(log).toEqual([
      logLine({ event_id: eventId, attempt: 2, outcome: 'delivered', status_code: 200 }),
      logLine({ event_id: eventId, attempt: 1, outcome: 'timeout', status_code: null, error: 'No answer in time', next_attempt_at: endOf(log[1]) }),
    ]);
  });

  it('sends a redelivered or duplicated message once', async () => {
    // The same source event published twice gives the same event id: two queue messages, one event.
    const eventId = await publish(alice, 'Duplicate', 'same-source');
    expect(await publish(alice, 'Duplicate', 'same-source')).toBe(eventId);
    await drain();
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId]);

    // SQS delivers an old message again later: nothing is sent.
    await publish(alice, 'Duplicate', 'same-source');
    await drain();
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId]);
    expect((await attempts(alice)).filter((attempt) => attempt.event_id === eventId)).toEqual([
      logLine({ event_id: eventId, outcome: 'delivered', status_code: 200 }),
    ]);
  });

  it('gives up after the last attempt: the message goes to the dead-letter queue', async () => {
    receiver.setDefault({ status: 500, body: 'down' });
    const eventId = await publish(alice, 'Never delivered');
    await drain();
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    const log = (await attempts(alice)).filter((attempt) => attempt.event_id === eventId);
    expect(log.map((attempt) => attempt.attempt)).toEqual([3, 2, 1]);
    expect(log[0]?.next_attempt_at).toBeNull();
    const failed = { event_id: eventId, outcome: 'http_error', status_code: 500, error: 'HTTP 500' };
    expect(log).toEqual([
      logLine({ ...failed, attempt: 3 }),
      logLine({ ...failed, attempt: 2, next_attempt_at: endOf(log[1]) }),
      logLine({ ...failed, attempt: 1, next_attempt_at: endOf(log[2]) }),
    ]);
    const dead = (await dlqBodies()).map((body) => JSON.parse(body) as { event_id: string });
    expect(dead.map((message) => message.event_id)).toEqual([eventId]);
  });

  it('moves poison messages to the dead-letter queue without sending anything', async () => {
    await stack.sqs.send(new SendMessageCommand({ QueueUrl: queue().queueUrl, MessageBody: 'not json' }));
    await stack.sqs.send(new SendMessageCommand({ QueueUrl: queue().queueUrl, MessageBody: JSON.stringify({ event_id: 'evt_x', user_id: 'x' }) }));
    await drain();
    expect(receiver.requests).toHaveLength(0);
    expect(await dlqBodies()).toEqual(expect.arrayContaining(['not json', JSON.stringify({ event_id: 'evt_x', user_id: 'x' })]));
  });

  it('sends to the workspace members who have a webhook and skips those without one', async () => {
    const bob = await signUp(stack);
    const created = await stack.call<{ workspace: { id: number } }>('POST', '/workspaces/', { token: bob.token, body: { name: 'Second' } });
    expect(created.status).toBe(201);
    const workspace = { body: created.body.workspace };
    // Bob's second workspace has one member (Bob), who has no webhook: nothing to deliver.
    await publisher.publish(workspace.body.id, 'incoming_message', 'bob-source', reply('For Bob'));
    await drain();
    expect(receiver.requests).toHaveLength(0);
    expect(await attempts(bob)).toEqual([]);

    await setUrl(bob, `${receiver.url}/bob`);
    await publisher.publish(workspace.body.id, 'incoming_message', 'bob-source-2', reply('For Bob again'));
    await drain();
    expect(receiver.requests.map((request) => request.path)).toEqual(['/bob']);
  });

  it('formats real events for a chat webhook', async () => {
    const carol = await signUp(stack);
    await setUrl(carol, `${receiver.url}/services/T0001/B0001/abcdefghijklmnopqrstuvwx`);
    await publish(carol, 'Happy to chat next week');
    await drain();
    const body = JSON.parse(receiver.requests[0]?.body ?? '{}') as { text: string; blocks: unknown[] };
    const title = 'Alex Doe (Head of Sales at Acme Inc) replied in campaign "Founders"';
    expect(body).toEqual({
      text: `${title}\nHappy to chat next week`,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `*${title}*\n> Happy to chat next week` } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: expect.stringMatching(/^Outreach · event evt_[0-9a-f]{32}$/) }] },
      ],
    });
  });
});

/** With a retry an hour away: the event published again meanwhile does not bring the retry forward. */
describe('webhook delivery worker, an event published again before its retry', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let publisher: EventPublisher;
  let dana: SignedUpUser;

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, settings: { webhookRetrySchedule: [3600, 3600], webhookTimeoutMs: 700 } });
    receiver = await startReceiver();
    publisher = createEventPublisher({
      members: new DynamoWorkspaceMembers(stack.db, stack.tableName),
      queue: new SqsDeliveryQueue(stack.sqs, stack.queue('webhooks').queueUrl),
      clock: systemClock,
    });
    dana = await signUp(stack);
    const response = await stack.call('PUT', '/user/webhook/', { token: dana.token, body: { webhook_url: `${receiver.url}/dana` } });
    expect(response.status).toBe(200);
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });

  it('drops the duplicates and keeps the hour’s wait: one attempt, its retry still ahead', async () => {
    receiver.setDefault({ status: 500, body: 'down' });
    const data = sampleIncomingMessage(0, new Date(), 'evt_x').data as IncomingMessageData;
    const publish = () => publisher.publish(dana.workspaceId, 'incoming_message', 'replayed-source', data);
    const eventId = await publish();
    await stack.drain('webhooks');
    // A provider webhook replayed three times: the same event, three more queue messages.
    for (let i = 0; i < 3; i += 1) expect(await publish()).toBe(eventId);
    await stack.drain('webhooks');
    expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([eventId]);
    const log = (await stack.call<{ deliveries: Attempt[] }>('GET', '/user/webhook/deliveries/', { token: dana.token })).body.deliveries;
    expect(log.map((attempt) => [attempt.attempt, attempt.outcome, attempt.status_code])).toEqual([[1, 'http_error', 500]]);
    // The hour with its jitter (±20%), still ahead.
    const retryIn = Date.parse(String(log[0]?.next_attempt_at)) - Date.now();
    expect(retryIn > 2_870_000 && retryIn <= 4_320_000, `retry in ${retryIn} ms`).toBe(true);
  });
});
