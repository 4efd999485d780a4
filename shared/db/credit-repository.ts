import { type DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { CreditRepository, LedgerEntry, LedgerPage } from '../domain/credits/credits';
import { validationError } from '../domain/errors';
import { cancellationReasons } from './client';
import { everyValueOf, intAttribute, itemSchema, parseItem } from './item-schema';
import { CREDIT_LEDGER_PREFIX, creditBalanceKey, creditGrantKey, creditLedgerKey } from './keys';
import type { TransactItem } from './transactions';

export const CreditBalanceItem = itemSchema('CreditBalance', v.object({ balance: intAttribute }));

export const LedgerEntryItem = itemSchema(
  'CreditLedgerEntry',
  v.object({
    id: intAttribute,
    workspaceId: intAttribute,
    kind: v.picklist(everyValueOf<LedgerEntry['kind']>({ GRANT: true, DEBIT: true, REFUND: true })),
    amount: intAttribute,
    reason: v.string(),
    jobId: v.optional(intAttribute),
    createdAt: v.string(),
  }),
);

/** The ledger entry's put, for the transaction that moves the balance by its amount. */
export const ledgerPut = (tableName: string, entry: LedgerEntry): TransactItem => ({
  Put: {
    TableName: tableName,
    Item: { ...creditLedgerKey(entry.workspaceId, entry.createdAt, entry.id), entityType: 'CreditLedgerEntry', ...entry },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/**
 * Moves the balance by `amount`; a negative amount only while the balance covers it (so it never
 * goes below zero, whatever races it).
 */
export const balanceMove = (tableName: string, workspaceId: number, amount: number): TransactItem => ({
  Update: {
    TableName: tableName,
    Key: creditBalanceKey(workspaceId),
    UpdateExpression: 'ADD balance :amount SET entityType = :type, workspaceId = :workspaceId',
    ...(amount < 0 ? { ConditionExpression: 'balance >= :cost' } : {}),
    ExpressionAttributeValues: {
      ':amount': amount,
      ':type': 'CreditBalance',
      ':workspaceId': workspaceId,
      ...(amount < 0 ? { ':cost': -amount } : {}),
    },
  },
});

const encodeCursor = (sk: string) => Buffer.from(sk, 'utf8').toString('base64url');
function decodeCursor(cursor: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!sk.startsWith(CREDIT_LEDGER_PREFIX) || sk.length > 80) throw validationError('cursor is not a cursor this endpoint returned');
  return sk;
}

export class DynamoCreditRepository implements CreditRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async balance(workspaceId: number): Promise<number> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: creditBalanceKey(workspaceId), ConsistentRead: true }));
    return Item ? parseItem(CreditBalanceItem, Item).balance : 0;
  }

  async ledger(workspaceId: number, page: { limit: number; cursor?: string }): Promise<LedgerPage> {
    const pk = creditLedgerKey(workspaceId, '', 0).pk;
    const start = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    const result = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': CREDIT_LEDGER_PREFIX },
        ScanIndexForward: false,
        Limit: page.limit,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: { pk, sk: start } } : {}),
      }),
    );
    const items = result.Items ?? [];
    const entries = items.map((item) => parseItem(LedgerEntryItem, item));
    const last = result.LastEvaluatedKey?.sk;
    return { entries, ...(typeof last === 'string' && entries.length === page.limit ? { next: encodeCursor(last) } : {}) };
  }

  async grant(entry: LedgerEntry, options: { once?: string } = {}): Promise<boolean> {
    const items: TransactItem[] = [balanceMove(this.tableName, entry.workspaceId, entry.amount), ledgerPut(this.tableName, entry)];
    if (options.once) {
      items.push({
        Put: {
          TableName: this.tableName,
          Item: { ...creditGrantKey(entry.workspaceId, options.once), entityType: 'CreditGrant', entryId: entry.id, at: entry.createdAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    }
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (options.once && reasons?.[2]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }
}
