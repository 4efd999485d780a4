import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerAccountKey } from '../../../shared/db/keys';
import { aTimestamp, anId } from '../../support/formats';
import { ManualClock } from '../../../shared/time/clock';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';
import type { AccountView } from './account-view';

/** What an account shows before anyone changes its limits or the engine pauses it. */
const DEFAULTS = { daily_limits: { emails: 50, invitations: 20, network_messages: 50 }, sending_paused: null };

describe('sender accounts and the inbound provider webhook', () => {
  // The service's time stands still here (from the real time the file starts), so times it answers with are exact.
  const clock = new ManualClock();
  let stack: TestStack;
  let alice: SignedUpUser;
  let aliceKey: string;
  let bobKey: string;

  const list = async (apiKey: string) =>
    (await stack.call<{ success: boolean; accounts: AccountView[] }>('GET', '/public/accounts/', { apiKey })).body;
  const register = (apiKey: string, body: unknown) => stack.call<{ success: boolean; account: AccountView }>('POST', '/public/accounts/', { apiKey, body });
  const inbound = (body: unknown, secret: string | undefined) =>
    stack.call('POST', '/webhooks/provider/', { body, ...(secret === undefined ? {} : { headers: { 'X-Webhook-Secret': secret } }) });

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, settings: { providerTimeoutMs: 500 }, clock });
    alice = await signUp(stack);
    aliceKey = (await createKey(stack, alice)).key;
    bobKey = (await createKey(stack, await signUp(stack))).key;
  });
  afterAll(async () => stack?.stop());

  it('registers a network account and a mailbox with the type and status the provider reports', async () => {
    expect(await list(aliceKey)).toEqual({ success: true, accounts: [] });
    const network = await register(aliceKey, { provider_account_id: 'sbx-network-dev' });
    expect(network.status).toBe(201);
    expect(network.body).toEqual({
      success: true,
      account: {
        id: anId(),
        name: 'Sandbox network account',
        type: 'NETWORK',
        status: 'OK',
        is_active: true,
        provider_account_id: 'sbx-network-dev',
        provider_type: 'LINKEDIN',
        ...DEFAULTS,
        created_at: aTimestamp(),
        updated_at: network.body.account.created_at,
      },
    });
    const mailbox = await register(aliceKey, { provider_account_id: 'sbx-mailbox-dev', name: '  Sales inbox ' });
    expect(mailbox.body.account).toEqual({
      id: anId(),
      name: 'Sales inbox',
      type: 'EMAIL',
      status: 'OK',
      is_active: true,
      provider_account_id: 'sbx-mailbox-dev',
      provider_type: 'MAIL',
      ...DEFAULTS,
      created_at: aTimestamp(),
      updated_at: mailbox.body.account.created_at,
    });
    const listed = await list(aliceKey);
    expect(listed.accounts).toEqual([network.body.account, mailbox.body.account]);

    // Registering again is harmless: the same account comes back with 200.
    const again = await register(aliceKey, { provider_account_id: 'sbx-network-dev' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(network.body);
    expect((await list(aliceKey)).accounts).toEqual([network.body.account, mailbox.body.account]);
  });

  it('keeps accounts to their workspace: another workspace can neither take, see nor delete them', async () => {
    const taken = await register(bobKey, { provider_account_id: 'sbx-network-dev' });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ error: 'This provider account is already connected to another workspace' });
    expect((await list(bobKey)).accounts).toEqual([]);
    const [alicesAccount] = (await list(aliceKey)).accounts;
    const deleted = await stack.call('DELETE', `/public/accounts/${alicesAccount?.id}/`, { apiKey: bobKey });
    expect(deleted.status).toBe(404);
    expect(deleted.body).toEqual({ error: 'Account not found' });
    expect((await list(aliceKey)).accounts.map((account) => account.provider_account_id)).toEqual(['sbx-network-dev', 'sbx-mailbox-dev']);
  });

  it('refuses unknown, unsupported and malformed provider accounts with a clear 400', async () => {
    const whatsapp = await stack.provider.control.createAccount({ type: 'WHATSAPP' });
    const cases: [unknown, string][] = [
      [{ provider_account_id: 'no-such-account' }, 'provider_account_id is not an account of the network provider'],
      [{ provider_account_id: whatsapp.id }, 'Unsupported provider account type: WHATSAPP (only network accounts and mailboxes)'],
      [{}, 'provider_account_id is required'],
      [{ provider_account_id: '' }, 'provider_account_id is required'],
      [{ provider_account_id: 'a/b' }, 'provider_account_id must contain only letters, digits and _ . : -'],
      [{ provider_account_id: 'ok', name: 'x'.repeat(101) }, 'name must be at most 100 characters'],
    ];
    for (const [body, error] of cases) {
      const response = await register(bobKey, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toEqual({ error });
    }
    expect((await list(bobKey)).accounts).toEqual([]);
  });

  it('answers 502 when the provider cannot be asked, and registers nothing', async () => {
    const account = await stack.provider.control.createAccount({ type: 'LINKEDIN' });
    await stack.provider.control.addFault({ kind: 'status', status: 500, path: '/api/v1/accounts/', times: 1 });
    const response = await register(bobKey, { provider_account_id: account.id });
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ error: 'Failed to reach the network provider', details: 'The provider answered HTTP 500 (errors/provider_error)' });
    expect((await list(bobKey)).accounts).toEqual([]);
  });

  it('deletes an account and frees its provider id', async () => {
    const account = await stack.provider.control.createAccount({ type: 'LINKEDIN' });
    const created = await register(bobKey, { provider_account_id: account.id });
    const deleted = await stack.call('DELETE', `/public/accounts/${created.body.account.id}/`, { apiKey: bobKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    expect((await list(bobKey)).accounts).toEqual([]);
    const { Item } = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: providerAccountKey(account.id) }));
    expect(Item).toBeUndefined();
    expect((await register(aliceKey, { provider_account_id: account.id })).status).toBe(201);
    expect((await stack.call('DELETE', '/public/accounts/abc/', { apiKey: bobKey })).status).toBe(404);
  });

  it('follows status changes the provider posts to the inbound webhook', async () => {
    const account = await stack.provider.control.createAccount({ type: 'LINKEDIN' });
    await register(aliceKey, { provider_account_id: account.id });
    const posted = await stack.provider.control.setAccountStatus(account.id, 'CREDENTIALS');
    expect(posted.deliveries).toEqual([{ url: `${stack.baseUrl}/api/v1/webhooks/provider`, status: 200 }]);
    const mine = () => list(aliceKey).then((body) => body.accounts.find((a) => a.provider_account_id === account.id));
    const view = (status: string, isActive: boolean) => ({
      id: anId(),
      name: account.name,
      type: 'NETWORK',
      status,
      is_active: isActive,
      provider_account_id: account.id,
      provider_type: 'LINKEDIN',
      ...DEFAULTS,
      created_at: aTimestamp(),
      updated_at: aTimestamp(),
    });
    expect(await mine()).toEqual(view('CREDENTIALS', false));
    for (const status of ['RECONNECTED', 'SYNC_SUCCESS', 'CREATION_SUCCESS', 'OK']) {
      await stack.provider.control.setAccountStatus(account.id, status);
      expect(await mine(), status).toEqual(view(status, true));
    }
    for (const status of ['ERROR', 'STOPPED', 'CONNECTING']) {
      await stack.provider.control.setAccountStatus(account.id, status);
      expect(await mine(), status).toEqual(view(status, false));
    }
  });

  it('accepts inbound webhooks only with the shared secret, never with an API key', async () => {
    const payload = { AccountStatus: { account_id: 'sbx-network-dev', account_type: 'LINKEDIN', message: 'ERROR' } };
    for (const secret of [undefined, '', 'wrong-secret']) {
      const response = await inbound(payload, secret);
      expect(response.status, String(secret)).toBe(401);
      expect(response.body).toEqual({ error: 'Invalid webhook secret' });
    }
    const withKey = await stack.call('POST', '/webhooks/provider/', { apiKey: aliceKey, body: payload });
    expect(withKey.status).toBe(401);
    expect((await list(aliceKey)).accounts.find((a) => a.provider_account_id === 'sbx-network-dev')?.status).toBe('OK');
  });

  it('acknowledges events it does not route yet, and ignores accounts it does not know', async () => {
    // Reply and accepted-invitation events reach the endpoint exactly as the provider sends them.
    const reply = await stack.provider.control.reply({ account_id: 'sbx-network-dev', from: 'some-prospect', text: 'Hello!' });
    expect(reply.deliveries.map((delivery) => delivery.status)).toEqual([200]);
    const unknown = await stack.provider.control.createAccount({ type: 'LINKEDIN' });
    const status = await stack.provider.control.setAccountStatus(unknown.id, 'ERROR');
    expect(status.deliveries.map((delivery) => delivery.status)).toEqual([200]);
  });

  it('creates a hosted-connect link whose completion registers the account in the right workspace', async () => {
    const link = await stack.call<{ success: boolean; url: string; expires_at: string }>('POST', '/public/accounts/connect-link/', {
      apiKey: bobKey,
      body: { type: 'EMAIL', success_redirect_url: 'https://app.example.com/connected' },
    });
    expect(link.status).toBe(201);
    expect(link.body.url).toMatch(new RegExp(`^${stack.provider.url}/hosted/hl_[0-9a-f]{16}$`));
    // Links live one hour from their creation on the service's clock.
    expect(link.body.expires_at).toBe(new Date(clock.now().getTime() + 3_600_000).toISOString());

    const linkId = link.body.url.split('/').pop() ?? '';
    const completed = await stack.provider.control.completeHostedLink(linkId);
    expect(completed.notify_status).toBe(200);
    const accounts = (await list(bobKey)).accounts;
    // Registered by the notification, then updated by the account-status webhook that follows it.
    expect(accounts).toEqual([
      {
        id: anId(),
        name: completed.account.name,
        type: 'EMAIL',
        status: 'CREATION_SUCCESS',
        is_active: true,
        provider_account_id: completed.account.id,
        provider_type: 'MAIL',
        ...DEFAULTS,
        created_at: aTimestamp(),
        updated_at: aTimestamp(),
      },
    ]);

    const bad = await stack.call('POST', '/public/accounts/connect-link/', { apiKey: bobKey, body: { type: 'FAX' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "type must be either 'NETWORK' or 'EMAIL'" });
    const unknownReconnect = await stack.call('POST', '/public/accounts/connect-link/', { apiKey: bobKey, body: { reconnect_account_id: 999999999 } });
    expect(unknownReconnect.status).toBe(404);
  });

  it('refuses a hosted-connect notification with a forged or missing state', async () => {
    const account = await stack.provider.control.createAccount({ type: 'LINKEDIN' });
    for (const name of [undefined, 'cs1.1.9999999999999.forged', `cs1.${alice.workspaceId}.9999999999999.${'A'.repeat(43)}`]) {
      const response = await stack.call('POST', '/webhooks/provider/hosted-auth/', {
        body: { status: 'CREATION_SUCCESS', account_id: account.id, ...(name === undefined ? {} : { name }) },
      });
      expect(response.status, String(name)).toBe(403);
      expect(response.body).toEqual({ error: 'Invalid connect state' });
    }
    expect((await list(aliceKey)).accounts.map((a) => a.provider_account_id)).not.toContain(account.id);
  });
});
