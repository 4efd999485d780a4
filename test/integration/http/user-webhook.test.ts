import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookSettingsKey } from '../../../shared/db/keys';
import { ISO_TIMESTAMP, aTimestamp } from '../../support/formats';
import { type Receiver, startReceiver } from '../../support/receiver';
import { SAMPLE_LEAD } from '../../support/sample-message';
import { ManualClock } from '../../../shared/time/clock';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

const UPDATED = { success: true, message: 'Webhook URL updated successfully' };
const NOT_CONFIGURED = { success: false, error: 'No webhook URL configured. Please configure a webhook first.' };
const TIMED_OUT = { success: false, error: 'Webhook request timed out. Please check your webhook URL.' };
const TEST_EVENT_ID = /^evt_test_[0-9a-f]{24}$/;

/** The signed body of a test send: the documented sample reply, stamped with the time of the send, about the caller's workspace. */
const samplePayload = (id: string, at: string, workspaceId: number) => ({
  id,
  event: 'incoming_message',
  created_at: at,
  workspace_id: workspaceId,
  test: true,
  message: {
    id: 0,
    message_id: 'sample-message',
    message: 'Hello there! Thanks for reaching out, happy to talk next week.',
    sent_by_lead: true,
    channel: 'NETWORK',
    sent_at: at,
    created_at: at,
    updated_at: at,
    campaign: { id: 0, name: 'Sample campaign', status: 'ACTIVE' },
    lead: SAMPLE_LEAD,
  },
});

/** What a chat receiver gets for a test send. */
const CHAT = {
  title: 'Test notification: Alex Doe (Head of Sales at Acme Inc) replied in campaign "Sample campaign"',
  text: 'Hello there! Thanks for reaching out, happy to talk next week.',
  footer: 'Test notification from Outreach: your webhook is connected.',
};

const headersOf = (request: { headers: Record<string, string | string[] | undefined> }) =>
  Object.fromEntries(Object.entries(request.headers).map(([key, value]) => [key, String(value)]));

