import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { makeDocClient } from '../../../shared/db/client';
import { campaignKey } from '../../../shared/db/keys';
import { CAMPAIGN_DEFAULTS, type Campaign } from '../../../shared/domain/campaigns/campaign';
import { completeCampaignsLeft } from '../../../shared/domain/campaigns/completion';
import { ManualClock } from '../../../shared/time/clock';

/**
 * A campaign that prospects left is completed when the rest have finished (completion.ts), but
 * never over a prospect that entered between its read and its write: the status change is
 * conditional on the count it read (every move changes the count in its transaction).
 */
describe('completing a campaign that prospects left', () => {
  const db = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
  const tableName = `completion${randomBytes(4).toString('hex')}`;
  const campaigns = new DynamoCampaignRepository(db, tableName);
  const clock = new ManualClock('2026-11-26T15:00:00.000Z');
  let nextId = 1;

  beforeAll(async () => ensureTable(db, tableName));

  async function activeCampaign(prospectCount: number): Promise<Campaign> {
    const at = clock.now().toISOString();
    const campaign = await campaigns.create({
      id: nextId++,
      workspaceId: 7,
      name: `Completion ${nextId}`,
      status: 'DRAFT',
      ...CAMPAIGN_DEFAULTS,
      sendingWindow: {},
      accountIds: [],
      prospectCount,
      flow: { root: null, nodes: {}, redirects: {} },
      flowVersion: 0,
      createdAt: at,
      updatedAt: at,
    });
    expect(await campaigns.setStatus(campaign, 'DRAFT', 'ACTIVE', at)).toBe(true);
    return campaign;
  }
  // What a move into the campaign does to its counter, in the move's transaction.
  const prospectEnters = (campaignId: number) =>
    db.send(new UpdateCommand({ TableName: tableName, Key: campaignKey(campaignId), UpdateExpression: 'ADD prospectCount :one', ExpressionAttributeValues: { ':one': 1 } }));
  const statusOf = async (campaign: Campaign) => (await campaigns.get(campaign.workspaceId, campaign.id))?.status;

  it('completes an ACTIVE campaign whose prospects have all finished, and leaves an emptied one ACTIVE', async () => {
    const done = await activeCampaign(2);
    const emptied = await activeCampaign(0);
    const unfinished = await activeCampaign(3);
    const prospects = { hasUnfinished: async (campaignId: number) => campaignId === unfinished.id };
    await completeCampaignsLeft({ campaigns, prospects, clock }, 7, [done.id, emptied.id, unfinished.id, done.id]);
    expect([await statusOf(done), await statusOf(emptied), await statusOf(unfinished)]).toEqual(['COMPLETED', 'ACTIVE', 'ACTIVE']);
  });

  it('does not complete a campaign a prospect entered between its read and the status change', async () => {
    const campaign = await activeCampaign(2);
    // The check finds nothing unfinished; a move commits a new prospect before the status write.
    const prospects = {
      hasUnfinished: async (campaignId: number) => {
        await prospectEnters(campaignId);
        return false;
      },
    };
    await completeCampaignsLeft({ campaigns, prospects, clock }, 7, [campaign.id]);
    expect(await statusOf(campaign)).toBe('ACTIVE');
  });
});
