import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { DynamoCampaignProspects } from '../../../shared/db/campaign-prospects';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { DynamoLeadListRepository } from '../../../shared/db/lead-list-repository';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { DynamoRequestLeases } from '../../../shared/db/request-leases';
import type { Campaign, CampaignStatus } from '../../../shared/domain/campaigns/campaign';
import { type AddToCampaignInput, createProspectMoves } from '../../../shared/domain/campaigns/prospect-moves';
import { sqsCampaignScheduling } from '../../../shared/messaging/campaign-scheduling-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { createLeadWriter } from '../../../shared/domain/leads/lead-writer';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, createList, importLeads, leadsStack, person } from '../leads/helpers';
import { campaignItems, createCampaign, prospectCount, setStatus, storedProspect } from './helpers';

/**
 * A move is written conditional on the campaign's status as it was read: when the campaign
 * changed status between the read and the write, the prospects are decided again on the campaign
 * as it is (driven here by a campaign port that answers a stale status once).
 */
describe('moving prospects while the campaign changes status', () => {
  let stack: TestStack;
  let alice: Workspace;
  let row = 0;

  /**
   * Moves whose campaign reads answer `stale` as its status, the first `times` reads; with
   * `sweepAtOnce`, a sweep of waiting prospects runs as soon as it is sent (before the request's
   * next write), as a campaign-scheduling consumer may.
   */
  function movesSeeing(stale: CampaignStatus, times = 1, sweepAtOnce = false) {
    const leads = new DynamoLeadRepository(stack.db, stack.tableName, stack.clock);
    const ids = new DynamoIdAllocator(stack.db, stack.tableName);
    const repository = new DynamoCampaignRepository(stack.db, stack.tableName);
    let answered = 0;
    const writerDeps = { leads, ids, clock: stack.clock, maxLeadsPerList: 100_000 };
    return createProspectMoves({
      ...writerDeps,
      campaigns: {
        async get(workspaceId, campaignId) {
          const campaign = await repository.get(workspaceId, campaignId);
          if (answered >= times || !campaign) return campaign;
          answered += 1;
          return { ...campaign, status: stale };
        },
        setStatus: (...args) => repository.setStatus(...args),
        listForWorkspace: (workspaceId) => repository.listForWorkspace(workspaceId),
      },
      campaignProspects: new DynamoCampaignProspects(stack.db, stack.tableName),
      lists: new DynamoLeadListRepository(stack.db, stack.tableName, leads.members, leads.journal),
      digests: { chunks: async (listId) => [...(await leads.members.readDigest(listId)).values()].map((stored) => stored.chunk) },
      writer: createLeadWriter(writerDeps),
      scheduling: sweeping(
        sqsCampaignScheduling(makeSqsClient({ endpoint: stack.settings.sqsEndpoint, region: stack.settings.awsRegion }), stack.settings.campaignSchedulingQueueUrl as string),
        sweepAtOnce,
      ),
      leases: new DynamoRequestLeases(stack.db, stack.tableName),
    });
  }

  function sweeping(scheduling: ReturnType<typeof sqsCampaignScheduling>, atOnce: boolean): ReturnType<typeof sqsCampaignScheduling> {
    if (!atOnce) return scheduling;
    return {
      ...scheduling,
      async scheduleWaiting(campaign) {
        await scheduling.scheduleWaiting(campaign);
        await stack.drain('campaign-scheduling');
      },
    };
  }

  const input = (campaign: Campaign): AddToCampaignInput => ({
    campaignId: campaign.id,
    amount: 0,
    allowDuplicates: false,
    perCompany: 1,
    filters: [],
    sortField: 'id',
    direction: 'asc',
    activate: true,
  });

  async function seed(name: string) {
    const list = await createList(stack, alice, name);
    const leads = Array.from({ length: 3 }, (_, i) => person(row + i));
    row += 3;
    const ids = (await importLeads(stack, alice, list.id, { leads })).leads.map((lead) => lead.id);
    return { list, ids };
  }

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  it('a campaign activated since it was read: the prospects are scheduled, not left waiting, and no warning is given', async () => {
    const { list, ids } = await seed('Activated meanwhile');
    const campaign = await createCampaign(stack, alice, 'Activated meanwhile');
    await setStatus(stack, campaign, 'ACTIVE');
    const result = await movesSeeing('DRAFT').addFromList(alice.workspaceId, list.id, input(campaign));
    expect(result.moved.map((m) => m.prospect.id)).toEqual(ids);
    expect(result.warning).toBeUndefined();
    expect((await campaignItems(stack, campaign.id)).map((item) => item.schedule)).toEqual(['SCHEDULED', 'SCHEDULED', 'SCHEDULED']);
    expect(await prospectCount(stack, campaign.id)).toBe(3);
  });

  it('a campaign COMPLETED since it was read (its last prospect finished): reopened, the prospects scheduled, no warning', async () => {
    /** A campaign whose one prospect finished (a pipeline status ended its sequence): COMPLETED, with a prospect count of 1. */
    async function completed(name: string) {
      const { list, ids } = await seed(name);
      const campaign = await createCampaign(stack, alice, name, { status: 'ACTIVE' });
      const [done, ...rest] = ids as [number, ...number[]];
      const added = await stack.call('POST', `/public/lead-lists/${list.id}/add-to-campaign/`, { apiKey: alice.key, body: { campaign: campaign.id, prospect_ids: [done], activate: true } });
      expect(added.status, added.text).toBe(200);
      expect((await stack.call('PATCH', `/public/prospects/${done}/`, { apiKey: alice.key, body: { status: 'NOT_INTERESTED' } })).status).toBe(200);
      expect(await statusOf(campaign.id)).toBe('COMPLETED');
      return { list, campaign, rest };
    }
    const statusOf = async (id: number) => (await stack.call<{ campaign: { status: string } }>('GET', `/public/campaigns/${id}/`, { apiKey: alice.key })).body.campaign.status;

    const { list, campaign, rest } = await completed('Completed meanwhile');
    // Both reads of add-to-campaign (before and inside its lease) see it ACTIVE; its write finds it
    // COMPLETED and reopens it. The reopened campaign's sweep runs as soon as it is sent: sent before
    // the prospects were written, it found nothing unfinished and completed the campaign again.
    const result = await movesSeeing('ACTIVE', 2, true).addFromList(alice.workspaceId, list.id, { ...input(campaign), prospectIds: rest });
    expect([result.moved.map((m) => m.prospect.id), result.skipped, result.warning]).toEqual([rest, [], undefined]);
    expect((await campaignItems(stack, campaign.id)).map((item) => item.schedule)).toEqual(['SCHEDULED', 'SCHEDULED', 'SCHEDULED']);
    expect(await statusOf(campaign.id)).toBe('ACTIVE');

    // The campaign import the same way (one read).
    const imported = await completed('Completed meanwhile, import');
    const rows = [person(row), person(row + 1)];
    row += 2;
    const answer = await movesSeeing('ACTIVE', 1, true).importLeads(alice.workspaceId, imported.campaign.id, { leads: rows, activate: true });
    expect([answer.count, answer.skipped, answer.warning]).toEqual([2, [], undefined]);
    expect((await campaignItems(stack, imported.campaign.id)).map((item) => item.schedule)).toEqual(['SCHEDULED', 'SCHEDULED', 'SCHEDULED']);
    expect(await statusOf(imported.campaign.id)).toBe('ACTIVE');
  });

  it('a campaign archived since it was read: 409, nothing moved', async () => {
    const { list, ids } = await seed('Archived meanwhile');
    const campaign = await createCampaign(stack, alice, 'Archived meanwhile', { status: 'ARCHIVED' });
    await expect(movesSeeing('ACTIVE').addFromList(alice.workspaceId, list.id, input(campaign))).rejects.toMatchObject({
      kind: 'conflict',
      message: 'Campaign is archived',
    });
    expect(await prospectCount(stack, campaign.id)).toBe(0);
    expect(await campaignItems(stack, campaign.id)).toEqual([]);
    for (const id of ids) expect((await storedProspect(stack, id))?.status).toBe('NEW');
  });
});
