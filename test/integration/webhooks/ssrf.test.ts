import type { IncomingMessageData } from '../../../shared/domain/webhooks/events';
import { systemClock } from '../../../shared/time/clock';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoWorkspaceMembers } from '../../../shared/db/workspace-members';
import { createEventPublisher } from '../../../shared/domain/webhooks/event-publisher';
import { sampleIncomingMessage } from '../../../shared/domain/webhooks/events';
import { SqsDeliveryQueue } from '../../../shared/messaging/sqs';
import { createHttpSender } from '../../../shared/webhooks/http-sender';
import { aTimestamp } from '../../support/formats';
import { type Receiver, startReceiver } from '../../support/receiver';
import { type SignedUpUser, type TestStack, signUp, startTestStack } from '../../support/test-stack';

const REFUSED = 'webhook_url must not point to a private, loopback, link-local or reserved address';
const BLOCKED = 'Webhook URL is not allowed: it must resolve to a public internet address';
const NON_PUBLIC = 'The webhook host resolves to a non-public address';
const DURATION = expect.toSatisfy((value: unknown) => Number.isInteger(value) && (value as number) >= 0, 'a duration in ms');

/** Every literal form of a forbidden address, as a user could type it. */
const FORBIDDEN_LITERALS = [
  'https://127.0.0.1/hook',
  'https://127.1/hook',
  'https://2130706433/hook', // decimal 127.0.0.1
  'https://0177.0.0.1/hook', // octal
  'https://0x7f.1/hook', // hex
  'https://0x7f000001/hook',
  'https://0.0.0.0/hook',
  'https://[::]/hook',
  'https://[::1]/hook',
  'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped
  'https://[::ffff:7f00:1]/hook',
  'https://[::ffff:169.254.169.254]/hook',
  'https://[::a9fe:a9fe]/latest/meta-data/', // IPv4-compatible (::/96) 169.254.169.254
  'https://[::a00:1]/hook', // IPv4-compatible 10.0.0.1
  'https://[::7f00:1]/hook', // IPv4-compatible 127.0.0.1
  'https://169.254.169.254/latest/meta-data/', // cloud metadata
  'https://169.254.170.2/v2/credentials', // container credentials
  'https://[fd00:ec2::254]/latest/meta-data/', // IPv6 metadata (ULA)
  'https://10.0.0.1/hook',
  'https://172.16.5.4/hook',
  'https://192.168.1.1/hook',
  'https://100.64.0.1/hook', // CGNAT
  'https://[fc00::1]/hook',
  'https://[fe80::1]/hook',
  'https://[64:ff9b::7f00:1]/hook', // NAT64 of 127.0.0.1
  'https://224.0.0.1/hook',
  'https://255.255.255.255/hook',
];

/**
 * The SSRF table against a stack configured like a deployment: no loopback allowance. Receivers
 * listen on loopback, so anything they receive would be an escape.
 */
describe('SSRF guard with loopback disallowed (as deployed)', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let user: SignedUpUser;

  const put = (url: string) => stack.call('PUT', '/user/webhook/', { token: user.token, body: { webhook_url: url } });

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, settings: { webhookAllowLoopback: false, webhookTimeoutMs: 1000 } });
    receiver = await startReceiver();
    user = await signUp(stack);
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });
  beforeEach(() => receiver.reset());

  it.each(FORBIDDEN_LITERALS)('refuses %s when saved', async (url) => {
    const response = await put(url);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: REFUSED });
  });

  it('refuses plain http and user-info tricks', async () => {
    expect((await put(`http://127.0.0.1:${receiver.port}/hook`)).body).toEqual({ error: 'webhook_url must use https://' });
    expect((await put('http://example.com/hook')).body).toEqual({ error: 'webhook_url must use https://' });
    expect((await put('https://example.com@127.0.0.1/hook')).body).toEqual({ error: 'webhook_url must not contain a user name or password' });
  });

  it('blocks a name that resolves to 127.0.0.1 when connecting, for test sends and deliveries', async () => {
    // A name passes the save (it has no address yet); the connection is refused.
    expect((await put(`https://localhost:${receiver.port}/hook`)).status).toBe(200);
    const test = await stack.call('POST', '/user/webhook/test/', { token: user.token });
    expect(test.status).toBe(400);
    expect(test.body).toEqual({ success: false, error: BLOCKED, details: 'The webhook host resolves to a non-public address' });
    expect(receiver.requests).toHaveLength(0);

    const log = await stack.call<{ deliveries: { outcome: string; status_code: number | null }[] }>('GET', '/user/webhook/deliveries/', {
      token: user.token,
    });
    expect(log.body.deliveries).toEqual([
      {
        event_id: expect.stringMatching(/^evt_test_[0-9a-f]{24}$/),
        event_type: 'incoming_message',
        attempt: 1,
        outcome: 'blocked',
        status_code: null,
        error: NON_PUBLIC,
        duration_ms: DURATION,
        attempted_at: aTimestamp(),
        next_attempt_at: null,
        test: true,
      },
    ]);

    // A real event through the queue and the worker: refused on connect too, and retried later.
    const queue = stack.queues.webhooks;
    if (!queue) throw new Error('no webhooks queue');
    const publisher = createEventPublisher({
      members: new DynamoWorkspaceMembers(stack.db, stack.tableName),
      queue: new SqsDeliveryQueue(stack.sqs, queue.queueUrl),
      clock: systemClock,
    });
    const eventId = await publisher.publish(user.workspaceId, 'incoming_message', 'ssrf-source', sampleIncomingMessage(0, new Date(), 'evt_x').data as IncomingMessageData);
    expect(await stack.poller.pollOnce(queue)).toBe(1);
    const after = await stack.call<{ deliveries: { event_id: string; outcome: string; next_attempt_at: string | null; attempted_at: string; duration_ms: number }[] }>(
      'GET',
      '/user/webhook/deliveries/',
      { token: user.token },
    );
    const [attempt] = after.body.deliveries;
    expect(attempt).toEqual({
      event_id: eventId,
      event_type: 'incoming_message',
      attempt: 1,
      outcome: 'blocked',
      status_code: null,
      error: NON_PUBLIC,
      duration_ms: DURATION,
      attempted_at: aTimestamp(),
      next_attempt_at: aTimestamp(),
      test: false,
    });
    // The documented schedule: the second attempt 1 minute (±20%, whole seconds) after this one
    // ended; until then the message stays invisible in the queue.
    const waitSeconds = (Date.parse(attempt?.next_attempt_at ?? '') - Date.parse(attempt?.attempted_at ?? '') - (attempt?.duration_ms ?? 0)) / 1000;
    expect(Number.isInteger(waitSeconds)).toBe(true);
    expect(waitSeconds).toBeGreaterThanOrEqual(48);
    expect(waitSeconds).toBeLessThanOrEqual(72);
    expect(await stack.poller.pollOnce(queue)).toBe(0);
    expect(receiver.requests).toHaveLength(0);
  });
});

