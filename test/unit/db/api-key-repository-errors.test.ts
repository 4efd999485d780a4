import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoApiKeyRepository, RECORD_USE_ATTRIBUTES } from '../../../shared/db/api-key-repository';
import type { ApiKey, ApiKeyCredential } from '../../../shared/domain/api-keys/api-key';

/** A cancelled transaction as the SDK reports it, with one reason per item. */
const cancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });

/** A document client whose every call fails the same way, counting the calls. */
function failingClient(error: Error) {
  const calls: string[] = [];
  const db = {
    send: async (command: { constructor: { name: string } }) => {
      calls.push(command.constructor.name);
      throw error;
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, calls };
}

const key: ApiKey = {
  id: 7,
  userId: 1,
  workspaceId: 2,
  name: 'k',
  prefix: 'abcdefabcdef',
  isActive: true,
  lastUsed: null,
  createdAt: '2026-11-23T10:00:00.000Z',
  updatedAt: '2026-11-23T10:00:00.000Z',
  usageKeyId: 'u1',
};
const credential: ApiKeyCredential = { prefix: 'abcdefabcdef', keyId: 7, userId: 1, workspaceId: 2, secretHash: 'h', usageKeyValue: 'v' };

// Only contention is retried: a transaction cancelled for any other reason is a fault to surface
// at once (a 500), never slept on and answered with "please retry".
describe('API key repository: cancelled transactions', () => {
  it('surfaces a create cancelled by a validation error at once', async () => {
    const error = cancelled('None', 'ValidationError', 'None');
    const { db, calls } = failingClient(error);
    await expect(new DynamoApiKeyRepository(db, 't').create(key, credential, 25)).rejects.toBe(error);
    expect(calls).toEqual(['TransactWriteCommand']);
  });

  it('answers not_member at once when the user is no longer linked to the key\'s workspace', async () => {
    const { db, calls } = failingClient(cancelled('None', 'None', 'None', 'ConditionalCheckFailed'));
    expect(await new DynamoApiKeyRepository(db, 't').create(key, credential, 25)).toBe('not_member');
    expect(calls).toEqual(['TransactWriteCommand']);
  });

  it('surfaces a revoke cancelled by a full item collection at once', async () => {
    const error = cancelled('None', 'None', 'ItemCollectionSizeLimitExceeded');
    const { db, calls } = failingClient(error);
    await expect(new DynamoApiKeyRepository(db, 't').revoke(key, '2026-11-23T11:00:00.000Z')).rejects.toBe(error);
    expect(calls).toEqual(['TransactWriteCommand']);
  });

  it('retries contention, then answers the documented conflict', async () => {
    const { db, calls } = failingClient(cancelled('TransactionConflict', 'None', 'None'));
    await expect(new DynamoApiKeyRepository(db, 't').create(key, credential, 25)).rejects.toMatchObject({
      kind: 'conflict',
      message: 'API key could not be created, please retry',
    });
    expect(calls).toEqual(Array.from({ length: 12 }, () => 'TransactWriteCommand'));
  });
});

// The authorizer may update RECORD_USE_ATTRIBUTES and the keys only (infra/table-access.ts): the
// write it makes must name no other attribute, or IAM would refuse it in AWS.
describe('API key repository: the last-use write', () => {
  it('names only the item keys and RECORD_USE_ATTRIBUTES, and asks for nothing back', async () => {
    const sent: { TransactItems: Record<string, Record<string, unknown>>[] }[] = [];
    const db = { send: async (command: { input: (typeof sent)[number] }) => void sent.push(command.input) } as unknown as DynamoDBDocumentClient;
    await new DynamoApiKeyRepository(db, 'outreach').recordUse(credential, '2026-11-23T12:00:00.000Z');

    const items = sent.flatMap((input) => input.TransactItems);
    expect(items.map((item) => Object.keys(item))).toEqual([['Update'], ['Update']]);
    const named = new Set<string>();
    for (const update of items.map((item) => item.Update ?? {})) {
      const expressions = [update.UpdateExpression, update.ConditionExpression].join(' ').replace(/:\w+/g, ' ');
      const aliases = (update.ExpressionAttributeNames ?? {}) as Record<string, string>;
      for (const word of expressions.match(/#?[A-Za-z_]\w*/g) ?? []) {
        if (['SET', 'AND', 'attribute_exists'].includes(word)) continue;
        named.add(aliases[word] ?? word);
      }
      for (const name of Object.keys(update.Key as object)) named.add(name);
      expect(update.ReturnValues).toBeUndefined();
    }
    expect([...named].sort()).toEqual(['lastUsed', 'lastUsedWrittenAt', 'pk', 'prefix', 'sk']);
    expect([...RECORD_USE_ATTRIBUTES].sort()).toEqual(['lastUsed', 'lastUsedWrittenAt', 'prefix']);
  });
});
