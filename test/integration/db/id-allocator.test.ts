import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { makeDocClient } from '../../../shared/db/client';
import { DynamoIdAllocator, ID_SHARDS } from '../../../shared/db/id-allocator';

describe('DynamoIdAllocator against DynamoDB Local', () => {
  const db = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
  const tableName = `ids${randomBytes(4).toString('hex')}`;

  beforeAll(async () => ensureTable(db, tableName));
  afterAll(() => db.destroy());

  it('hands out unique positive safe integers across processes sharing or not sharing a shard', async () => {
    // Four "containers": two on the same shard, two on others, all drawing concurrently.
    const allocators = [3, 3, 17, 63].map((shard) => new DynamoIdAllocator(db, tableName, { shard, blockSize: 7 }));
    const ids = (await Promise.all(allocators.flatMap((allocator) => Array.from({ length: 40 }, () => allocator.next())))).flat();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(Number.isSafeInteger(id)).toBe(true);
      expect(id).toBeGreaterThanOrEqual(ID_SHARDS);
    }
  });

  it('gives increasing ids within one process', async () => {
    const allocator = new DynamoIdAllocator(db, tableName, { shard: 5, blockSize: 3 });
    const ids: number[] = [];
    for (let i = 0; i < 10; i += 1) ids.push(await allocator.next());
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(ids.every((id) => id % ID_SHARDS === 5)).toBe(true);
  });
});
