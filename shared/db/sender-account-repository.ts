import { oldestFirst } from '../domain/ordering';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { SenderAccountChange, SenderAccountRepository } from '../domain/sender-accounts/ports';
import {
  type AccountDailyLimits,
  DEFAULT_ACCOUNT_DAILY_LIMITS,
  type SenderAccount,
  type SenderAccountType,
  type SendingPause,
} from '../domain/sender-accounts/sender-account';
import { isConditionFailed, isTransactionConditionFailed, queryAll } from './client';
import { everyValueOf, intAttribute, itemSchema, nullableString, parseItem } from './item-schema';
import { SENDER_ACCOUNT_PREFIX, formerAccountKey, providerAccountKey, senderAccountKey } from './keys';

const DailyLimitsAttribute = v.object({ emails: intAttribute, invitations: intAttribute, networkMessages: intAttribute });

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
    // Absent on accounts that never had them: the defaults, and no pause.
    dailyLimits: v.optional(DailyLimitsAttribute),
    sendingPause: v.optional(v.nullable(v.object({ reason: v.string(), until: v.nullable(v.string()), at: v.string() }))),
    createdAt: v.string(),
    updatedAt: v.string(),
  }),
);

/** The provider account guard: which workspace's account the provider account is. */
export const ProviderAccountItem = itemSchema('ProviderAccount', v.object({ workspaceId: intAttribute, accountId: intAttribute }));

/** What a workspace keeps of a sender account it deleted: registered there again, it comes back as itself. */
export const FormerAccountItem = itemSchema(
  'FormerSenderAccount',
  v.object({ accountId: intAttribute, createdAt: v.optional(v.string()), dailyLimits: v.optional(DailyLimitsAttribute) }),
);

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
    return items.map((item) => parseItem(SenderAccountItem, item)).sort(oldestFirst);
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
            // Registered again in this workspace, the provider account comes back as this account.
            Put: {
              TableName: this.tableName,
              Item: {
                ...formerAccountKey(account.workspaceId, account.providerAccountId),
                entityType: 'FormerSenderAccount',
                accountId: account.id,
                createdAt: account.createdAt,
                ...(account.dailyLimits ? { dailyLimits: account.dailyLimits } : {}),
              },
            },
          },
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

  async formerAccount(workspaceId: number, providerAccountId: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: formerAccountKey(workspaceId, providerAccountId), ConsistentRead: true }));
    return Item ? parseItem(FormerAccountItem, Item) : undefined;
  }

  async findByProviderAccountId(providerAccountId: string): Promise<SenderAccount | undefined> {
    const { Item: guard } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: providerAccountKey(providerAccountId), ConsistentRead: true }),
    );
    if (!guard) return undefined;
    const owner = parseItem(ProviderAccountItem, guard);
    return this.get(owner.workspaceId, owner.accountId);
  }

  async updateStatus(account: SenderAccount, status: string, updatedAt: string, clearPause?: SendingPause): Promise<boolean> {
    if (clearPause) {
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: senderAccountKey(account.workspaceId, account.id),
            UpdateExpression: 'SET #status = :status, updatedAt = :updatedAt REMOVE sendingPause',
            // Only the pause that was read: one the engine set since stays.
            ConditionExpression:
              'attribute_exists(pk) AND sendingPause.reason = :reason AND sendingPause.#at = :at AND attribute_type(sendingPause.#until, :null)',
            ExpressionAttributeNames: { '#status': 'status', '#at': 'at', '#until': 'until' },
            ExpressionAttributeValues: { ':status': status, ':updatedAt': updatedAt, ':reason': clearPause.reason, ':at': clearPause.at, ':null': 'NULL' },
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
        // Gone, or another pause by now: the status alone, below.
      }
    }
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

  async updateSettings(account: SenderAccount, change: SenderAccountChange, updatedAt: string): Promise<SenderAccount | undefined> {
    const limits = Object.entries(change.dailyLimits ?? {}).filter(([, value]) => value !== undefined) as [keyof AccountDailyLimits, number][];
    // Each limit is its own attribute of the stored map, so two PATCHes of different limits never
    // undo each other. A map not stored yet is written whole (the defaults plus the change) on the
    // condition that none appeared in between. A lost race reads the account again and retries.
    let mapStored = account.dailyLimits !== undefined;
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const sets = ['updatedAt = :updatedAt'];
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = { ':updatedAt': updatedAt };
      let condition = 'attribute_exists(pk)';
      if (change.name !== undefined) {
        sets.push('#name = :name');
        names['#name'] = 'name';
        values[':name'] = change.name;
      }
      if (limits.length > 0 && mapStored) {
        for (const [limit, value] of limits) {
          sets.push(`dailyLimits.#${limit} = :${limit}`);
          names[`#${limit}`] = limit;
          values[`:${limit}`] = value;
        }
        condition += ' AND attribute_exists(dailyLimits)';
      } else if (limits.length > 0) {
        sets.push('dailyLimits = :dailyLimits');
        values[':dailyLimits'] = { ...DEFAULT_ACCOUNT_DAILY_LIMITS, ...Object.fromEntries(limits) };
        condition += ' AND attribute_not_exists(dailyLimits)';
      }
      try {
        const { Attributes } = await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: senderAccountKey(account.workspaceId, account.id),
            UpdateExpression: `SET ${sets.join(', ')}${change.endPause ? ' REMOVE sendingPause' : ''}`,
            ConditionExpression: condition,
            ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes ? parseItem(SenderAccountItem, Attributes) : undefined;
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
      }
      const current = await this.get(account.workspaceId, account.id);
      if (!current) return undefined;
      mapStored = current.dailyLimits !== undefined;
    }
    throw new Error(`Sender account ${account.id}: its daily limits kept changing during the update`);
  }

  async pauseSending(account: SenderAccount, pause: SendingPause, updatedAt: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: senderAccountKey(account.workspaceId, account.id),
          UpdateExpression: 'SET sendingPause = :pause, updatedAt = :updatedAt',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':pause': { reason: pause.reason, until: pause.until, at: pause.at }, ':updatedAt': updatedAt },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}
