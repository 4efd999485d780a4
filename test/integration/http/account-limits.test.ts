import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { senderAccountKey } from '../../../shared/db/keys';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { ManualClock } from '../../../shared/time/clock';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';
import type { AccountView } from './account-view';

/** A sender account's daily limits (PATCH) and its sending pause: set by the engine, ended by the provider, the clock or the owner. */
describe('sender accounts: daily limits and the sending pause', () => {
  // The service's time stands still here (from the real time the file starts), so times it answers with are exact.
  const clock = new ManualClock();
  let stack: TestStack;
  let bobKey: string;
  let carol: SignedUpUser;
  let carolKey: string;

  const list = async (apiKey: string) =>
    (await stack.call<{ success: boolean; accounts: AccountView[] }>('GET', '/public/accounts/', { apiKey })).body;
  const register = (apiKey: string, body: unknown) => stack.call<{ success: boolean; account: AccountView }>('POST', '/public/accounts/', { apiKey, body });

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, settings: { providerTimeoutMs: 500 }, clock });
    bobKey = (await createKey(stack, await signUp(stack))).key;
    carol = await signUp(stack);
    carolKey = (await createKey(stack, carol)).key;
  });
  afterAll(async () => stack?.stop());

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
    const renamed = await patch(carolKey, account.id, { name: '  Out\u0000bound\t1  ', daily_limits: { emails: 2000 } });
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
      [{ name: '\u0001\u0002' }, 'name must be 1 to 100 characters'],
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