/** The sender on its own, with a DNS answer of our choosing (rebinding, mixed records). */
describe('connect-time address checks of the webhook sender', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver?.stop());
  beforeEach(() => receiver.reset());

  const fixed =
    (...addresses: string[]) =>
    async (): Promise<LookupAddress[]> =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it.each([
    ['a private address', ['10.0.0.5']],
    ['the metadata address', ['169.254.169.254']],
    ['loopback', ['127.0.0.1']],
    ['an IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['a public and a private A record', ['93.184.216.34', '10.0.0.1']],
    ['a public AAAA and a ULA', ['2606:4700:4700::1111', 'fd00::1']],
  ])('refuses a name resolving to %s', async (_label, addresses) => {
    const sender = createHttpSender({ allowLoopback: false, resolve: fixed(...addresses) });
    const outcome = await sender.post(`https://hooks.example.test:${receiver.port}/x`, '{}', {}, 1_000);
    expect(outcome).toEqual({ kind: 'blocked', reason: 'The webhook host resolves to a non-public address' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('checks the address the connection uses, so a DNS change between requests (rebinding) is caught', async () => {
    // Local development allows loopback: the first answer reaches the receiver; the next answer
    // for the same name points at a private network and is refused on connect.
    const answers = [['127.0.0.1'], ['10.0.0.7']];
    let lookups = 0;
    const sender = createHttpSender({
      allowLoopback: true,
      resolve: async () => {
        const answer = answers[Math.min(lookups, answers.length - 1)] ?? [];
        lookups += 1;
        return answer.map((address) => ({ address, family: 4 }));
      },
    });
    const url = `https://rebind.example.test:${receiver.port}/x`;
    const first = await sender.post(url.replace('https:', 'http:').replace('rebind.example.test', 'localhost'), '{}', {}, 1_000);
    expect(first).toEqual({ kind: 'response', status: 200, reason: '' });
    const second = await sender.post(url, '{}', {}, 1_000);
    expect(second).toEqual({ kind: 'blocked', reason: 'The webhook host resolves to a non-public address' });
    expect(lookups).toBe(2);
    expect(receiver.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /x']);
  });

  it('never resolves literal addresses: they are checked as written', async () => {
    let lookups = 0;
    const sender = createHttpSender({
      allowLoopback: false,
      resolve: async () => {
        lookups += 1;
        return [{ address: '93.184.216.34', family: 4 }];
      },
    });
    const outcome = await sender.post(`https://127.0.0.1:${receiver.port}/x`, '{}', {}, 1_000);
    expect(outcome).toEqual({ kind: 'blocked', reason: REFUSED });
    expect(lookups).toBe(0);
  });

  it('lets plain http reach loopback only, where loopback is allowed', async () => {
    const publicAnswer = createHttpSender({ allowLoopback: true, resolve: fixed('93.184.216.34') });
    expect(await publicAnswer.post(`http://localhost:${receiver.port}/x`, '{}', {}, 1_000)).toEqual({
      kind: 'blocked',
      reason: 'Plain http:// is only allowed to this machine, and the webhook host resolves to another address',
    });
    const privateAnswer = createHttpSender({ allowLoopback: true, resolve: fixed('10.0.0.5') });
    expect(await privateAnswer.post(`http://localhost:${receiver.port}/x`, '{}', {}, 1_000)).toEqual({
      kind: 'blocked',
      reason: 'Plain http:// is only allowed to this machine, and the webhook host resolves to another address',
    });
    expect(receiver.requests).toHaveLength(0);
    const loopback = createHttpSender({ allowLoopback: true, resolve: fixed('127.0.0.1') });
    expect(await loopback.post(`http://localhost:${receiver.port}/x`, '{}', {}, 1_000)).toEqual({ kind: 'response', status: 200, reason: '' });
  });
});
