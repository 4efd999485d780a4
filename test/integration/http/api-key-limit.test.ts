import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyCounterKey } from '../../../shared/db/keys';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

const LIMIT_REACHED = { error: 'API key limit reached: at most 25 active keys per user' };

interface KeyList {
  api_keys: { id: number; is_active: boolean }[];
}

describe('the active API key limit over HTTP', () => {
  let stack: TestStack;

  beforeAll(async () => {
    // Sessions share a pool of usage keys (100 requests of burst each): these users' ~200 requests
    // could drain one pool key and meet the gateway's 429, which is not what this file tests.
    stack = await startTestStack({ sessionRateLimitBurst: 10_000 });
  });
  afterAll(async () => stack?.stop());

  const createMany = (user: SignedUpUser, count: number) =>
    Promise.all(Array.from({ length: count }, (_, i) => stack.call('POST', '/api-keys/', { token: user.token, body: { name: `key ${i}` } })));

  const statusCounts = (responses: { status: number }[]) => {
    const counts: Record<number, number> = {};
    for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  };

  const activeIds = async (user: SignedUpUser) => {
    const listed = await stack.call<KeyList>('GET', '/api-keys/', { token: user.token });
    expect(listed.status).toBe(200);
    return listed.body.api_keys
      .filter((key) => key.is_active)
      .map((key) => key.id)
      .sort((a, b) => a - b);
  };

  const counter = async (user: SignedUpUser) =>
    (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: apiKeyCounterKey(user.userId), ConsistentRead: true }))).Item;

  it('60 concurrent creates by one user end with exactly 25 keys; revoking one frees exactly one slot', async () => {
    const alice = await signUp(stack);
    const responses = await createMany(alice, 60);
    expect(statusCounts(responses)).toEqual({ 201: 25, 400: 35 });
    for (const refused of responses.filter((response) => response.status === 400)) expect(refused.body).toEqual(LIMIT_REACHED);
    const createdIds = responses
      .filter((response) => response.status === 201)
      .map((response) => Number(response.body.id))
      .sort((a, b) => a - b);
    expect(await activeIds(alice)).toEqual(createdIds);
    expect(await counter(alice)).toEqual({ ...apiKeyCounterKey(alice.userId), entityType: 'ApiKeyCounter', userId: alice.userId, activeKeys: 25 });

    const revoked = await stack.call('POST', `/api-keys/${createdIds[0]}/revoke/`, { token: alice.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true });
    // Revoking again changes nothing: the slot is freed once.
    expect((await stack.call('POST', `/api-keys/${createdIds[0]}/revoke/`, { token: alice.token })).status).toBe(200);

    const again = await createMany(alice, 5);
    expect(statusCounts(again)).toEqual({ 201: 1, 400: 4 });
    expect(await activeIds(alice)).toHaveLength(25);
    expect((await counter(alice))?.activeKeys).toBe(25);
  });

  it('rotation keeps the key’s slot: at the limit a rotated key still counts and another create is refused', async () => {
    const carol = await signUp(stack);
    expect(statusCounts(await createMany(carol, 25))).toEqual({ 201: 25 });
    const [first] = await activeIds(carol);
    expect((await stack.call('POST', `/api-keys/${first}/rotate/`, { token: carol.token })).status).toBe(200);
    const refused = await stack.call('POST', '/api-keys/', { token: carol.token, body: { name: 'one too many' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(LIMIT_REACHED);
    expect((await counter(carol))?.activeKeys).toBe(25);
  });

  it('a user whose keys predate the counter is held to the same limit: the counter starts from a count of active keys', async () => {
    const bob = await signUp(stack);
    const keys = [];
    for (let i = 0; i < 25; i += 1) keys.push(await createKey(stack, bob, `old ${i}`));
    // Keys written before the counter existed: the same items, without the counter item.
    await stack.db.send(new DeleteCommand({ TableName: stack.tableName, Key: apiKeyCounterKey(bob.userId) }));

    const refused = await createMany(bob, 3);
    expect(statusCounts(refused)).toEqual({ 400: 3 });
    expect(refused[0]?.body).toEqual(LIMIT_REACHED);
    expect((await counter(bob))?.activeKeys).toBe(25);

    // A revoke is the first write after the counter went missing: it counts the key it frees.
    await stack.db.send(new DeleteCommand({ TableName: stack.tableName, Key: apiKeyCounterKey(bob.userId) }));
    expect((await stack.call('POST', `/api-keys/${keys[0]?.id}/revoke/`, { token: bob.token })).status).toBe(200);
    expect((await counter(bob))?.activeKeys).toBe(24);
    expect(statusCounts(await createMany(bob, 4))).toEqual({ 201: 1, 400: 3 });
    expect(await activeIds(bob)).toHaveLength(25);
  });
});
