import { type DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { SendKind } from '../domain/engine/action';
import type { SendCounters } from '../domain/engine/ports';
import { isConditionFailed } from './client';
import { accountSendCounterKey, campaignSendCounterKey } from './keys';

/** Counters outlive their day by this long (TTL), for support and the analytics roll-up to read. */
const KEEP_DAYS = 35;

const expiry = (day: string): number => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + KEEP_DAYS * 86_400;

/**
 * Daily send counters: one small item per campaign, local day and kind, and per sender account,
 * UTC day and kind. Each change is one atomic UpdateItem (1 WCU): `ADD n :1` answers the new
 * value, so two senders never get the same position. Both only move while under their cap or limit
 * (a conditional ADD); a campaign position past the cap is taken from a second count of the item.
 */
export class DynamoSendCounters implements SendCounters {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async takeCampaignSlot(campaignId: number, day: string, kind: SendKind, cap: number): Promise<number> {
    const Key = campaignSendCounterKey(campaignId, day, kind);
    const within = await this.updateIf({
      Key,
      UpdateExpression: 'ADD n :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ConditionExpression: 'attribute_not_exists(n) OR n < :cap',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':ttl': expiry(day) },
      ReturnValues: 'UPDATED_NEW',
    });
    if (within) return Number(within.n ?? 1);
    // At the cap: the demand beyond it is counted apart (`over`), so `n` holds only positions
    // within a cap, and a cap raised during the day sends at once.
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key,
        UpdateExpression: 'ADD #over :one SET #ttl = if_not_exists(#ttl, :ttl)',
        ExpressionAttributeNames: { '#over': 'over', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':ttl': expiry(day) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return cap + Number(Attributes?.over ?? 1);
  }

  async returnCampaignSlot(campaignId: number, day: string, kind: SendKind): Promise<void> {
    await this.decrement(campaignSendCounterKey(campaignId, day, kind));
  }

  async clearCampaignDemand(campaignId: number, day: string, kind: SendKind): Promise<void> {
    await this.updateIf({
      Key: campaignSendCounterKey(campaignId, day, kind),
      UpdateExpression: 'REMOVE #over',
      // Only on a counter that has demand: no item is created for a day nothing took.
      ConditionExpression: 'attribute_exists(#over)',
      ExpressionAttributeNames: { '#over': 'over' },
    });
  }

  async takeAccountSend(accountId: number, day: string, kind: SendKind, limit: number): Promise<boolean> {
    if (limit <= 0) return false;
    const taken = await this.updateIf({
      Key: accountSendCounterKey(accountId, day, kind),
      UpdateExpression: 'ADD n :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': expiry(day) },
    });
    return taken !== undefined;
  }

  async returnAccountSend(accountId: number, day: string, kind: SendKind): Promise<void> {
    await this.decrement(accountSendCounterKey(accountId, day, kind));
  }

  private async decrement(key: { pk: string; sk: string }): Promise<void> {
    await this.updateIf({
      Key: key,
      UpdateExpression: 'ADD n :minus',
      ConditionExpression: 'n > :zero',
      ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
    });
  }

  /** A conditional UpdateItem: the attributes it returns (`{}` when it asks for none), undefined when its condition fails. */
  private async updateIf(input: Omit<UpdateCommandInput, 'TableName'>): Promise<Record<string, unknown> | undefined> {
    try {
      const { Attributes } = await this.db.send(new UpdateCommand({ TableName: this.tableName, ...input }));
      return Attributes ?? {};
    } catch (error) {
      if (isConditionFailed(error)) return undefined;
      throw error;
    }
  }
}
