import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { senderAccountKey } from '../../../shared/db/keys';
import { ManualClock } from '../../../shared/time/clock';
import { type TestStack, createKey, setCreatedAt, signUp, startTestStack } from '../../support/test-stack';

type AccountView = { id: number; name: string; created_at: string; daily_limits: { emails: number; invitations: number; network_messages: number } };

/** Sender accounts over time: the order they are listed in, and one deleted and registered again. Each test has workspaces of its own. */
describe('sender accounts registered, deleted and registered again', () => {
  const clock = new ManualClock();
  let stack: TestStack;

  const list = async (apiKey: string) => (await stack.call<{ accounts: AccountView[] }>('GET', '/public/accounts/', { apiKey })).body;
  const register = (apiKey: string, body: unknown) => stack.call<{ account: AccountView }>('POST', '/public/accounts/', { apiKey, body });
  const workspace = async () => {
    const user = await signUp(stack);
    return { user, key: (await createKey(stack, user)).key };
  };

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, clock });
  });
  afterAll(async () => stack?.stop());

  it('lists accounts oldest first by when they were registered, not by id (one registered later may have a lower id)', async () => {
    const { user, key } = await workspace();
    const registered = [];
    for (const name of ['registered later, lower id', 'registered first, higher id']) {
      const account = await stack.provider.control.createAccount({ type: 'LINKEDIN', name });
      registered.push((await register(key, { provider_account_id: account.id })).body.account);
    }
    const [later, first] = registered as [AccountView, AccountView];
    await setCreatedAt(stack, senderAccountKey(user.workspaceId, later.id), new Date(Date.parse(first.created_at) + 1).toISOString());
    expect((await list(key)).accounts.map((account) => account.name)).toEqual(['registered first, higher id', 'registered later, lower id']);
  });

  it("keeps no control characters in the name it is given; given nothing else, the provider's name", async () => {
    const { key } = await workspace();
    const named = await stack.provider.control.createAccount({ type: 'LINKEDIN', name: 'Provider name' });
    expect((await register(key, { provider_account_id: named.id, name: ' Sales\u0000 desk\n' })).body.account.name).toBe('Sales desk');
    const blank = await stack.provider.control.createAccount({ type: 'LINKEDIN', name: 'Provider name' });
    expect((await register(key, { provider_account_id: blank.id, name: '\u0000\u0007' })).body.account.name).toBe('Provider name');
    // The provider's own name is cleaned the same way, and never cut inside a character.
    const controlled = await stack.provider.control.createAccount({ type: 'LINKEDIN', name: 'Jane\u0000\u0007Doe\nX' });
    expect((await register(key, { provider_account_id: controlled.id })).body.account.name).toBe('JaneDoe X');
    const long = await stack.provider.control.createAccount({ type: 'LINKEDIN', name: `${'a'.repeat(99)}😀tail` });
    expect((await register(key, { provider_account_id: long.id })).body.account.name).toBe('a'.repeat(99));
    // An unpaired surrogate (no Unicode text) is U+FFFD, as in the provider's webhooks.
    const lone = await stack.provider.control.createAccount({ type: 'LINKEDIN', name: 'Lone \ud800 name' });
    const registered = await register(key, { provider_account_id: lone.id });
    expect(registered.body.account.name).toBe('Lone \uFFFD name');
    expect(registered.text).not.toMatch(/\\ud800/i);
  });

  it('brings a deleted account back with its id and daily limits when the workspace registers it again, and only there', async () => {
    const [{ key: carolKey }, { key: daveKey }] = [await workspace(), await workspace()];
    const account = await stack.provider.control.createAccount({ type: 'LINKEDIN', name: 'Comes back' });
    const first = (await register(carolKey, { provider_account_id: account.id })).body.account;
    expect((await stack.call('PATCH', `/public/accounts/${first.id}/`, { apiKey: carolKey, body: { daily_limits: { invitations: 7 } } })).status).toBe(200);
    expect((await stack.call('DELETE', `/public/accounts/${first.id}/`, { apiKey: carolKey })).status).toBe(200);
    clock.advance(60_000);
    const again = await register(carolKey, { provider_account_id: account.id });
    expect(again.status).toBe(201);
    expect(again.body.account).toMatchObject({ id: first.id, name: 'Comes back', created_at: first.created_at, daily_limits: { emails: 50, invitations: 7, network_messages: 50 } });
    expect((await list(carolKey)).accounts.map((listed) => listed.id)).toEqual([first.id]);
    // Deleted again and registered in another workspace: a new account there.
    expect((await stack.call('DELETE', `/public/accounts/${first.id}/`, { apiKey: carolKey })).status).toBe(200);
    const elsewhere = await register(daveKey, { provider_account_id: account.id });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.account.id).not.toBe(first.id);
    expect(elsewhere.body.account.daily_limits).toEqual({ emails: 50, invitations: 20, network_messages: 50 });
  });
});
