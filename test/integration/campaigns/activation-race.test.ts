import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountRepository } from '../../../shared/db/account-repository';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createCampaignService } from '../../../shared/domain/campaigns/campaign-service';
import { sqsCampaignScheduling } from '../../../shared/messaging/campaign-scheduling-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, campaignWith, engineWorld } from '../engine/helpers';

/**
 * Activation checks that the campaign can run (steps, accounts), then writes ACTIVE. A flow edit
 * landing between the check and the write (driven here by the accounts read of the check, which
 * makes the edit over HTTP first) must make it check again: it is conditional on the flow version
 * it checked. Before 2026-11-27 the campaign ended ACTIVE with a flow it never checked.
 */
describe('activation racing a flow edit', () => {
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  /** The campaign service of the campaigns function, whose readiness check runs `meanwhile` once, after reading the campaign. */
  function serviceWith(meanwhile: () => Promise<void>) {
    const { stack } = world;
    const accounts = new DynamoSenderAccountRepository(stack.db, stack.tableName);
    let edited = false;
    return createCampaignService({
      campaigns: new DynamoCampaignRepository(stack.db, stack.tableName),
      accounts: {
        async listForWorkspace(workspaceId) {
          if (!edited) {
            edited = true;
            await meanwhile();
          }
          return accounts.listForWorkspace(workspaceId);
        },
      },
      memberships: new DynamoAccountRepository(stack.db, stack.tableName),
      scheduling: sqsCampaignScheduling(
        makeSqsClient({ endpoint: stack.settings.sqsEndpoint, region: stack.settings.awsRegion }),
        stack.settings.campaignSchedulingQueueUrl as string,
      ),
      ids: new DynamoIdAllocator(stack.db, stack.tableName),
      clock,
    });
  }

  const detail = async (id: number) =>
    (await world.stack.call<{ campaign: { status: string; steps: unknown[] } }>('GET', `/public/campaigns/${id}/`, { apiKey: world.ws.key })).body.campaign;

  it('its only step deleted meanwhile: 400 "no steps", and the campaign stays DRAFT', async () => {
    const { id, stepIds } = await campaignWith(world, 'Emptied while activating', [{ step_type: 'EMAIL' }]);
    const service = serviceWith(async () => {
      const deleted = await world.stack.call('DELETE', `/public/campaigns/${id}/steps/${stepIds[0]}/`, { apiKey: world.ws.key });
      expect(deleted.status, deleted.text).toBe(200);
    });
    await expect(service.changeStatus(world.ws.workspaceId, id, 'activate')).rejects.toThrow('Campaign has no steps: add at least one step before activating');
    expect(await detail(id)).toMatchObject({ status: 'DRAFT', steps: [] });
  });

  it('a step added meanwhile: checked too, and the campaign goes ACTIVE with it', async () => {
    const { id } = await campaignWith(world, 'Grown while activating', [{ step_type: 'EMAIL' }]);
    const service = serviceWith(async () => {
      const added = await world.stack.call('POST', `/public/campaigns/${id}/steps/`, { apiKey: world.ws.key, body: { step_type: 'NETWORK_INVITE' } });
      expect(added.status, added.text).toBe(201);
    });
    expect(await service.changeStatus(world.ws.workspaceId, id, 'activate')).toMatchObject({ status: 'ACTIVE', flowVersion: 2 });
    const campaign = await detail(id);
    expect({ status: campaign.status, steps: campaign.steps.length }).toEqual({ status: 'ACTIVE', steps: 2 });
  });
});
