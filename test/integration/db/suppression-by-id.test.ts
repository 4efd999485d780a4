import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { makeDocClient } from '../../../shared/db/client';
import { suppressionKey, suppressionsByWorkspace } from '../../../shared/db/keys';
import { DynamoSuppressionRepository } from '../../../shared/db/suppression-repository';
import type { Suppression } from '../../../shared/domain/suppressions/suppression';

/**
 * Finding a suppression entry by id (DELETE /public/suppressions/{id}) must not wait for gsi1:
 * on DynamoDB a global index lags its table (DynamoDB Local's never does), and cannot be read
 * strongly. The client here answers every gsi1 Query as an index that has not caught up yet.
 */
describe('a suppression entry found by id', () => {
  const real = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
  const lagging = {
    send: (command: { input: { IndexName?: string } }) =>
      command instanceof QueryCommand && command.input.IndexName === 'gsi1' ? Promise.resolve({ Items: [] }) : real.send(command as never),
  } as unknown as DynamoDBDocumentClient;
  const tableName = `suppressions${randomBytes(4).toString('hex')}`;
  const store = new DynamoSuppressionRepository(lagging, tableName);
  const entry = (id: number, value: string): Suppression => ({
    id,
    workspaceId: 8,
    type: 'EMAIL',
    value,
    reason: 'MANUAL',
    prospectId: null,
    campaignId: null,
    createdAt: '2026-11-27T10:00:00.000Z',
  });

  beforeAll(async () => ensureTable(real, tableName));

  it('is found and deleted right after it was added, before the index has it', async () => {
    const added = entry(1, 'ada@example.com');
    expect(await store.putMany([added])).toEqual([]);
    expect(await store.get(8, 1)).toEqual(added);
    expect(await store.get(9, 1)).toBeUndefined();
    expect(await store.remove(added)).toBe(true);
    expect([await store.get(8, 1), await store.find(8, [{ type: 'EMAIL', value: 'ada@example.com' }])]).toEqual([undefined, []]);
  });

  it('an add that lost the race for its value names nothing under its id; the entry that stands is found under its own', async () => {
    const first = entry(2, 'bob@example.com');
    const lost = entry(3, 'bob@example.com');
    expect([await store.putMany([first]), await store.putMany([lost])]).toEqual([[], [lost]]);
    expect([await store.get(8, 3), await store.get(8, 2)]).toEqual([undefined, first]);
  });

  it('an add whose transaction the SDK sent twice (its answer lost) is added, and found by id; a value taken meanwhile is not', async () => {
    const twice = {
      send: async (command: unknown) => {
        if (!(command instanceof TransactWriteCommand)) return lagging.send(command as never);
        await real.send(command);
        return real.send(command);
      },
    } as unknown as DynamoDBDocumentClient;
    const added = entry(5, 'twice@example.com');
    const taken = entry(7, 'bob@example.com');
    expect(await new DynamoSuppressionRepository(twice, tableName).putMany([added, taken])).toEqual([taken]);
    expect([await store.get(8, 5), await store.get(8, 7)]).toEqual([added, undefined]);
  });

  it('writes many entries in few calls: 1,000 values, 20 transactions', async () => {
    let transactions = 0;
    const counting = {
      send: (command: unknown) => {
        if (command instanceof TransactWriteCommand) transactions += 1;
        return real.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    const entries = Array.from({ length: 1000 }, (_, i) => entry(100 + i, `bulk${i}@example.com`));
    expect(await new DynamoSuppressionRepository(counting, tableName).putMany(entries)).toEqual([]);
    expect(transactions).toBe(20);
    expect(await store.find(8, entries.slice(990))).toHaveLength(10);
  });

  it('an entry written before its id item existed is still found, through gsi1', async () => {
    const old = entry(4, 'old@example.com');
    await real.send(new PutCommand({ TableName: tableName, Item: { ...suppressionKey(8, 'EMAIL', old.value), ...suppressionsByWorkspace(8, 4), entityType: 'Suppression', ...old } }));
    expect(await new DynamoSuppressionRepository(real, tableName).get(8, 4)).toEqual(old);
  });
});
