import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { makeDocClient } from '../../../shared/db/client';
import { campaignSendCounterKey } from '../../../shared/db/keys';
import { DynamoSendCounters } from '../../../shared/db/send-counters';

/**
 * A campaign's daily counter against DynamoDB Local: positions within the cap in `n`, the demand
 * past it in `over`, so a cap raised during the day hands out the positions the demand did not take.
 */
describe('campaign send counters', () => {
  const db = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
  const tableName = `counters${randomBytes(4).toString('hex')}`;
  const counters = new DynamoSendCounters(db, tableName);
  const DAY = '2026-12-01';

  beforeAll(async () => ensureTable(db, tableName));
  afterAll(() => db.destroy());

  const stored = async () => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: campaignSendCounterKey(900, DAY, 'EMAIL'), ConsistentRead: true }));
    return { n: Item?.n, over: Item?.over };
  };
  const storedOf = async (campaignId: number) => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: campaignSendCounterKey(campaignId, DAY, 'INVITE'), ConsistentRead: true }));
    return { n: Item?.n, free: Item?.free ? [...(Item.free as Set<number>)].sort((a, b) => a - b) : undefined, over: Item?.over };
  };

  it('takes positions up to the cap, counts demand past it apart, and goes on within a raised cap', async () => {
    const take = (cap: number) => counters.takeCampaignSlot(900, DAY, 'EMAIL', cap);
    expect([await take(2), await take(2), await take(2), await take(2)]).toEqual([1, 2, 3, 4]);
    expect(await stored()).toEqual({ n: 2, over: 2 });
    // Raised to 3: position 3 within it, then demand again (the third past a cap of 3 is 3 + 3).
    expect([await take(3), await take(3)]).toEqual([3, 6]);
    expect(await stored()).toEqual({ n: 3, over: 3 });
    // A position given back is taken again.
    await counters.returnCampaignSlot(900, DAY, 'EMAIL');
    expect(await take(3)).toBe(3);
    expect(await stored()).toEqual({ n: 3, over: 3 });
  });

  it('hands out each position within the cap once when many take at once', async () => {
    const taken = await Promise.all(Array.from({ length: 30 }, () => counters.takeCampaignSlot(901, DAY, 'INVITE', 10)));
    expect(taken.filter((k) => k <= 10).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(taken.filter((k) => k > 10).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 11 + i));
  });

  it('hands a position given back to the next taker, never one another action holds, and lowers the count only for the last', async () => {
    const take = (cap: number) => counters.takeCampaignSlot(902, DAY, 'INVITE', cap);
    const giveBack = (k: number) => counters.returnCampaignSlot(902, DAY, 'INVITE', k);
    expect([await take(5), await take(5), await take(5), await take(5)]).toEqual([1, 2, 3, 4]);
    // Position 1 given back while 2-4 are held: kept apart, and taken next (before, the count went
    // down to 3 and the next taker got 4, which another action held: two sends at one slot).
    await giveBack(1);
    expect(await storedOf(902)).toEqual({ n: 4, free: [1], over: undefined });
    expect(await take(5)).toBe(1);
    expect(await storedOf(902)).toEqual({ n: 4, free: undefined, over: undefined });
    // The last one handed out lowers the count.
    await giveBack(4);
    expect(await storedOf(902)).toEqual({ n: 3, free: undefined, over: undefined });
    expect([await take(5), await take(5), await take(5)]).toEqual([4, 5, 6]);
    // At the cap, a position given back is taken before any demand past it.
    await giveBack(2);
    expect(await take(5)).toBe(2);
    expect(await take(5)).toBe(7);
    expect(await storedOf(902)).toEqual({ n: 5, free: undefined, over: 2 });
    // A position past a cap lowered since it was given back is not handed out again.
    await giveBack(5);
    await giveBack(3);
    expect(await storedOf(902)).toEqual({ n: 4, free: [3], over: 2 });
    expect(await take(2)).toBe(2 + 3);
    expect(await storedOf(902)).toEqual({ n: 4, free: undefined, over: 3 });
  });

  it('hands each position given back to one taker when many take at once', async () => {
    const taken = await Promise.all(Array.from({ length: 10 }, () => counters.takeCampaignSlot(903, DAY, 'INVITE', 10)));
    expect(taken.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await Promise.all([2, 4, 6, 8].map((k) => counters.returnCampaignSlot(903, DAY, 'INVITE', k)));
    const again = await Promise.all(Array.from({ length: 8 }, () => counters.takeCampaignSlot(903, DAY, 'INVITE', 10)));
    expect(again.sort((a, b) => a - b)).toEqual([2, 4, 6, 8, 11, 12, 13, 14]);
    expect(await storedOf(903)).toEqual({ n: 10, free: undefined, over: 4 });
  });

  it('counts the waits pulled forward into a day up to its budget, once each when many pull at once', async () => {
    const pulls = await Promise.all(Array.from({ length: 5 }, () => counters.takePull(920, DAY, 'MESSAGE', 3)));
    expect(pulls.filter(Boolean)).toHaveLength(3);
    expect(await counters.takePull(920, DAY, 'MESSAGE', 3)).toBe(false);
    // Another kind, or another day, has its own budget.
    expect(await counters.takePull(920, DAY, 'EMAIL', 3)).toBe(true);
    expect(await counters.takePull(920, '2026-12-02', 'MESSAGE', 3)).toBe(true);
  });

  it('keeps every position given back at the same time, whichever is the last', async () => {
    for (let round = 0; round < 5; round += 1) {
      const campaignId = 910 + round;
      await Promise.all(Array.from({ length: 4 }, () => counters.takeCampaignSlot(campaignId, DAY, 'INVITE', 4)));
      // 3 and 4 at once: whichever runs first, 3 is never lost (kept apart, or the last once 4 is back).
      await Promise.all([3, 4, 2].map((k) => counters.returnCampaignSlot(campaignId, DAY, 'INVITE', k)));
      const { n, free = [] } = await storedOf(campaignId);
      expect(Number(n) - free.length, `round ${round}`).toBe(1);
      const again = await Promise.all(Array.from({ length: 3 }, () => counters.takeCampaignSlot(campaignId, DAY, 'INVITE', 4)));
      expect(again.sort((a, b) => a - b), `round ${round}`).toEqual([2, 3, 4]);
    }
  });
});
