import { beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryAttempt, DeliveryStatus } from '../../../shared/domain/webhooks/delivery';
import { type DeliveryServiceDeps, createDeliveryService } from '../../../shared/domain/webhooks/delivery-service';
import { type DeliveryMessage, sampleIncomingMessage } from '../../../shared/domain/webhooks/events';
import type { DeliveryClaim, SendOutcome, WebhookDeliveryRepository } from '../../../shared/domain/webhooks/ports';
import type { WebhookSettings } from '../../../shared/domain/webhooks/webhook';
import { webhookTypeOf } from '../../../shared/domain/webhooks/webhook';

/** The delivery record's rules, in memory (the DynamoDB version is exercised by the integration tests). */
class InMemoryDeliveries implements Pick<WebhookDeliveryRepository, 'claim' | 'complete' | 'giveUp'> {
  records = new Map<string, { status: DeliveryStatus; attempts: number; leaseUntil?: string; carrier?: string; retryAt?: string; message?: DeliveryMessage }>();
  log: DeliveryAttempt[] = [];

  async claim(input: { userId: number; eventId: string; now: string; leaseUntil: string; maxAttempts: number; carrier: string }): Promise<DeliveryClaim> {
    const key = `${input.userId}/${input.eventId}`;
    const record = this.records.get(key) ?? { status: 'PENDING' as const, attempts: 0 };
    if (record.status !== 'PENDING') return { kind: 'finished', status: record.status };
    if (record.leaseUntil && record.leaseUntil > input.now) return { kind: 'busy', leaseUntil: record.leaseUntil };
    if (record.attempts >= input.maxAttempts) return { kind: 'unrecorded' };
    if (record.retryAt && record.retryAt > input.now && record.carrier !== input.carrier) return { kind: 'scheduled', retryAt: record.retryAt };
    this.records.set(key, { status: 'PENDING', attempts: record.attempts + 1, leaseUntil: input.leaseUntil, carrier: input.carrier });
    return { kind: 'claimed', attempt: record.attempts + 1 };
  }

  async complete(input: { userId: number; eventId: string; status: DeliveryStatus; attempt?: DeliveryAttempt; message?: DeliveryMessage }) {
    const key = `${input.userId}/${input.eventId}`;
    const record = this.records.get(key);
    const retryAt = input.status === 'PENDING' ? (input.attempt?.nextAttemptAt ?? undefined) : undefined;
    // Given up on: its message kept, as the repository keeps it.
    const kept = input.status === 'FAILED' && input.message && input.attempt ? { message: input.message } : {};
    if (record) this.records.set(key, { status: input.status, attempts: record.attempts, ...(record.carrier ? { carrier: record.carrier } : {}), ...(retryAt ? { retryAt } : {}), ...kept });
    if (input.attempt) this.log.push(input.attempt);
  }

  async giveUp(input: { userId: number; eventId: string; message: DeliveryMessage }) {
    const key = `${input.userId}/${input.eventId}`;
    const record = this.records.get(key);
    if (record?.status === 'PENDING') this.records.set(key, { status: 'FAILED', attempts: record.attempts, message: input.message });
  }
}