describe('user webhook settings, test send and delivery log', () => {
  // The service's time stands still (at the real time the file starts, so receivers verifying
  // signature timestamps against their own clock accept them): times it answers with are exact.
  const clock = new ManualClock();
  let stack: TestStack;
  let receiver: Receiver;
  let alice: SignedUpUser;
  let aliceKey: string;
  let secret: string;

  const put = (webhookUrl: unknown, auth: { apiKey?: string; token?: string } = { apiKey: aliceKey }) =>
    stack.call('PUT', '/user/webhook/', { ...auth, body: { webhook_url: webhookUrl } });
  const sendTest = (user: SignedUpUser = alice) => stack.call('POST', '/user/webhook/test/', { token: user.token });

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, settings: { webhookTimeoutMs: 700 }, clock });
    receiver = await startReceiver();
    alice = await signUp(stack);
    aliceKey = (await createKey(stack, alice)).key;
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.stop();
  });
  beforeEach(() => receiver.reset());

  it('shows no webhook before one is set, and refuses a test send', async () => {
    const fresh = await signUp(stack);
    const shown = await stack.call('GET', '/user/webhook/', { token: fresh.token });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({
      success: true,
      webhook_url: null,
      webhook_type: null,
      has_signing_secret: false,
      signing_secret_created_at: null,
      previous_secret_valid_until: null,
      updated_at: null,
      disabled_at: null,
      disabled_reason: null,
    });
    const test = await sendTest(fresh);
    expect(test.status).toBe(400);
    expect(test.body).toEqual(NOT_CONFIGURED);
  });

  it('sets the URL, shows the signing secret once, and keeps it across later changes', async () => {
    const first = await put(`${receiver.url}/hooks/a`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ...UPDATED, webhook_url: `${receiver.url}/hooks/a`, signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    secret = String(first.body.signing_secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const shown = await stack.call('GET', '/user/webhook/', { apiKey: aliceKey });
    expect(shown.body).toEqual({
      success: true,
      webhook_url: `${receiver.url}/hooks/a`,
      webhook_type: 'generic',
      has_signing_secret: true,
      signing_secret_created_at: aTimestamp(),
      previous_secret_valid_until: null,
      updated_at: shown.body.signing_secret_created_at,
      disabled_at: null,
      disabled_reason: null,
    });
    expect(shown.text).not.toContain(secret.slice(6));

    const changed = await put(`${receiver.url}/hooks/b`, { token: alice.token });
    expect(changed.body).toEqual({ ...UPDATED, webhook_url: `${receiver.url}/hooks/b` });
    const cleared = await put(null);
    expect(cleared.body).toEqual({ ...UPDATED, webhook_url: null });
    expect((await stack.call('GET', '/user/webhook/', { apiKey: aliceKey })).body).toEqual({
      success: true,
      webhook_url: null,
      webhook_type: null,
      has_signing_secret: true,
      signing_secret_created_at: shown.body.signing_secret_created_at,
      previous_secret_valid_until: null,
      updated_at: aTimestamp(),
      disabled_at: null,
      disabled_reason: null,
    });
    expect((await put('')).body).toEqual({ ...UPDATED, webhook_url: null });
    const again = await put(`${receiver.url}/hooks/generic`);
    expect(again.body).toEqual({ ...UPDATED, webhook_url: `${receiver.url}/hooks/generic` });

    // Still the first secret: the test send verifies with it.
    expect((await sendTest()).status).toBe(200);
    const [request] = receiver.requests;
    const sent = JSON.parse(request?.body ?? '{}') as { id: string; created_at: string };
    expect(new Webhook(secret).verify(request?.body ?? '', headersOf(request as never))).toEqual(samplePayload(sent.id, sent.created_at, alice.workspaceId));
  });

  it('stores the signing secret sealed, never as plain text', async () => {
    const { Item } = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: webhookSettingsKey(alice.userId) }));
    expect(Item?.sealedSecret).toMatch(/^v1\./);
    expect(JSON.stringify(Item)).not.toContain(secret.slice(6));
  });

  it('refuses bad URLs with a clear 400 and changes nothing', async () => {
    const cases: [unknown, string][] = [
      [undefined, 'webhook_url is required'],
      [42, 'webhook_url must be a URL string or null'],
      ['not a url', 'webhook_url must be a valid URL'],
      ['ftp://example.com/hook', 'webhook_url must use https:// (or http:// to this machine)'],
      ['http://example.com/hook', 'webhook_url must use https:// (or http:// to this machine)'],
      ['https://user:pass@example.com/hook', 'webhook_url must not contain a user name or password'],
      [`https://example.com/${'a'.repeat(2050)}`, 'webhook_url must be at most 2048 characters'],
      ['https://10.1.2.3/hook', 'webhook_url must not point to a private, loopback, link-local or reserved address'],
      ['https://169.254.169.254/latest/meta-data/', 'webhook_url must not point to a private, loopback, link-local or reserved address'],
    ];
    for (const [url, error] of cases) {
      const response = await stack.call('PUT', '/user/webhook/', { apiKey: aliceKey, body: url === undefined ? {} : { webhook_url: url } });
      expect(response.status, String(url)).toBe(400);
      expect(response.body).toEqual({ error });
    }
    expect((await stack.call('GET', '/user/webhook/', { apiKey: aliceKey })).body.webhook_url).toBe(`${receiver.url}/hooks/generic`);
  });

  it('sends a signed sample incoming_message to a generic URL', async () => {
    receiver.plan({ status: 202 });
    const response = await sendTest();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: 'Test notification sent successfully', webhook_type: 'generic', status_code: 202 });
    expect(receiver.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /hooks/generic']);
    const [request] = receiver.requests;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    const payload = new Webhook(secret).verify(request?.body ?? '', headersOf(request as never)) as Record<string, unknown>;
    expect(request?.headers['webhook-id']).toMatch(TEST_EVENT_ID);
    expect(payload.created_at).toMatch(ISO_TIMESTAMP);
    expect(payload).toEqual(samplePayload(String(request?.headers['webhook-id']), String(payload.created_at), alice.workspaceId));
  });

  it.each([
    ['slack', '/services/T0001/B0001/abcdefghijklmnopqrstuvwx', 200, (body: Record<string, unknown>) => {
      expect(body).toEqual({
        text: `${CHAT.title}\n${CHAT.text}`,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: `*${CHAT.title}*\n> ${CHAT.text}` } },
          { type: 'context', elements: [{ type: 'mrkdwn', text: CHAT.footer }] },
        ],
      });
    }],
    ['discord', '/api/webhooks/123456789012345678/abcDEF_ghi-123', 204, (body: Record<string, unknown>) => {
      expect(body).toEqual({
        content: CHAT.title,
        embeds: [{ description: CHAT.text, footer: { text: CHAT.footer } }],
        allowed_mentions: { parse: [] },
      });
    }],
    ['teams', '/webhookb2/aaaa@bbbb/IncomingWebhook/cccc/dddd', 200, (body: Record<string, unknown>) => {
      expect(body).toEqual({
        type: 'message',
        text: `${CHAT.title}\n${CHAT.text}`,
        summary: CHAT.title,
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            content: {
              type: 'AdaptiveCard',
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              version: '1.4',
              body: [
                { type: 'TextBlock', text: CHAT.title, weight: 'Bolder', wrap: true },
                { type: 'TextBlock', text: CHAT.text, wrap: true },
                { type: 'TextBlock', text: CHAT.footer, isSubtle: true, size: 'Small', wrap: true },
              ],
            },
          },
        ],
      });
    }],
  ] as const)('sends a formatted chat message to a %s-style URL', async (type, path, status, checkBody) => {
    await put(`${receiver.url}${path}`);
    receiver.plan({ status, body: status === 204 ? '' : 'ok' });
    const response = await sendTest();
    expect(response.body).toEqual({ success: true, message: 'Test notification sent successfully', webhook_type: type, status_code: status });
    const [request] = receiver.requests;
    expect(request?.path).toBe(path);
    expect(request?.headers['webhook-signature']).toBeUndefined();
    checkBody(JSON.parse(request?.body ?? '{}'));
    expect((await stack.call('GET', '/user/webhook/', { apiKey: aliceKey })).body.webhook_type).toBe(type);
  });

  it('reports a 4xx or 5xx from the receiver as 400 with its reason in details', async () => {
    await put(`${receiver.url}/hooks/failing`);
    receiver.plan({ status: 404, body: 'no_service' }, { status: 500, body: 'rollup_error' });
    const notFound = await sendTest();
    expect(notFound.status).toBe(400);
    expect(notFound.body).toEqual({ success: false, error: 'Webhook delivery failed with HTTP 404', details: 'no_service' });
    const serverError = await sendTest();
    expect(serverError.body).toEqual({ success: false, error: 'Webhook delivery failed with HTTP 500', details: 'rollup_error' });
  });

  it('does not follow redirects', async () => {
    await put(`${receiver.url}/hooks/moved`);
    receiver.plan({ status: 302, headers: { location: `${receiver.url}/hooks/elsewhere` } });
    const response = await sendTest();
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: 'Webhook delivery failed with HTTP 302', details: 'Found' });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hooks/moved']);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    await put(`${receiver.url}/hooks/hanging`);
    receiver.plan({ status: 200, hang: true });
    const response = await sendTest();
    expect(response.status).toBe(400);
    expect(response.body).toEqual(TIMED_OUT);
  });

  it('reports a receiver that cannot be reached', async () => {
    const gone = await startReceiver();
    await gone.stop();
    await put(`${gone.url}/hooks/closed`);
    const response = await sendTest();
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: 'Webhook request failed: could not connect to the webhook URL',
      details: 'Connection failed (ECONNREFUSED)',
    });
  });

  it('sends tests with a session only', async () => {
    const response = await stack.call('POST', '/user/webhook/test/', { apiKey: aliceKey });
    expect(response.status).toBe(401);
    expect(receiver.requests).toHaveLength(0);
  });

  it('rotates the secret: both sign during the overlap, the new one is shown once', async () => {
    await put(`${receiver.url}/hooks/rotation`);
    const rotated = await stack.call('POST', '/user/webhook/secret/rotate/', { apiKey: aliceKey });
    expect(rotated.status).toBe(200);
    const next = String(rotated.body.signing_secret);
    expect(next).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body).toEqual({ success: true, signing_secret: next, previous_secret_valid_until: aTimestamp() });
    expect(next).not.toBe(secret);
    // The old secret keeps signing for exactly 24 hours from the rotation.
    expect(Date.parse(String(rotated.body.previous_secret_valid_until)) - clock.now().getTime()).toBe(24 * 3_600_000);

    await sendTest();
    const [request] = receiver.requests;
    const signedAt = new Date(Number(request?.headers['webhook-timestamp']) * 1000);
    // The reference implementation's signatures of this request, new secret first.
    expect(String(request?.headers['webhook-signature']).split(' ')).toEqual([
      new Webhook(next).sign(String(request?.headers['webhook-id']), signedAt, request?.body ?? ''),
      new Webhook(secret).sign(String(request?.headers['webhook-id']), signedAt, request?.body ?? ''),
    ]);
    for (const key of [next, secret]) {
      expect(new Webhook(key).verify(request?.body ?? '', headersOf(request as never))).toEqual(JSON.parse(request?.body ?? ''));
    }
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request?.body ?? '', headersOf(request as never))).toThrow(
      /^No matching signature found$/,
    );

    // Two more rotations at once: every secret handed out within the day still signs, the first
    // one included (before 2026-11-27 only the last two did).
    const twice = await Promise.all([1, 2].map(() => stack.call('POST', '/user/webhook/secret/rotate/', { apiKey: aliceKey })));
    expect(twice.map((answer) => answer.status)).toEqual([200, 200]);
    const handedOut = twice.map((answer) => String(answer.body.signing_secret));
    receiver.reset();
    await sendTest();
    const [afterTwo] = receiver.requests;
    const signatures = String(afterTwo?.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(4);
    const signedAgainAt = new Date(Number(afterTwo?.headers['webhook-timestamp']) * 1000);
    const signatureOf = (key: string) => new Webhook(key).sign(String(afterTwo?.headers['webhook-id']), signedAgainAt, afterTwo?.body ?? '');
    expect([...signatures].sort()).toEqual([...handedOut, next, secret].map(signatureOf).sort());
    // Newest first: the current secret's signature leads.
    const current = handedOut.find((key) => signatureOf(key) === signatures[0]) as string;
    expect(current).toBeDefined();

    // A day after the last rotations, only the current secret signs.
    clock.advance(24 * 3_600_000);
    receiver.reset();
    await sendTest();
    const [dayLater] = receiver.requests;
    const signedLaterAt = new Date(Number(dayLater?.headers['webhook-timestamp']) * 1000);
    expect(dayLater?.headers['webhook-signature']).toBe(new Webhook(current).sign(String(dayLater?.headers['webhook-id']), signedLaterAt, dayLater?.body ?? ''));
    secret = current;

    const stranger = await signUp(stack);
    const none = await stack.call('POST', '/user/webhook/secret/rotate/', { token: stranger.token });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: 'No webhook configured: set a webhook URL first' });
  });

  it('keeps a delivery log of the user’s own sends, newest first, paged, without response bodies', async () => {
    await put(`${receiver.url}/hooks/log`);
    receiver.plan({ status: 200 }, { status: 500, body: 'secret_body_text' }, { status: 200 });
    // One second apart on the service's clock, and after every earlier send of this file: the log
    // is ordered by the time of each send.
    for (let i = 0; i < 3; i += 1) {
      clock.advance(1_000);
      await sendTest();
    }

    const page = await stack.call<{ deliveries: Record<string, unknown>[]; next_cursor: string | null }>(
      'GET',
      '/user/webhook/deliveries/?limit=2',
      { apiKey: aliceKey },
    );
    expect(page.status).toBe(200);
    // Newest first: the third send, then the second; each logged under the event id and time it was sent with.
    const sentAs = (index: number) => {
      const request = receiver.requests[index];
      return { event_id: String(request?.headers['webhook-id']), attempted_at: String(JSON.parse(request?.body ?? '{}').created_at) };
    };
    // The service's clock does not move during a send, so each measured duration is exactly 0 ms.
    const duration = 0;
    expect(page.body.deliveries).toEqual([
      { ...sentAs(2), event_type: 'incoming_message', attempt: 1, outcome: 'delivered', status_code: 200, error: null, duration_ms: duration, next_attempt_at: null, test: true },
      { ...sentAs(1), event_type: 'incoming_message', attempt: 1, outcome: 'http_error', status_code: 500, error: 'HTTP 500', duration_ms: duration, next_attempt_at: null, test: true },
    ]);
    expect(page.body.deliveries.map((d) => d.status_code)).toEqual([200, 500]);
    expect(Object.keys(page.body.deliveries[0] ?? {}).sort()).toEqual(
      ['attempt', 'attempted_at', 'duration_ms', 'error', 'event_id', 'event_type', 'next_attempt_at', 'outcome', 'status_code', 'test'].sort(),
    );
    expect(page.text).not.toContain('secret_body_text');
    // The sort key of the page's last item.
    expect(page.body.next_cursor).toBe(Buffer.from(`WEBHOOK_ATTEMPT#${sentAs(1).attempted_at}#${sentAs(1).event_id}#01`).toString('base64url'));

    const next = await stack.call<{ deliveries: Record<string, unknown>[] }>(
      'GET',
      `/user/webhook/deliveries/?limit=2&cursor=${page.body.next_cursor}`,
      { token: alice.token },
    );
    expect(next.body.deliveries[0]).toEqual({
      ...sentAs(0),
      event_type: 'incoming_message',
      attempt: 1,
      outcome: 'delivered',
      status_code: 200,
      error: null,
      duration_ms: duration,
      next_attempt_at: null,
      test: true,
    });

    for (const query of ['?limit=0', '?limit=101', '?limit=x']) {
      const bad = await stack.call('GET', `/user/webhook/deliveries/${query}`, { apiKey: aliceKey });
      expect(bad.status, query).toBe(400);
      expect(bad.body).toEqual({ error: 'limit must be an integer from 1 to 100' });
    }
    // An empty limit is the default, as other empty query values are left out.
    const unlimited = await stack.call('GET', '/user/webhook/deliveries/', { apiKey: aliceKey });
    const emptyLimit = await stack.call('GET', '/user/webhook/deliveries/?limit=', { apiKey: aliceKey });
    expect([emptyLimit.status, emptyLimit.body]).toEqual([200, unlimited.body]);
    // So is an empty cursor: the first page.
    const emptyCursor = await stack.call('GET', '/user/webhook/deliveries/?limit=&cursor=', { apiKey: aliceKey });
    expect([emptyCursor.status, emptyCursor.body]).toEqual([200, unlimited.body]);
    const badCursor = await stack.call('GET', '/user/webhook/deliveries/?cursor=bm90LWEtY3Vyc29y', { apiKey: aliceKey });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body).toEqual({ error: 'cursor is not valid' });

    const bob = await signUp(stack);
    const bobs = await stack.call<{ deliveries: unknown[] }>('GET', '/user/webhook/deliveries/', { token: bob.token });
    expect(bobs.body.deliveries).toEqual([]);
    expect((await stack.call('GET', '/user/webhook/', { token: bob.token })).body.webhook_url).toBeNull();
  });
});
