import { beforeEach, describe, expect, it } from 'vitest';
import { createApiKeyService, createKeyRevoker } from '../../../shared/domain/api-keys/api-key-service';
import { InMemoryApiKeyRepository, RecordingUsageKeys, sequentialIds } from '../../support/fakes/in-memory-api-keys';

describe('API key service', () => {
  let keys: InMemoryApiKeyRepository;
  let usageKeys: RecordingUsageKeys;
  let now: Date;
  let service: ReturnType<typeof createApiKeyService>;

  beforeEach(() => {
    keys = new InMemoryApiKeyRepository();
    usageKeys = new RecordingUsageKeys();
    now = new Date('2026-11-21T12:00:00.000Z');
    service = createApiKeyService({ keys, usageKeys, ids: sequentialIds(100), clock: { now: () => now }, maxActiveKeysPerUser: 2 });
  });

  it('pairs each key with its own usage key', async () => {
    const first = await service.create({ userId: 1, workspaceId: 10, name: 'a' });
    const second = await service.create({ userId: 1, workspaceId: 10, name: 'b' });
    expect([first.key.usageKeyId, second.key.usageKeyId]).toEqual(['usage-1', 'usage-2']);
    expect(keys.credentials.get(first.key.prefix)?.usageKeyValue).toBe(`value1${'x'.repeat(30)}`);
    expect(keys.credentials.get(second.key.prefix)?.usageKeyValue).toBe(`value2${'x'.repeat(30)}`);
  });

  it('refuses more active keys than the limit with a clear validation error, counting revoked keys out', async () => {
    const first = await service.create({ userId: 1, workspaceId: 10, name: 'a' });
    await service.create({ userId: 1, workspaceId: 10, name: 'b' });
    await expect(service.create({ userId: 1, workspaceId: 10, name: 'c' })).rejects.toMatchObject({
      kind: 'validation',
      message: 'API key limit reached: at most 2 active keys per user',
    });
    await service.revoke(1, first.key.id);
    await expect(service.create({ userId: 1, workspaceId: 10, name: 'c' })).resolves.toEqual({
      key: {
        id: 102,
        userId: 1,
        workspaceId: 10,
        name: 'c',
        prefix: expect.stringMatching(/^[0-9a-f]{12}$/),
        isActive: true,
        lastUsed: null,
        createdAt: '2026-11-21T12:00:00.000Z',
        updatedAt: '2026-11-21T12:00:00.000Z',
        usageKeyId: 'usage-3',
      },
      fullKey: expect.stringMatching(/^[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/),
    });
  });

  it('retires the new usage key when storing the key fails, so nothing is left half-written', async () => {
    keys.failNextWrite = true;
    await expect(service.create({ userId: 1, workspaceId: 10, name: 'a' })).rejects.toThrow(/^write failed$/);
    expect(usageKeys.retired).toEqual(usageKeys.issued);
    expect(keys.records.size).toBe(0);
  });

  it('rotates to a new usage key, retires the old one, and moves updated_at even within the same millisecond', async () => {
    const created = await service.create({ userId: 1, workspaceId: 10, name: 'a' });
    const rotated = await service.rotate(1, created.key.id);
    expect(rotated.key.prefix).not.toBe(created.key.prefix);
    expect(created.key.updatedAt).toBe('2026-11-21T12:00:00.000Z');
    expect(rotated.key.updatedAt).toBe('2026-11-21T12:00:00.001Z');
    expect(usageKeys.retired).toEqual([created.key.usageKeyId]);
    expect(keys.credentials.has(created.key.prefix)).toBe(false);
  });

  it('keeps the old key when a rotation cannot be stored', async () => {
    const created = await service.create({ userId: 1, workspaceId: 10, name: 'a' });
    keys.failNextWrite = true;
    await expect(service.rotate(1, created.key.id)).rejects.toThrow(/^write failed$/);
    expect(keys.credentials.has(created.key.prefix)).toBe(true);
    expect(usageKeys.retired).toEqual([usageKeys.issued[1]]);
  });

  it('answers not found for another user’s key and conflict for rotating a revoked key', async () => {
    const created = await service.create({ userId: 1, workspaceId: 10, name: 'a' });
    await expect(service.rotate(2, created.key.id)).rejects.toMatchObject({ kind: 'not_found', message: 'API key not found' });
    await expect(service.revoke(2, created.key.id)).rejects.toMatchObject({ kind: 'not_found', message: 'API key not found' });
    await service.revoke(1, created.key.id);
    await expect(service.rotate(1, created.key.id)).rejects.toMatchObject({ kind: 'conflict', message: 'API key is revoked and cannot be rotated' });
  });

  it('revokes exactly the user’s active keys acting in one workspace, retiring their usage keys', async () => {
    service = createApiKeyService({ keys, usageKeys, ids: sequentialIds(100), clock: { now: () => now }, maxActiveKeysPerUser: 10 });
    const inTen = await service.create({ userId: 1, workspaceId: 10, name: 'a' });
    const alreadyRevoked = await service.create({ userId: 1, workspaceId: 10, name: 'b' });
    await service.revoke(1, alreadyRevoked.key.id);
    const inEleven = await service.create({ userId: 1, workspaceId: 11, name: 'c' });
    const othersInTen = await service.create({ userId: 2, workspaceId: 10, name: 'd' });
    usageKeys.retired = [];
    now = new Date('2026-11-21T13:00:00.000Z');

    const revoker = createKeyRevoker({ keys, usageKeys, clock: { now: () => now } });
    expect(await revoker.revokeInWorkspace(1, 10)).toBe(1);
    expect(usageKeys.retired).toEqual([inTen.key.usageKeyId]);
    expect(await keys.get(1, inTen.key.id)).toMatchObject({ isActive: false, updatedAt: '2026-11-21T13:00:00.000Z' });
    expect(await keys.getCredential(inTen.key.prefix)).toBeUndefined();
    for (const kept of [inEleven.key, othersInTen.key]) expect(await keys.get(kept.userId, kept.id)).toMatchObject({ isActive: true });
    expect(await revoker.revokeInWorkspace(1, 10)).toBe(0);
  });

  it('revokes every key of the member in the table before retiring any usage key, so a timeout leaves no working key', async () => {
    service = createApiKeyService({ keys, usageKeys, ids: sequentialIds(100), clock: { now: () => now }, maxActiveKeysPerUser: 10 });
    const made = [];
    for (const name of ['a', 'b', 'c']) made.push((await service.create({ userId: 1, workspaceId: 10, name })).key);
    // Each gateway call sees which keys the table still holds active.
    const activeAtRetire: number[] = [];
    const slowGateway = {
      retire: async () => {
        activeAtRetire.push((await keys.listForUser(1)).filter((key) => key.isActive).length);
      },
    };
    const revoker = createKeyRevoker({ keys, usageKeys: slowGateway, clock: { now: () => now } });
    expect(await revoker.revokeInWorkspace(1, 10)).toBe(3);
    expect(activeAtRetire).toEqual([0, 0, 0]);
    for (const key of made) expect(await keys.getCredential(key.prefix)).toBeUndefined();
  });

  it('goes on past a revocation that fails, retires the usage keys of those it revoked, then passes the failure on', async () => {
    service = createApiKeyService({ keys, usageKeys, ids: sequentialIds(100), clock: { now: () => now }, maxActiveKeysPerUser: 10 });
    const made = [];
    for (const name of ['a', 'b', 'c']) made.push((await service.create({ userId: 1, workspaceId: 10, name })).key);
    usageKeys.retired = [];
    // The second revocation's write fails (the table refuses it).
    const failing = Object.create(keys) as typeof keys;
    let revocations = 0;
    failing.revoke = async (key, at) => {
      revocations += 1;
      if (revocations === 2) throw new Error('ProvisionedThroughputExceededException');
      return keys.revoke(key, at);
    };
    const revoker = createKeyRevoker({ keys: failing, usageKeys, clock: { now: () => now } });
    await expect(revoker.revokeInWorkspace(1, 10)).rejects.toThrow('ProvisionedThroughputExceededException');
    expect(usageKeys.retired).toEqual([made[0]?.usageKeyId, made[2]?.usageKeyId]);
    expect((await keys.listForUser(1)).filter((key) => key.isActive).map((key) => key.id)).toEqual([made[1]?.id]);
    // Repeated, it revokes the one left.
    expect(await createKeyRevoker({ keys, usageKeys, clock: { now: () => now } }).revokeInWorkspace(1, 10)).toBe(1);
    expect(usageKeys.retired).toEqual([made[0]?.usageKeyId, made[2]?.usageKeyId, made[1]?.usageKeyId]);
  });
});
