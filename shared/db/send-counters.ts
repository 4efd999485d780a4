import { type DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { SendKind } from '../domain/engine/action';
import type { SendCounters } from '../domain/engine/ports';
import { isConditionFailed } from './client';
import { accountSendCounterKey, campaignSendCounterKey } from './keys';

/** Counters outlive their day by this long (TTL), for support and the analytics roll-up to read. */
const KEEP_DAYS = 35;

/** Rounds of a take that finds positions given back (each round one taker wins one of them). */
const FREE_POSITION_ATTEMPTS = 20;
/** Rounds of a give-back whose count moved meanwhile. */
const RETURN_ATTEMPTS = 5;

type CounterKey = { pk: string; sk: string };

const expiry = (day: string): number => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + KEEP_DAYS * 86_400;

/**
 * Daily send counters: one small item per campaign, local day and kind, and per sender account,
 * UTC day and kind. Each change is one atomic UpdateItem (1 WCU): `ADD n :1` answers the new
 * value, so two senders never get the same position. Both only move while under their cap or limit
 * (a conditional ADD); a campaign position past the cap is taken from a second count of the item
 * (`over`), and a campaign position given back below the last one handed out is kept by value
 * (`free`) and handed out before a new one.
 */
export class DynamoSendCounters implements SendCounters {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async takeCampaignSlot(campaignId: number, day: string, kind: SendKind, cap: number): Promise<number> {
    const Key = campaignSendCounterKey(campaignId, day, kind);
    // A position given back and not taken again since (`free`) first: a new one would share the
    // slot of a position another action holds (docs/engine.md, "Daily caps and accounts").
    for (let attempt = 0; attempt < FREE_POSITION_ATTEMPTS; attempt += 1) {
      const within = await this.takeNew(Key, cap, day);
      if ('taken' in within) return within.taken;
      // The refusal carries the item as it was (no read: most refusals are the demand past the cap).
      const { n, free } = within.refusedBy ?? (await this.positions(Key));
      const position = free.filter((k) => k <= cap).sort((a, b) => a - b)[0];
      if (position === undefined) {
        if (free.length > 0) await this.dropFreePositions(Key, free, cap);
        // At the cap with none given back: the demand past it, below.
        else if (n >= cap) break;
        continue;
      }
      const taken = await this.updateIf({
        Key,
        UpdateExpression: 'DELETE #free :position',
        ConditionExpression: 'contains(#free, :k)',
        ExpressionAttributeNames: { '#free': 'free' },
        ExpressionAttributeValues: { ':position': new Set([position]), ':k': position },
      });
      if (taken) return position;
    }
    // At the cap (or, rarely, every round lost to other takers of free positions): the demand
    // beyond it is counted apart (`over`), so `n` holds only positions within a cap, and a cap
    // raised during the day sends at once.
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

  async returnCampaignSlot(campaignId: number, day: string, kind: SendKind, position?: number): Promise<boolean> {
    const Key = campaignSendCounterKey(campaignId, day, kind);
    // A position of unknown value (a claim written before 2026-11-28 night) lowers the count.
    if (position === undefined) return this.decrement(Key);
    // The last one handed out lowers the count; any other is kept apart, for the next taker. Tried
    // again when the count moves between the two (a higher position given back at the same time
    // makes this one the last).
    for (let attempt = 0; attempt < RETURN_ATTEMPTS; attempt += 1) {
      const last = await this.updateIf({
        Key,
        UpdateExpression: 'ADD n :minus',
        // A position already kept apart is not given back twice (the count would then pass below it).
        ConditionExpression: 'n = :k AND NOT contains(#free, :k)',
        ExpressionAttributeNames: { '#free': 'free' },
        ExpressionAttributeValues: { ':minus': -1, ':k': position },
      });
      if (last) return true;
      const kept = await this.updateIf({
        Key,
        UpdateExpression: 'ADD #free :position',
        ConditionExpression: 'n > :k',
        ExpressionAttributeNames: { '#free': 'free' },
        ExpressionAttributeValues: { ':position': new Set([position]), ':k': position },
      });
      if (kept) return true;
    }
    return false;
  }

  /** A new position within the cap when none was given back; else the counter as it refused. */
  private async takeNew(Key: CounterKey, cap: number, day: string): Promise<{ taken: number } | { refusedBy?: { n: number; free: number[] } }> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key,
          UpdateExpression: 'ADD n :one SET #ttl = if_not_exists(#ttl, :ttl)',
          ConditionExpression: '(attribute_not_exists(n) OR n < :cap) AND attribute_not_exists(#free)',
          ExpressionAttributeNames: { '#ttl': 'ttl', '#free': 'free' },
          ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':ttl': expiry(day) },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { taken: Number(Attributes?.n ?? 1) };
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      // The item in DynamoDB's own format (the document client does not convert an error's item).
      const item = (error as { Item?: Record<string, { N?: string; NS?: string[] }> }).Item;
      return item ? { refusedBy: { n: Number(item.n?.N ?? 0), free: (item.free?.NS ?? []).map(Number) } } : {};
    }
  }

  /** The count and the positions given back and not taken again (strongly consistent: read just after a refused write). */
  private async positions(Key: CounterKey): Promise<{ n: number; free: number[] }> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key, ProjectionExpression: 'n, #free', ExpressionAttributeNames: { '#free': 'free' }, ConsistentRead: true }),
    );
    const free = Item?.free as Set<number> | undefined;
    return { n: Number(Item?.n ?? 0), free: free ? [...free].map(Number) : [] };
  }

  /** Positions past a cap lowered since they were given back: no longer handed out. */
  private async dropFreePositions(Key: CounterKey, free: number[], cap: number): Promise<void> {
    await this.updateIf({
      Key,
      UpdateExpression: 'DELETE #free :past',
      ExpressionAttributeNames: { '#free': 'free' },
      ExpressionAttributeValues: { ':past': new Set(free.filter((k) => k > cap)) },
    });
  }

  takePull(campaignId: number, day: string, kind: SendKind, budget: number): Promise<boolean> {
    return this.incrementBelow(campaignSendCounterKey(campaignId, day, kind), 'pulled', budget, day);
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
    return this.incrementBelow(accountSendCounterKey(accountId, day, kind), 'n', limit, day);
  }

  async returnAccountSend(accountId: number, day: string, kind: SendKind): Promise<void> {
    await this.decrement(accountSendCounterKey(accountId, day, kind));
  }

  async returnPull(campaignId: number, day: string, kind: SendKind): Promise<void> {
    await this.decrement(campaignSendCounterKey(campaignId, day, kind), 'pulled');
  }

  /** Raises a count of the day by one while it is below `limit` (never over); whether it did. */
  private async incrementBelow(key: CounterKey, attribute: 'n' | 'pulled', limit: number, day: string): Promise<boolean> {
    const taken = await this.updateIf({
      Key: key,
      UpdateExpression: 'ADD #count :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': attribute, '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': expiry(day) },
    });
    return taken !== undefined;
  }

  /** Lowers a count by one while it is above 0; whether it did. */
  private async decrement(key: CounterKey, attribute: 'n' | 'pulled' = 'n'): Promise<boolean> {
    const lowered = await this.updateIf({
      Key: key,
      UpdateExpression: 'ADD #count :minus',
      ConditionExpression: '#count > :zero',
      ExpressionAttributeNames: { '#count': attribute },
      ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
    });
    return lowered !== undefined;
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
