import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyCredentialKey, apiKeyRecordKey } from '../../../shared/db/keys';
import { aTimestamp, anId } from '../../support/formats';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

const MISSING_KEY = { error: 'Missing API key', message: 'Provide X-API-Key header' };

describe('API keys over HTTP', () => {
  let stack: TestStack;
  let alice: SignedUpUser;
  let bob: SignedUpUser;

  beforeAll(async () => {
    stack = await startTestStack();
    alice = await signUp(stack);
    bob = await signUp(stack);
  });
  afterAll(async () => stack?.stop());

  it('creates a key with exactly the spec fields, shows the secret once, and lists it without the secret', async () => {
    const created = await stack.call('POST', '/api-keys/', { token: alice.token, body: { name: 'Server key' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      ['created_at', 'id', 'is_active', 'key', 'last_used', 'name', 'prefix', 'updated_at'].sort(),
    );
    expect(created.body).toEqual({
      id: anId(),
      name: 'Server key',
      prefix: expect.stringMatching(/^[0-9a-f]{12}$/),
      key: expect.stringMatching(new RegExp(`^${created.body.prefix}\\.[A-Za-z0-9_-]{43}$`)),
      is_active: true,
      last_used: null,
      created_at: aTimestamp(),
      updated_at: created.body.created_at,
    });
    const key = String(created.body.key);
    expect(key.startsWith(`${created.body.prefix}.`)).toBe(true);
    expect(key.split('.')[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.body.created_at).toBe(created.body.updated_at);

    const listed = await stack.call<{ api_keys: Record<string, unknown>[] }>('GET', '/api-keys/', { token: alice.token });
    expect(listed.status).toBe(200);
    const item = listed.body.api_keys.find((k) => k.id === created.body.id);
    expect(item).toEqual({ ...created.body, key: undefined });
    expect(Object.keys(item ?? {}).sort()).toEqual(['created_at', 'id', 'is_active', 'last_used', 'name', 'prefix', 'updated_at'].sort());
    expect(listed.text).not.toContain(key.split('.')[1]);
  });

  it('stores only a hash of the secret', async () => {
    const { id, key, prefix } = await createKey(stack, alice, 'hash check');
    const secret = key.split('.')[1] ?? '';
    for (const itemKey of [apiKeyRecordKey(alice.userId, id), apiKeyCredentialKey(prefix)]) {
      const items = await stack.db.send(
        new QueryCommand({ TableName: stack.tableName, KeyConditionExpression: 'pk = :pk AND sk = :sk', ExpressionAttributeValues: { ':pk': itemKey.pk, ':sk': itemKey.sk } }),
      );
      expect(items.Items).toHaveLength(1);
      expect(JSON.stringify(items.Items)).not.toContain(secret);
    }
  });

  it('accepts the key in X-API-Key whatever the header case, and sets last_used after first use', async () => {
    const { id, key } = await createKey(stack, alice, 'case check');
    for (const name of ['X-API-Key', 'x-api-key', 'X-API-KEY']) {
      const response = await stack.call('GET', '/api-keys/', { headers: { [name]: key } });
      expect(response.status).toBe(200);
    }
    const listed = await stack.call<{ api_keys: { id: number; last_used: string | null; created_at: string }[] }>('GET', '/api-keys/', { token: alice.token });
    const used = listed.body.api_keys.find((k) => k.id === id);
    expect(used?.last_used).toEqual(aTimestamp());
    // Written by the first use, which came after the key was created.
    expect(Date.parse(used?.last_used ?? '')).toBeGreaterThanOrEqual(Date.parse(used?.created_at ?? ''));
  });

  it('lets an API key manage its own user’s keys', async () => {
    const { key } = await createKey(stack, alice, 'manager');
    const created = await stack.call('POST', '/api-keys/', { apiKey: key, body: { name: 'made by a key' } });
    expect(created.status).toBe(201);
    const listed = await stack.call<{ api_keys: { name: string }[] }>('GET', '/api-keys/', { apiKey: key });
    expect(listed.body.api_keys).toContainEqual({ ...created.body, key: undefined });
  });

  it('rotates: new prefix and secret, updated_at changes, the old key fails at once and the new one works', async () => {
    const original = await stack.call('POST', '/api-keys/', { token: alice.token, body: { name: 'to rotate' } });
    const oldKey = String(original.body.key);
    expect((await stack.call('GET', '/api-keys/', { apiKey: oldKey })).status).toBe(200);

    const rotated = await stack.call('POST', `/api-keys/${original.body.id}/rotate/`, { token: alice.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      id: original.body.id,
      name: 'to rotate',
      prefix: expect.stringMatching(/^[0-9a-f]{12}$/),
      key: expect.stringMatching(/^[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/),
      is_active: true,
      last_used: aTimestamp(),
      created_at: original.body.created_at,
      updated_at: aTimestamp(),
    });
    expect(rotated.body.prefix).not.toBe(original.body.prefix);
    expect(rotated.body.key).not.toBe(oldKey);
    expect(String(rotated.body.key).startsWith(`${rotated.body.prefix}.`)).toBe(true);
    expect(Date.parse(String(rotated.body.updated_at))).toBeGreaterThan(Date.parse(String(original.body.updated_at)));
    expect(rotated.body.created_at).toBe(original.body.created_at);

    const withOld = await stack.call('GET', '/api-keys/', { apiKey: oldKey });
    expect(withOld.status).toBe(401);
    expect(withOld.body).toEqual(MISSING_KEY);
    expect((await stack.call('GET', '/api-keys/', { apiKey: String(rotated.body.key) })).status).toBe(200);
  });

  it('revokes: the key fails at once, shows is_active false, and revoking again still succeeds', async () => {
    const { id, key } = await createKey(stack, alice, 'to revoke');
    const revoked = await stack.call('POST', `/api-keys/${id}/revoke/`, { token: alice.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true });
    const after = await stack.call('GET', '/api-keys/', { apiKey: key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual(MISSING_KEY);
    const listed = await stack.call<{ api_keys: { id: number; is_active: boolean }[] }>('GET', '/api-keys/', { token: alice.token });
    expect(listed.body.api_keys.find((k) => k.id === id)).toEqual({
      id,
      name: 'to revoke',
      prefix: key.split('.')[0],
      is_active: false,
      last_used: null,
      created_at: aTimestamp(),
      updated_at: aTimestamp(),
    });
    expect((await stack.call('POST', `/api-keys/${id}/revoke/`, { token: alice.token })).body).toEqual({ success: true });
    const rotate = await stack.call('POST', `/api-keys/${id}/rotate/`, { token: alice.token });
    expect(rotate.status).toBe(409);
    expect(rotate.body).toEqual({ error: 'API key is revoked and cannot be rotated' });
  });

  it('a key can revoke itself and is refused right after', async () => {
    const { id, key } = await createKey(stack, alice, 'self revoke');
    expect((await stack.call('POST', `/api-keys/${id}/revoke/`, { apiKey: key })).status).toBe(200);
    expect((await stack.call('GET', '/api-keys/', { apiKey: key })).status).toBe(401);
  });

  it('never shows or changes another user’s keys: 404 on rotate and revoke, and they work on', async () => {
    const bobs = await createKey(stack, bob, 'bob key');
    for (const action of ['rotate', 'revoke']) {
      const response = await stack.call('POST', `/api-keys/${bobs.id}/${action}/`, { token: alice.token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'API key not found' });
    }
    const alicesList = await stack.call<{ api_keys: { id: number }[] }>('GET', '/api-keys/', { token: alice.token });
    expect(alicesList.body.api_keys.map((k) => k.id)).not.toContain(bobs.id);
    expect((await stack.call('GET', '/api-keys/', { apiKey: bobs.key })).status).toBe(200);
  });

  it('answers 404 for unknown and malformed key ids', async () => {
    for (const id of ['999999999', 'abc', '-1', '0', '1.5']) {
      const response = await stack.call('POST', `/api-keys/${id}/rotate/`, { token: alice.token });
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual({ error: 'API key not found' });
    }
  });

  it('refuses missing, malformed, unknown and wrong-secret keys with the same 401', async () => {
    const { key } = await createKey(stack, alice, 'secret check');
    const prefix = key.split('.')[0];
    const wrongSecret = `${prefix}.${'A'.repeat(43)}`;
    for (const presented of [undefined, '', 'garbage', 'abc.def', `ffffffffffff.${'B'.repeat(43)}`, wrongSecret, `${key}x`]) {
      const response = await stack.call('GET', '/api-keys/', presented === undefined ? {} : { apiKey: presented });
      expect(response.status, String(presented)).toBe(401);
      expect(response.body).toEqual(MISSING_KEY);
    }
  });

  it('validates the create body', async () => {
    const cases: [unknown, string][] = [
      [{}, 'name is required'],
      [{ name: '' }, 'name is required'],
      [{ name: '   ' }, 'name is required'],
      [{ name: null }, 'name is required'],
      [{ name: '\u0000' }, 'name is required'],
      [{ name: 42 }, 'name must be a string'],
      [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters'],
      [[], 'Request body must be a JSON object'],
      ['text', 'Request body must be a JSON object'],
    ];
    for (const [body, error] of cases) {
      const response = await stack.call('POST', '/api-keys/', { token: alice.token, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toEqual({ error });
    }
  });
});
