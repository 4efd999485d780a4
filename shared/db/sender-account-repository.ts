import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { SenderAccountRepository } from '../domain/sender-accounts/ports';
import type { SenderAccount, SenderAccountType } from '../domain/sender-accounts/sender-account';
import { isConditionFailed, isTransactionConditionFailed, queryAll } from './client';
import { everyValueOf, intAttribute, itemSchema, nullableString, parseItem } from './item-schema';
import { SENDER_ACCOUNT_PREFIX, providerAccountKey, senderAccountKey } from './keys';

const accountItem = (account: SenderAccount) => ({
  ...senderAccountKey(account.workspaceId, account.id),
  entityType: 'SenderAccount',
  ...account,
});

export const SenderAccountItem = itemSchema(
  'SenderAccount',
  v.object({
    id: intAttribute,
    workspaceId: intAttribute,
    name: v.string(),
    type: v.picklist(everyValueOf<SenderAccountType>({ NETWORK: true, EMAIL: true })),
    status: v.string(),
    providerAccountId: v.string(),
    providerType: v.string(),
    ownProviderUserId: nullableString,
    createdAt: v.string(),
    updatedAt: v.string(),
  }),
);

/** The provider account guard: which workspace's account the provider account is. */
export const ProviderAccountItem = itemSchema('ProviderAccount', v.object({ workspaceId: intAttribute, accountId: intAttribute }));

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
    return items.map((item) => parseItem(SenderAccountItem, item));
  }

  async get(workspaceId: number, accountId: number): Promise<SenderAccount | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: senderAccountKey(workspaceId, accountId), ConsistentRead: true }),
    );
    return Item ? parseItem(SenderAccountItem, Item) : undefined;
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
      // No guard any more: its account was removed in between; 0 names no workspace.
      return { created: false as const, existing: Item ? parseItem(ProviderAccountItem, Item) : { workspaceId: 0, accountId: 0 } };
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
    const owner = parseItem(ProviderAccountItem, guard);
    return this.get(owner.workspaceId, owner.accountId);
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
