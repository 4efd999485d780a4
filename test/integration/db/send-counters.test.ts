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
});
