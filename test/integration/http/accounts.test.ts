import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerAccountKey, senderAccountKey } from '../../../shared/db/keys';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { aTimestamp, anId } from '../../support/formats';
import { ManualClock } from '../../../shared/time/clock';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

type AccountView = {
  id: number;
  name: string;
  type: string;
  status: string;
  is_active: boolean;
  provider_account_id: string;
  provider_type: string;
  daily_limits: { emails: number; invitations: number; network_messages: number };
  sending_paused: { reason: string; until: string | null; at: string } | null;
  created_at: string;
  updated_at: string;
};

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

  describe('daily limits and the sending pause', () => {
    let carol: SignedUpUser;
    let carolKey: string;
    const patch = (apiKey: string, id: number | string, body: unknown) =>
      stack.call<{ success: boolean; account: AccountView }>('PATCH', `/public/accounts/${id}/`, { apiKey, body });
    const fresh = async (type = 'LINKEDIN') => {
      const provider = await stack.provider.control.createAccount({ type });
      return (await register(carolKey, { provider_account_id: provider.id })).body.account;
    };
    const listed = async (id: number) => (await list(carolKey)).accounts.find((account) => account.id === id);
    const repository = () => new DynamoSenderAccountRepository(stack.db, stack.tableName);
    const stored = async (id: number) => {
      const account = await repository().get(carol.workspaceId, id);
      if (!account) throw new Error(`no account ${id}`);
      return account;
    };

    beforeAll(async () => {
      carol = await signUp(stack);
      carolKey = (await createKey(stack, carol)).key;
    });

    it('changes daily limits, merging a partial object with the current ones, and lists them', async () => {
      const account = await fresh();
      expect(account.daily_limits).toEqual({ emails: 50, invitations: 20, network_messages: 50 });
      clock.advance(60_000);
      const changed = await patch(carolKey, account.id, { daily_limits: { emails: 120, invitations: 30, network_messages: 0 } });
      expect(changed.status).toBe(200);
      expect(changed.body).toEqual({
        success: true,
        account: { ...account, daily_limits: { emails: 120, invitations: 30, network_messages: 0 }, updated_at: clock.now().toISOString() },
      });
      expect(await listed(account.id)).toEqual(changed.body.account);

      const merged = await patch(carolKey, account.id, { daily_limits: { invitations: 100 } });
      expect(merged.body.account.daily_limits).toEqual({ emails: 120, invitations: 100, network_messages: 0 });
      const renamed = await patch(carolKey, account.id, { name: '  Outbound 1  ', daily_limits: { emails: 2000 } });
      expect(renamed.body.account).toEqual({
        ...changed.body.account,
        name: 'Outbound 1',
        daily_limits: { emails: 2000, invitations: 100, network_messages: 0 },
      });
      // Nothing to change: the account as it is.
      expect((await patch(carolKey, account.id, {})).body).toEqual(renamed.body);
      expect((await patch(carolKey, account.id, { daily_limits: {} })).body).toEqual(renamed.body);
      expect(await listed(account.id)).toEqual(renamed.body.account);
      const { Item } = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: senderAccountKey(carol.workspaceId, account.id) }));
      expect(Item?.dailyLimits).toEqual({ emails: 2000, invitations: 100, networkMessages: 0 });

      // An account that never had limits stored: the defaults fill in what the PATCH leaves out.
      const mailbox = await fresh('MAIL');
      const first = await patch(carolKey, mailbox.id, { daily_limits: { network_messages: 150 } });
      expect(first.body.account.daily_limits).toEqual({ emails: 50, invitations: 20, network_messages: 150 });
      expect((await listed(mailbox.id))?.daily_limits).toEqual({ emails: 50, invitations: 20, network_messages: 150 });
    });

    it('refuses limits out of range, unknown fields and bad names with a 400 naming them, and changes nothing', async () => {
      const account = await fresh();
      const cases: [unknown, string][] = [
        [{ daily_limits: { emails: 1.5 } }, 'daily_limits.emails must be an integer from 0 to 2000'],
        [{ daily_limits: { emails: '10' } }, 'daily_limits.emails must be an integer from 0 to 2000'],
        [{ daily_limits: { emails: 2001 } }, 'daily_limits.emails must be an integer from 0 to 2000'],
        [{ daily_limits: { invitations: -1 } }, 'daily_limits.invitations must be an integer from 0 to 100'],
        [{ daily_limits: { invitations: 101 } }, 'daily_limits.invitations must be an integer from 0 to 100'],
        [{ daily_limits: { network_messages: 151 } }, 'daily_limits.network_messages must be an integer from 0 to 150'],
        [{ daily_limits: { network_messages: null } }, 'daily_limits.network_messages must be an integer from 0 to 150'],
        [{ daily_limits: { emails: 10, messages: 5 } }, 'daily_limits.messages is not a daily limit (limits: emails, invitations, network_messages)'],
        [{ daily_limits: [10] }, 'daily_limits must be an object with emails, invitations and/or network_messages'],
        [{ daily_limits: null }, 'daily_limits must be an object with emails, invitations and/or network_messages'],
        [{ daily_limits: { emails: 10 }, status: 'OK' }, 'status cannot be changed (fields: name, daily_limits, sending_paused)'],
        [{ provider_account_id: 'other' }, 'provider_account_id cannot be changed (fields: name, daily_limits, sending_paused)'],
        [{ name: '   ' }, 'name must be 1 to 100 characters'],
        [{ name: 'x'.repeat(101) }, 'name must be 1 to 100 characters'],
        [{ name: 7 }, 'name must be 1 to 100 characters'],
      ];
      for (const [body, error] of cases) {
        const response = await patch(carolKey, account.id, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body).toEqual({ error });
      }
      expect(await listed(account.id)).toEqual(account);
    });

    it("answers 404 Account not found for an unknown account and another workspace's, and changes nothing", async () => {
      const account = await fresh();
      for (const id of [999_999_999, 'abc', 0]) {
        const response = await patch(carolKey, id, { daily_limits: { emails: 10 } });
        expect(response.status, String(id)).toBe(404);
        expect(response.body).toEqual({ error: 'Account not found' });
      }
      const others = await patch(bobKey, account.id, { daily_limits: { emails: 10 } });
      expect(others.status).toBe(404);
      expect(others.body).toEqual({ error: 'Account not found' });
      expect(await listed(account.id)).toEqual(account);
    });

    it("shows the engine's pause until the provider reports the account active again", async () => {
      const account = await fresh();
      const pause = { reason: 'errors/disconnected_account', until: null, at: clock.now().toISOString() };
      expect(await repository().pauseSending(await stored(account.id), pause, pause.at)).toBe(true);
      expect(await listed(account.id)).toEqual({ ...account, sending_paused: pause, updated_at: pause.at });

      // An inactive status leaves it; an active one clears it in the same write.
      clock.advance(60_000);
      await stack.provider.control.setAccountStatus(account.provider_account_id, 'CREDENTIALS');
      expect(await listed(account.id)).toEqual({
        ...account,
        status: 'CREDENTIALS',
        is_active: false,
        sending_paused: pause,
        updated_at: clock.now().toISOString(),
      });
      clock.advance(60_000);
      await stack.provider.control.setAccountStatus(account.provider_account_id, 'OK');
      expect(await listed(account.id)).toEqual({ ...account, sending_paused: null, updated_at: clock.now().toISOString() });
      expect((await stored(account.id)).sendingPause).toBeUndefined();
    });

    it('keeps a timed pause through an active status until it runs out by itself', async () => {
      const account = await fresh();
      const pause = {
        reason: 'errors/limit_exceeded',
        until: new Date(clock.now().getTime() + 3_600_000).toISOString(),
        at: clock.now().toISOString(),
      };
      expect(await repository().pauseSending(await stored(account.id), pause, pause.at)).toBe(true);
      await stack.provider.control.setAccountStatus(account.provider_account_id, 'OK');
      expect(await listed(account.id)).toEqual({ ...account, sending_paused: pause, updated_at: clock.now().toISOString() });
      expect((await stored(account.id)).sendingPause).toEqual(pause);

      clock.advance(3_599_999);
      expect((await listed(account.id))?.sending_paused).toEqual(pause);
      clock.advance(1);
      expect((await listed(account.id))?.sending_paused).toBeNull();
    });

    it('ends a sending pause the provider will not clear when the owner sets sending_paused to null', async () => {
      const account = await fresh();
      // Paused on a refusal while the provider still calls the account OK: no status change will come.
      const pause = { reason: 'errors/disconnected_account', until: null, at: clock.now().toISOString() };
      expect(await repository().pauseSending(await stored(account.id), pause, pause.at)).toBe(true);
      expect((await listed(account.id))?.sending_paused).toEqual(pause);
      for (const [body, error] of [
        [{ sending_paused: {} }, 'sending_paused can only be set to null (to end the sending pause)'],
        [{ sending_paused: false }, 'sending_paused can only be set to null (to end the sending pause)'],
        [{ status: 'OK' }, 'status cannot be changed (fields: name, daily_limits, sending_paused)'],
      ] as const) {
        const refused = await patch(carolKey, account.id, body);
        expect([refused.status, refused.body]).toEqual([400, { error }]);
      }
      expect((await stored(account.id)).sendingPause).toEqual(pause);
      // Another workspace cannot end it.
      expect((await patch(bobKey, account.id, { sending_paused: null })).status).toBe(404);
      clock.advance(60_000);
      const ended = await patch(carolKey, account.id, { sending_paused: null });
      expect([ended.status, ended.body]).toEqual([200, { success: true, account: { ...account, sending_paused: null, updated_at: clock.now().toISOString() } }]);
      expect((await stored(account.id)).sendingPause).toBeUndefined();
      // Nothing paused: nothing to end, the account unchanged.
      clock.advance(60_000);
      const again = await patch(carolKey, account.id, { sending_paused: null });
      expect(again.body.account.updated_at).toBe(ended.body.account.updated_at);
    });

    it('merges limits into what is stored, also when the account was read before another change', async () => {
      const account = await fresh();
      const unset = await stored(account.id);
      const at = clock.now().toISOString();
      // Read with no limits stored, stored since: only the given limit changes.
      await patch(carolKey, account.id, { daily_limits: { emails: 10, invitations: 5 } });
      expect((await repository().updateSettings(unset, { dailyLimits: { networkMessages: 7 } }, at))?.dailyLimits).toEqual({
        emails: 10,
        invitations: 5,
        networkMessages: 7,
      });
      // Read with limits that are not stored (any more): the defaults fill in.
      const other = await fresh();
      const believed = { ...(await stored(other.id)), dailyLimits: { emails: 1, invitations: 1, networkMessages: 1 } };
      expect((await repository().updateSettings(believed, { dailyLimits: { invitations: 3 } }, at))?.dailyLimits).toEqual({
        emails: 50,
        invitations: 3,
        networkMessages: 50,
      });
      await stack.call('DELETE', `/public/accounts/${other.id}/`, { apiKey: carolKey });
      expect(await repository().updateSettings(believed, { dailyLimits: { invitations: 4 } }, at)).toBeUndefined();
    });

    it('pauses nothing once the account is gone', async () => {
      const account = await fresh();
      const before = await stored(account.id);
      await stack.call('DELETE', `/public/accounts/${account.id}/`, { apiKey: carolKey });
      const pause = { reason: 'errors/disconnected_account', until: null, at: clock.now().toISOString() };
      expect(await repository().pauseSending(before, pause, pause.at)).toBe(false);
      expect(await repository().get(carol.workspaceId, account.id)).toBeUndefined();
    });
  });
});
