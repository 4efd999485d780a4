import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SenderAccountRepository } from '../domain/sender-accounts/ports';
import type { SenderAccount } from '../domain/sender-accounts/sender-account';
import { isConditionFailed, isTransactionConditionFailed, queryAll } from './client';
import { SENDER_ACCOUNT_PREFIX, providerAccountKey, senderAccountKey } from './keys';

const accountItem = (account: SenderAccount) => ({
  ...senderAccountKey(account.workspaceId, account.id),
  entityType: 'SenderAccount',
  ...account,
});

const toAccount = (item: Record<string, unknown>): SenderAccount => ({
  id: Number(item.id),
  workspaceId: Number(item.workspaceId),
  name: String(item.name),
  type: item.type === 'EMAIL' ? 'EMAIL' : 'NETWORK',
  status: String(item.status),
  providerAccountId: String(item.providerAccountId),
  providerType: String(item.providerType),
  ownProviderUserId: typeof item.ownProviderUserId === 'string' ? item.ownProviderUserId : null,
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt),
});

export class DynamoSenderAccountRepository implements SenderAccountRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listForWorkspace(workspaceId: number): Promise<SenderAccount[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': senderAccountKey(workspaceId, 0).pk, ':prefix': SENDER_ACCOUNT_PREFIX },
      ConsistentRead: true,
    });
    return items.map(toAccount);
  }

  async get(workspaceId: number, accountId: number): Promise<SenderAccount | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: senderAccountKey(workspaceId, accountId), ConsistentRead: true }),
    );
    return Item ? toAccount(Item) : undefined;
  }

  async create(account: SenderAccount) {
    const guard = providerAccountKey(account.providerAccountId);
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            // The guard makes one provider account belong to one workspace, even under races.
            {
              Put: {
                TableName: this.tableName,
                Item: { ...guard, entityType: 'ProviderAccount', workspaceId: account.workspaceId, accountId: account.id },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Put: { TableName: this.tableName, Item: accountItem(account), ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
      return { created: true as const };
    } catch (error) {
      if (!isTransactionConditionFailed(error)) throw error;
      const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: guard, ConsistentRead: true }));
      return {
        created: false as const,
        existing: { workspaceId: Number(Item?.workspaceId ?? 0), accountId: Number(Item?.accountId ?? 0) },
      };
    }
  }

  async remove(account: SenderAccount): Promise<void> {
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: this.tableName, Key: senderAccountKey(account.workspaceId, account.id) } },
          {
            // Only this account's guard: a re-registration elsewhere in between keeps its own.
            Delete: {
              TableName: this.tableName,
              Key: providerAccountKey(account.providerAccountId),
              ConditionExpression: 'attribute_not_exists(pk) OR accountId = :accountId',
              ExpressionAttributeValues: { ':accountId': account.id },
            },
          },
        ],
      }),
    );
  }

  async findByProviderAccountId(providerAccountId: string): Promise<SenderAccount | undefined> {
    const { Item: guard } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: providerAccountKey(providerAccountId), ConsistentRead: true }),
    );
    if (!guard) return undefined;
    return this.get(Number(guard.workspaceId), Number(guard.accountId));
  }

  async updateStatus(account: SenderAccount, status: string, updatedAt: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: senderAccountKey(account.workspaceId, account.id),
          UpdateExpression: 'SET #status = :status, updatedAt = :updatedAt',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status, ':updatedAt': updatedAt },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}