describe('delivery service', () => {
  let now: Date;
  let deliveries: InMemoryDeliveries;
  let settings: WebhookSettings | undefined;
  let outcomes: SendOutcome[];
  let sent: { url: string; headers: Record<string, string> }[];
  /** `user/workspace` pairs that are memberships now. */
  let members: Set<string>;

  const service = (overrides: Partial<DeliveryServiceDeps> = {}) =>
    createDeliveryService({
      settings: {
        get: async () => settings,
        save: async (next, expected) => {
          if ((settings?.updatedAt ?? null) !== expected) return false;
          settings = next;
          return true;
        },
      },
      newSecret: () => 'whsec_created',
      deliveries,
      memberships: { isMember: async (userId, workspaceId) => members.has(`${userId}/${workspaceId}`) },
      sender: {
        post: async (url, _body, headers) => {
          sent.push({ url, headers });
          return outcomes.shift() ?? { kind: 'response', status: 200, reason: '' };
        },
      },
      signer: { sign: (secrets) => secrets.map((secret) => `v1,${secret}`).join(' ') },
      policy: { webhookType: (url) => webhookTypeOf(url) },
      clock: { now: () => now },
      random: () => 0.5,
      attemptTimeoutMs: 10_000,
      leaseMs: 40_000,
      schedule: [60, 300],
      ...overrides,
    });
  const message = sampleIncomingMessage(7, new Date('2026-11-21T12:00:00.000Z'), 'evt_unit');
  /** A line of the log of `message`'s delivery made at 12:00: what differs is given. */
  const logLine = (fields: Partial<DeliveryAttempt>): DeliveryAttempt => ({
    userId: 7,
    eventId: 'evt_unit',
    eventType: message.type,
    attempt: 1,
    at: '2026-11-21T12:00:00.000Z',
    outcome: 'http_error',
    statusCode: null,
    error: null,
    durationMs: 0,
    nextAttemptAt: null,
    test: false,
    ...fields,
  });

  beforeEach(() => {
    now = new Date('2026-11-21T12:00:00.000Z');
    deliveries = new InMemoryDeliveries();
    settings = {
      userId: 7,
      url: 'https://receiver.example/hook',
      secret: 'whsec_current',
      secretCreatedAt: now.toISOString(),
      previousSecret: null,
      previousSecretValidUntil: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    outcomes = [];
    sent = [];
    members = new Set(['7/3']);
  });

  it('acknowledges a delivered event and never sends it again', async () => {
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'ack' });
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'ack' });
    expect(sent.map((request) => request.url)).toEqual(['https://receiver.example/hook']);
    expect(sent[0]?.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'OutreachWebhooks/1.0',
      'webhook-id': 'evt_unit',
      'webhook-timestamp': '1795262400',
      'webhook-signature': 'v1,whsec_current',
    });
  });

  it('waits by the schedule after each failure, then gives up to the dead-letter queue', async () => {
    outcomes = [{ kind: 'response', status: 500, reason: '' }, { kind: 'timeout' }, { kind: 'network', reason: 'Connection failed' }];
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 60 });
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 300 });
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'dead-letter' });
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'dead-letter' });
    expect(sent.map((request) => request.url)).toEqual(Array(3).fill('https://receiver.example/hook'));
    const logged = { userId: 7, eventId: 'evt_unit', eventType: 'incoming_message', at: '2026-11-21T12:00:00.000Z', durationMs: 0, test: false };
    expect(deliveries.log).toEqual([
      { ...logged, attempt: 1, outcome: 'http_error', statusCode: 500, error: 'HTTP 500', nextAttemptAt: '2026-11-21T12:01:00.000Z' },
      { ...logged, attempt: 2, outcome: 'timeout', statusCode: null, error: 'No answer in time', nextAttemptAt: '2026-11-21T12:05:00.000Z' },
      { ...logged, attempt: 3, outcome: 'network_error', statusCode: null, error: 'Connection failed', nextAttemptAt: null },
    ]);
  });

  it('gives up on a delivery whose last attempt was never recorded, without sending, and keeps its message', async () => {
    outcomes = [{ kind: 'response', status: 500, reason: '' }, { kind: 'response', status: 500, reason: '' }];
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 60 });
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 300 });
    // The third and last attempt claimed by a worker that stops before it records how it went.
    await deliveries.claim({ userId: 7, eventId: 'evt_unit', now: now.toISOString(), leaseUntil: '2026-11-21T12:00:40.000Z', maxAttempts: 3, carrier: 'msg-1' });
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 40 });
    now = new Date('2026-11-21T12:00:41.000Z');
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'dead-letter' });
    expect(sent).toHaveLength(2);
    expect(deliveries.records.get('7/evt_unit')).toEqual({ status: 'FAILED', attempts: 3, message });
  });

  it('leaves a duplicate alone while another worker holds the delivery', async () => {
    await deliveries.claim({ userId: 7, eventId: 'evt_unit', now: now.toISOString(), leaseUntil: '2026-11-21T12:00:30.000Z', maxAttempts: 3, carrier: 'msg-0' });
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 30 });
    expect(sent).toHaveLength(0);
  });

  it('drops a duplicate that comes before the retry is due, and leaves the retry to the message that carries it', async () => {
    outcomes = [{ kind: 'response', status: 500, reason: '' }];
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 60 });
    // The event published again (a provider webhook replayed): no attempt, the message is dropped.
    now = new Date('2026-11-21T12:00:10.000Z');
    expect(await service().deliver(message, 'msg-2')).toEqual({ action: 'ack' });
    expect(sent).toHaveLength(1);
    // The carrier comes back when its delay ends (here early, by another clock): it is the retry.
    now = new Date('2026-11-21T12:00:59.000Z');
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'ack' });
    expect(deliveries.log.map((attempt) => [attempt.attempt, attempt.outcome])).toEqual([
      [1, 'http_error'],
      [2, 'delivered'],
    ]);
  });

  it('lets any message of the event take a retry that is due (the carrier lost or late)', async () => {
    outcomes = [{ kind: 'response', status: 500, reason: '' }];
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 60 });
    now = new Date('2026-11-21T12:01:00.000Z');
    expect(await service().deliver(message, 'msg-2')).toEqual({ action: 'ack' });
    expect(sent).toHaveLength(2);
    // The old carrier then finds it delivered.
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'ack' });
    expect(sent).toHaveLength(2);
  });

  it('sends an attempt only while the user is a member of the event’s workspace: a removal stops the retries, without a send', async () => {
    const ofWorkspace = { ...message, workspace_id: 3 };
    outcomes = [{ kind: 'response', status: 500, reason: '' }];
    expect(await service().deliver(ofWorkspace, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 60 });
    members.delete('7/3');
    now = new Date('2026-11-21T12:01:00.000Z');
    expect(await service().deliver(ofWorkspace, 'msg-1')).toEqual({ action: 'ack' });
    expect([sent.length, deliveries.records.get('7/evt_unit')?.status]).toEqual([1, 'SKIPPED']);
    // The log ends with why no retry followed the failed attempt.
    expect(deliveries.log.map((line) => [line.attempt, line.outcome, line.error, line.nextAttemptAt])).toEqual([
      [1, 'http_error', 'HTTP 500', '2026-11-21T12:01:00.000Z'],
      [2, 'skipped', 'Not sent: you are no longer a member of the workspace of this event', null],
    ]);
    // A message queued before the workspace was named in it is delivered as before.
    expect(await service().deliver({ ...message, event_id: 'evt_old' }, 'msg-2')).toEqual({ action: 'ack' });
    expect(sent.length).toBe(2);
  });

  it('skips users without a webhook, writing no log line for an event never tried', async () => {
    settings = settings ? { ...settings, url: null } : undefined;
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'ack' });
    expect(sent).toHaveLength(0);
    expect(deliveries.records.get('7/evt_unit')).toEqual({ status: 'SKIPPED', attempts: 1, carrier: 'msg-1' });
    expect(deliveries.log).toEqual([]);
  });

  it('waits at least as long as a Retry-After asks, and no less than the schedule', async () => {
    outcomes = [
      { kind: 'response', status: 429, reason: 'Slow down', retryAfter: '600' },
      { kind: 'response', status: 503, reason: '', retryAfter: '5' },
    ];
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 600 });
    expect(deliveries.log[0]).toMatchObject({ statusCode: 429, nextAttemptAt: '2026-11-21T12:10:00.000Z' });
    now = new Date('2026-11-21T12:10:00.000Z');
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 300 });
    expect(deliveries.log[1]).toMatchObject({ statusCode: 503, nextAttemptAt: '2026-11-21T12:15:00.000Z' });
  });

  it('ends the log of a retry whose webhook URL was removed meanwhile with a skipped line, and gives the event up as after its last attempt', async () => {
    outcomes = [{ kind: 'response', status: 503, reason: '' }];
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 60 });
    settings = settings ? { ...settings, url: null } : undefined;
    now = new Date('2026-11-21T12:01:00.000Z');
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'dead-letter' });
    expect(sent).toHaveLength(1);
    // Kept for redeliver once a URL is set again; a later copy of the message goes the same way.
    expect(deliveries.records.get('7/evt_unit')).toEqual({ status: 'FAILED', attempts: 2, carrier: 'msg-1', message });
    expect(await service().deliver(message, 'msg-2')).toEqual({ action: 'dead-letter' });
    expect(sent).toHaveLength(1);
    expect(deliveries.log.slice(1)).toEqual([
      {
        userId: 7,
        eventId: 'evt_unit',
        eventType: message.type,
        attempt: 2,
        at: '2026-11-21T12:01:00.000Z',
        outcome: 'skipped',
        statusCode: null,
        error: 'Not sent: no webhook URL is configured any more',
        durationMs: 0,
        nextAttemptAt: null,
        test: false,
      },
    ]);
  });

  it('gives up at once on a 410 Gone and disables the webhook: later events are not sent until its URL is set again', async () => {
    outcomes = [{ kind: 'response', status: 410, reason: 'Gone' }];
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'dead-letter' });
    expect(deliveries.records.get('7/evt_unit')).toEqual({ status: 'FAILED', attempts: 1, carrier: 'msg-1', message });
    expect(deliveries.log).toEqual([logLine({ statusCode: 410, error: 'HTTP 410: the endpoint is gone, the webhook is disabled until its URL is set again' })]);
    // updated_at moves even within the clock's tick, as on every write of the settings.
    expect(settings).toMatchObject({ url: 'https://receiver.example/hook', disabledAt: '2026-11-21T12:00:00.001Z', updatedAt: '2026-11-21T12:00:00.001Z' });
    // A new event is not sent (no line: never tried), as for a user without a URL.
    expect(await service().deliver({ ...message, event_id: 'evt_next' }, 'msg-2')).toEqual({ action: 'ack' });
    expect(deliveries.records.get('7/evt_next')?.status).toBe('SKIPPED');
    // An event with its own URL (an enrichment job's) still goes there.
    expect(await service().deliver({ ...message, event_id: 'evt_job', url: 'https://jobs.example/done' }, 'msg-3')).toEqual({ action: 'ack' });
    expect(sent.map((request) => request.url)).toEqual(['https://receiver.example/hook', 'https://jobs.example/done']);
  });

  it('gives up the retry of an event whose webhook was disabled meanwhile, as after its last attempt', async () => {
    outcomes = [{ kind: 'response', status: 503, reason: '' }];
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'retry', delaySeconds: 60 });
    settings = settings ? { ...settings, disabledAt: '2026-11-21T12:00:30.000Z' } : undefined;
    now = new Date('2026-11-21T12:01:00.000Z');
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'dead-letter' });
    expect(sent).toHaveLength(1);
    expect(deliveries.records.get('7/evt_unit')).toEqual({ status: 'FAILED', attempts: 2, carrier: 'msg-1', message });
    expect(deliveries.log[1]).toMatchObject({ attempt: 2, outcome: 'skipped', error: 'Not sent: the webhook is disabled since its endpoint answered 410 Gone' });
  });

  it('disables nothing when the URL that answered 410 was changed meanwhile, or when it was an event’s own URL', async () => {
    const changed = 'https://receiver.example/new';
    outcomes = [{ kind: 'response', status: 410, reason: 'Gone' }];
    const racing = service({
      sender: {
        post: async (url) => {
          sent.push({ url, headers: {} });
          // The user sets another URL while the attempt is under way.
          settings = settings ? { ...settings, url: changed, updatedAt: '2026-11-21T12:00:00.500Z' } : undefined;
          return outcomes.shift() ?? { kind: 'response', status: 200, reason: '' };
        },
      },
    });
    expect(await racing.deliver(message, 'msg-1')).toEqual({ action: 'dead-letter' });
    expect(settings?.disabledAt).toBeUndefined();
    expect(settings?.url).toBe(changed);
    // The log says what happened: not disabled.
    expect(deliveries.log[0]).toMatchObject({ statusCode: 410, error: 'HTTP 410: the endpoint is gone, not tried again', nextAttemptAt: null });

    outcomes = [{ kind: 'response', status: 410, reason: 'Gone' }];
    expect(await service().deliver({ ...message, event_id: 'evt_job', url: 'https://jobs.example/done' }, 'msg-2')).toEqual({ action: 'dead-letter' });
    expect(settings?.disabledAt).toBeUndefined();
    expect(deliveries.log[1]).toMatchObject({ statusCode: 410, error: 'HTTP 410: the endpoint is gone, not tried again', nextAttemptAt: null });
  });

  it('leaves enabled a webhook whose URL was set again during the attempt, the same URL included', async () => {
    outcomes = [{ kind: 'response', status: 410, reason: 'Gone' }];
    const racing = service({
      sender: {
        post: async (url) => {
          sent.push({ url, headers: {} });
          // The user fixed the endpoint and set the same URL again while this attempt was under way.
          settings = settings ? { ...settings, updatedAt: '2026-11-21T12:00:00.500Z' } : undefined;
          return outcomes.shift() ?? { kind: 'response', status: 200, reason: '' };
        },
      },
    });
    expect(await racing.deliver(message, 'msg-1')).toEqual({ action: 'dead-letter' });
    expect(settings?.disabledAt).toBeUndefined();
    expect(deliveries.log[0]).toMatchObject({ statusCode: 410, error: 'HTTP 410: the endpoint is gone, not tried again' });
  });

  it('gives up, and keeps, a delivery sent again on request that finds the webhook disabled at its first attempt', async () => {
    settings = settings ? { ...settings, disabledAt: '2026-11-21T11:59:00.000Z' } : undefined;
    // Reopened: its attempts start again at 1, and the record keeps its message.
    const reopened = service({ deliveries: { ...deliveries, claim: async () => ({ kind: 'claimed', attempt: 1, reopened: true }), complete: deliveries.complete.bind(deliveries), giveUp: deliveries.giveUp.bind(deliveries) } });
    deliveries.records.set('7/evt_unit', { status: 'PENDING', attempts: 1 });
    expect(await reopened.deliver(message, 'msg-1')).toEqual({ action: 'dead-letter' });
    expect(sent).toHaveLength(0);
    expect(deliveries.records.get('7/evt_unit')).toEqual({ status: 'FAILED', attempts: 1, message });
    expect(deliveries.log).toEqual([logLine({ outcome: 'skipped', error: 'Not sent: the webhook is disabled since its endpoint answered 410 Gone' })]);
  });

  it('skips a user with no settings at all when the event has no URL of its own', async () => {
    settings = undefined;
    expect(await service().deliver(message, 'msg-1')).toEqual({ action: 'ack' });
    expect(sent).toHaveLength(0);
    expect(settings).toBeUndefined();
  });

  it('creates the signing secret of a user without settings for an event with its own URL, and signs with it', async () => {
    settings = undefined;
    expect(await service().deliver({ ...message, url: 'https://jobs.example/done' }, 'msg-1')).toEqual({ action: 'ack' });
    expect(sent.map((request) => [request.url, request.headers['webhook-signature']])).toEqual([['https://jobs.example/done', 'v1,whsec_created']]);
    expect(settings).toEqual({
      userId: 7,
      url: null,
      secret: 'whsec_created',
      secretCreatedAt: now.toISOString(),
      previousSecret: null,
      previousSecretValidUntil: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      secretUnseen: true,
    });
  });

  it('signs with the secret someone else created meanwhile when its own creation loses the race', async () => {
    const theirs = {
      userId: 7,
      url: null,
      secret: 'whsec_theirs',
      secretCreatedAt: now.toISOString(),
      previousSecret: null,
      previousSecretValidUntil: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    settings = undefined;
    let reads = 0;
    // The first read finds nothing; the save then loses to settings made in between.
    const racing = service({ settings: { get: async () => (reads++ === 0 ? undefined : theirs), save: async () => false }, newSecret: () => 'whsec_lost' });
    expect(await racing.deliver({ ...message, url: 'https://jobs.example/done' }, 'msg-1')).toEqual({ action: 'ack' });
    expect(sent.map((request) => request.headers['webhook-signature'])).toEqual(['v1,whsec_theirs']);
  });

  it('signs generic deliveries only, with both secrets during a rotation', async () => {
    settings = settings ? { ...settings, previousSecret: 'whsec_old', previousSecretValidUntil: '2026-11-22T00:00:00.000Z' } : undefined;
    await service().deliver(message, 'msg-1');
    expect(sent[0]?.headers['webhook-signature']).toBe('v1,whsec_current v1,whsec_old');
    settings = settings ? { ...settings, url: 'https://hooks.slack.com/services/T0/B0/abc' } : undefined;
    await service().deliver({ ...message, event_id: 'evt_unit2' }, 'msg-2');
    expect(sent[1]?.headers).toEqual({ 'content-type': 'application/json', 'user-agent': 'OutreachWebhooks/1.0' });
  });
});
