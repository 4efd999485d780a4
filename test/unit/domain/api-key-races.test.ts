import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiKey, ApiKeyCredential } from '../../../shared/domain/api-keys/api-key';
import { createApiKeyService } from '../../../shared/domain/api-keys/api-key-service';
import { InMemoryApiKeyRepository, RecordingUsageKeys, sequentialIds } from '../../support/fakes/in-memory-api-keys';

// What the service does when another request changes the user's keys between its read and its
// write: the repository's conditional writes decide, the service answers from their outcome.
describe('API key service under races', () => {
  let keys: InMemoryApiKeyRepository;
  let usageKeys: RecordingUsageKeys;
  let service: ReturnType<typeof createApiKeyService>;
  const now = new Date('2026-11-21T12:00:00.000Z');

  beforeEach(() => {
    keys = new InMemoryApiKeyRepository();
    usageKeys = new RecordingUsageKeys();
    service = createApiKeyService({ keys, usageKeys, ids: sequentialIds(100), clock: { now: () => now }, maxActiveKeysPerUser: 2 });
  });

  it('answers the limit error and retires its usage key when another create takes the last slot first', async () => {
    await service.create({ userId: 1, workspaceId: 10, name: 'a' });
    const store = keys.create.bind(keys);
    let raced = false;
    keys.create = async (key: ApiKey, credential: ApiKeyCredential, max: number) => {
      if (!raced) {
        raced = true;
        // The other request: passed its own check at the same moment and stored first.
        await store({ ...key, id: 999, prefix: 'ffffffffffff' }, { ...credential, keyId: 999, prefix: 'ffffffffffff' }, max);
      }
      return store(key, credential, max);
    };
    await expect(service.create({ userId: 1, workspaceId: 10, name: 'b' })).rejects.toMatchObject({
      kind: 'validation',
      message: 'API key limit reached: at most 2 active keys per user',
    });
    expect(usageKeys.issued).toEqual(['usage-1', 'usage-2']);
    expect(usageKeys.retired).toEqual(['usage-2']);
    expect([...keys.records.values()].map((key) => key.id)).toEqual([100, 999]);
  });

  it('revokes the key as it is after a rotation that landed between its read and its write', async () => {
    const created = await service.create({ userId: 1, workspaceId: 10, name: 'a' });
    const write = keys.revoke.bind(keys);
    let rotated: Awaited<ReturnType<typeof service.rotate>> | undefined;
    keys.revoke = async (key: ApiKey, updatedAt: string) => {
      rotated ??= await service.rotate(1, created.key.id);
      return write(key, updatedAt);
    };
    await service.revoke(1, created.key.id);
    expect(rotated?.key.prefix).not.toBe(created.key.prefix);
    expect(keys.records.get(`1/${created.key.id}`)?.isActive).toBe(false);
    expect(keys.credentials.size).toBe(0);
    // The first key's usage key went with the rotation, the rotated one's with the revocation.
    expect(usageKeys.retired).toEqual(['usage-1', 'usage-2']);
  });
});
