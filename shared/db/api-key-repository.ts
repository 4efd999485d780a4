import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKey, ApiKeyCredential } from '../domain/api-keys/api-key';
import type { ApiKeyRepository } from '../domain/api-keys/ports';
import { conflict } from '../domain/errors';
import { isTransactionConditionFailed, queryAll } from './client';
import { API_KEY_RECORD_PREFIX, apiKeyCredentialKey, apiKeyRecordKey } from './keys';

const recordItem = (key: ApiKey) => ({ ...apiKeyRecordKey(key.userId, key.id), entityType: 'ApiKey', ...key });

const credentialItem = (credential: ApiKeyCredential) => ({
  ...apiKeyCredentialKey(credential.prefix),
  entityType: 'ApiKeyCredential',
  ...credential,
});

const toApiKey = (item: Record<string, unknown>): ApiKey => ({
  id: Number(item.id),
  userId: Number(item.userId),
  workspaceId: Number(item.workspaceId),
  name: String(item.name),
  prefix: String(item.prefix),
  isActive: item.isActive === true,
  lastUsed: typeof item.lastUsed === 'string' ? item.lastUsed : null,
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt),
  usageKeyId: String(item.usageKeyId),
});

const toCredential = (item: Record<string, unknown>): ApiKeyCredential => ({
  prefix: String(item.prefix),
  keyId: Number(item.keyId),
  userId: Number(item.userId),
  workspaceId: Number(item.workspaceId),
  secretHash: String(item.secretHash),
  usageKeyValue: String(item.usageKeyValue),
  ...(typeof item.lastUsedWrittenAt === 'string' ? { lastUsedWrittenAt: item.lastUsedWrittenAt } : {}),
});

export class DynamoApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listForUser(userId: number): Promise<ApiKey[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': apiKeyRecordKey(userId, 0).pk, ':prefix': API_KEY_RECORD_PREFIX },
    });
    return items.map(toApiKey);
  }

  async get(userId: number, keyId: number): Promise<ApiKey | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: apiKeyRecordKey(userId, keyId), ConsistentRead: true }),
    );
    return Item ? toApiKey(Item) : undefined;
  }

  async create(key: ApiKey, credential: ApiKeyCredential): Promise<void> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.tableName, Item: recordItem(key), ConditionExpression: 'attribute_not_exists(pk)' } },
            {
              Put: { TableName: this.tableName, Item: credentialItem(credential), ConditionExpression: 'attribute_not_exists(pk)' },
            },
          ],
        }),
      );
    } catch (error) {
      if (isTransactionConditionFailed(error)) throw conflict('API key could not be created, please retry');
      throw error;
    }
  }

  async rotate(previous: ApiKey, next: ApiKey, credential: ApiKeyCredential): Promise<void> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: apiKeyRecordKey(previous.userId, previous.id),
                UpdateExpression: 'SET prefix = :prefix, updatedAt = :updatedAt, usageKeyId = :usageKeyId',
                ConditionExpression: 'prefix = :previousPrefix AND isActive = :true',
                ExpressionAttributeValues: {
                  ':prefix': next.prefix,
                  ':updatedAt': next.updatedAt,
                  ':usageKeyId': next.usageKeyId,
                  ':previousPrefix': previous.prefix,
                  ':true': true,
                },
              },
            },
            { Delete: { TableName: this.tableName, Key: apiKeyCredentialKey(previous.prefix) } },
            {
              Put: { TableName: this.tableName, Item: credentialItem(credential), ConditionExpression: 'attribute_not_exists(pk)' },
            },
          ],
        }),
      );
    } catch (error) {
      if (isTransactionConditionFailed(error)) throw conflict('API key changed while rotating, please retry');
      throw error;
    }
  }

  async revoke(key: ApiKey, updatedAt: string): Promise<void> {
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: this.tableName,
              Key: apiKeyRecordKey(key.userId, key.id),
              UpdateExpression: 'SET isActive = :false, updatedAt = :updatedAt',
              ExpressionAttributeValues: { ':false': false, ':updatedAt': updatedAt },
            },
          },
          { Delete: { TableName: this.tableName, Key: apiKeyCredentialKey(key.prefix) } },
        ],
      }),
    );
  }

  async getCredential(prefix: string): Promise<ApiKeyCredential | undefined> {
    // Strongly consistent: a key rotated or revoked a moment ago must already fail.
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: apiKeyCredentialKey(prefix), ConsistentRead: true }),
    );
    return Item ? toCredential(Item) : undefined;
  }

  async recordUse(credential: ApiKeyCredential, usedAt: string): Promise<void> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              // Only while this prefix is still the key's current one: never touch a rotated key.
              Update: {
                TableName: this.tableName,
                Key: apiKeyRecordKey(credential.userId, credential.keyId),
                UpdateExpression: 'SET lastUsed = :usedAt',
                ConditionExpression: 'prefix = :prefix',
                ExpressionAttributeValues: { ':usedAt': usedAt, ':prefix': credential.prefix },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: apiKeyCredentialKey(credential.prefix),
                UpdateExpression: 'SET lastUsedWrittenAt = :usedAt',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':usedAt': usedAt },
              },
            },
          ],
        }),
      );
    } catch (error) {
      // A rotate or revoke in between wins; the use is simply not recorded.
      if (!isTransactionConditionFailed(error)) throw error;
    }
  }
}
