import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { makeDocClient } from '../../../shared/db/client';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoIdAllocator, ID_SHARDS } from '../../../shared/db/id-allocator';
import { idShardKey } from '../../../shared/db/keys';

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
    }
    // id = counter value * 64 + shard; counter value 0 is never handed out.
    expect(ID_SHARDS).toBe(64);
    const valuesOf = (shard: number) =>
      ids
        .filter((id) => id % 64 === shard)
        .map((id) => (id - shard) / 64)
        .sort((a, b) => a - b);
    const oneToForty = Array.from({ length: 40 }, (_, i) => i + 1);
    expect(valuesOf(17)).toEqual(oneToForty);
    expect(valuesOf(63)).toEqual(oneToForty);
    // The shared shard: 12 blocks of 7 reserved (values 1..83) between two allocators that use 40 each;
    // which 3 values stay unused depends on how the two interleave.
    const shared = valuesOf(3);
    expect(shared).toHaveLength(80);
    expect(shared[0]).toBeGreaterThanOrEqual(1);
    expect(shared[79]).toBeLessThanOrEqual(83);
  });

  it('gives increasing ids within one process', async () => {
    const allocator = new DynamoIdAllocator(db, tableName, { shard: 5, blockSize: 3 });
    const ids: number[] = [];
    for (let i = 0; i < 10; i += 1) ids.push(await allocator.next());
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((value) => value * 64 + 5));
  });

  it('reserves the ids a bulk write will ask for with one write', async () => {
    const allocator = new DynamoIdAllocator(db, tableName, { shard: 9, blockSize: 5 });
    const first = await allocator.next(); // a block of 5: values 1..4 (0 is never handed out), one of them used
    await allocator.reserve(12); // 3 left is too few: one ADD of 12 (values 5..16), the 3 skipped
    const ids: number[] = [];
    for (let i = 0; i < 12; i += 1) ids.push(await allocator.next());
    const counter = await db.send(new GetCommand({ TableName: tableName, Key: idShardKey(9) }));
    // 5 + 12: the twelve ids came from the one reservation, no block of 5 was added for them.
    expect(counter.Item?.next).toBe(17);
    expect([first, ...ids]).toEqual([1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16].map((value) => value * 64 + 9));
    await allocator.reserve(3); // none left: a block of at least the block size
    expect((await db.send(new GetCommand({ TableName: tableName, Key: idShardKey(9) }))).Item?.next).toBe(22);
    await allocator.reserve(2); // 5 left: nothing written
    expect((await db.send(new GetCommand({ TableName: tableName, Key: idShardKey(9) }))).Item?.next).toBe(22);
  });
});
