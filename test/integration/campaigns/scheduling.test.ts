import { BatchWriteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { campaignKey, campaignProspectByStatus, campaignProspectKey, campaignProspectUnscheduled, dueShard } from '../../../shared/db/keys';
import { completeCampaignsLeft } from '../../../shared/domain/campaigns/completion';
import { emptyFlow } from '../../../shared/domain/campaigns/flow';
import { addStep } from '../../../shared/domain/campaigns/flow-edit';
import { sqsCampaignScheduling } from '../../../shared/messaging/campaign-scheduling-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { ManualClock } from '../../../shared/time/clock';
import { type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';
import { actionsOf } from '../engine/helpers';

/**
 * The campaign-scheduling queue: activating a campaign schedules the prospects it held back, a
 * page per message, exactly once each. Campaign prospects are written here as the add-to-campaign
 * path stores them (WAITING with the sparse lsi2 key), so the sweep is tested on its own.
 */
describe('scheduling the prospects a campaign held back, on activation', () => {
  const clock = new ManualClock('2026-11-23T08:00:00.000Z');
  let stack: TestStack;
  let apiKey: string;
  let workspaceId: number;
  let campaigns: DynamoCampaignRepository;

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, clock });
    const user = await signUp(stack);
    workspaceId = user.workspaceId;
    apiKey = (await createKey(stack, user)).key;
    campaigns = new DynamoCampaignRepository(stack.db, stack.tableName);
    const account = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey, body: { provider_account_id: 'sbx-mailbox-dev' } });
    expect(account.status, account.text).toBe(201);
    accountId = account.body.account.id;
  });
  afterAll(async () => stack?.stop());
  let accountId: number;

  /** A DRAFT campaign with one EMAIL step (written through the repository) and the mailbox attached. */
  async function readyCampaign(name: string) {
    const created = await stack.call<{ campaign: { id: number } }>('POST', '/public/campaigns/', { apiKey, body: { name } });
    const campaign = await campaigns.get(workspaceId, created.body.campaign.id);
    if (!campaign) throw new Error('campaign not stored');
    const stepId = campaign.id + 1_000_000;
    const at = clock.now().toISOString();
    const saved = await campaigns.saveFlow(
      campaign,
      {
        flow: addStep(emptyFlow(), { id: stepId, type: 'EMAIL' }),
        put: [
          {
            kind: 'STEP',
            id: stepId,
            campaignId: campaign.id,
            stepType: 'EMAIL',
            subjectLine: 'Hi {{first_name}}',
            messageTemplate: 'Hello',
            subjectLineB: '',
            messageTemplateB: '',
            delayInHours: 0,
            addUnsubscribe: false,
            createdAt: at,
            updatedAt: at,
          },
        ],
        delete: [],
      },
      at,
    );
    expect(saved).toBe(true);
    const attached = await stack.call('PATCH', `/public/campaigns/${campaign.id}/`, { apiKey, body: { account_ids: [accountId] } });
    expect(attached.status, attached.text).toBe(200);
    return { campaignId: campaign.id, stepId };
  }

  async function seedWaiting(campaignId: number, prospectIds: number[], nodeId: number | null, schedule: 'WAITING' | 'QUEUED') {
    const items = prospectIds.map((prospectId) => ({
      ...campaignProspectKey(campaignId, prospectId),
      ...campaignProspectByStatus('IN_REVIEW', prospectId),
      ...campaignProspectUnscheduled(prospectId),
      entityType: 'CampaignProspect',
      campaignId,
      prospectId,
      workspaceId,
      status: 'IN_REVIEW',
      nodeId,
      schedule,
      nextActionAt: null,
      lastError: null,
      companyId: null,
      addedAt: '2026-11-22T08:00:00.000Z',
      updatedAt: '2026-11-22T08:00:00.000Z',
    }));
    for (let i = 0; i < items.length; i += 25) {
      await stack.db.send(new BatchWriteCommand({ RequestItems: { [stack.tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }
  }

  async function prospectsOf(campaignId: number) {
    const { Items = [] } = await stack.db.send(
      new QueryCommand({
        TableName: stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': campaignProspectKey(campaignId, 0).pk },
        ConsistentRead: true,
      }),
    );
    return Items;
  }

  it('schedules every waiting prospect once, 200 per message, due at activation time, on the root when it had no node', async () => {
    const { campaignId, stepId } = await readyCampaign('Sweep');
    const waiting = Array.from({ length: 430 }, (_, i) => 5_000_000 + i);
    await seedWaiting(campaignId, waiting.slice(0, 400), null, 'WAITING');
    await seedWaiting(campaignId, waiting.slice(400), stepId, 'QUEUED');
    clock.set('2026-11-23T09:15:00.000Z');

    const activated = await stack.call<{ campaign: { status: string } }>('POST', `/public/campaigns/${campaignId}/activate/`, { apiKey });
    expect(activated.status, activated.text).toBe(200);
    expect(activated.body.campaign.status).toBe('ACTIVE');
    // 200 + 200 + 30: the third page is short, so the sweep stops there.
    expect(await stack.drain('campaign-scheduling')).toBe(3);

    const items = await prospectsOf(campaignId);
    expect(items).toHaveLength(430);
    // Each carries its first action, due at activation time, in the engine's due-time index (the
    // engine writes the action item when it first handles it).
    for (const item of items) {
      const prospectId = item.prospectId as number;
      expect(item, String(prospectId)).toMatchObject({
        schedule: 'SCHEDULED',
        nodeId: stepId,
        nextActionAt: '2026-11-23T09:15:00.000Z',
        updatedAt: '2026-11-23T09:15:00.000Z',
        lsi1sk: `IN_REVIEW#${String(prospectId).padStart(16, '0')}`,
        dueAt: '2026-11-23T09:15:00.000Z',
        gsi2pk: `DUE#${String(dueShard(prospectId)).padStart(2, '0')}`,
        gsi2sk: `2026-11-23T09:15:00.000Z#${String(campaignId).padStart(16, '0')}#${String(prospectId).padStart(16, '0')}`,
      });
      expect(item.lsi2sk).toBeUndefined();
    }
    expect(await actionsOf(stack, campaignId)).toEqual([]);

    // A redelivered message (or activate again) finds nobody waiting and changes nothing.
    clock.set('2026-11-23T10:00:00.000Z');
    await sqsCampaignScheduling(makeSqsClient({ endpoint: stack.sqsEndpoint }), stack.queue('campaign-scheduling').queueUrl).send({
      campaign_id: campaignId,
      workspace_id: workspaceId,
    });
    const again = await stack.call('POST', `/public/campaigns/${campaignId}/activate/`, { apiKey });
    expect(again.status).toBe(200);
    expect(await stack.drain('campaign-scheduling')).toBe(2);
    expect((await prospectsOf(campaignId)).map((item) => item.nextActionAt)).toEqual(Array(430).fill('2026-11-23T09:15:00.000Z'));
  });

  it('leaves the prospects of a campaign that is not ACTIVE waiting, and schedules them on resume', async () => {
    const { campaignId } = await readyCampaign('Paused sweep');
    expect((await stack.call('POST', `/public/campaigns/${campaignId}/activate/`, { apiKey })).status).toBe(200);
    expect((await stack.call('POST', `/public/campaigns/${campaignId}/pause/`, { apiKey })).status).toBe(200);
    await stack.drain('campaign-scheduling');
    await seedWaiting(campaignId, [6_000_001, 6_000_002], null, 'WAITING');
    // The message of an activation that was followed by a pause: the sweep stops at once.
    await sqsCampaignScheduling(makeSqsClient({ endpoint: stack.sqsEndpoint }), stack.queue('campaign-scheduling').queueUrl).send({
      campaign_id: campaignId,
      workspace_id: workspaceId,
    });
    expect(await stack.drain('campaign-scheduling')).toBe(1);
    expect((await prospectsOf(campaignId)).map((item) => item.schedule)).toEqual(['WAITING', 'WAITING']);

    clock.set('2026-11-23T11:00:00.000Z');
    expect((await stack.call('POST', `/public/campaigns/${campaignId}/resume/`, { apiKey })).status).toBe(200);
    expect(await stack.drain('campaign-scheduling')).toBe(1);
    expect((await prospectsOf(campaignId)).map((item) => [item.schedule, item.nextActionAt])).toEqual([
      ['SCHEDULED', '2026-11-23T11:00:00.000Z'],
      ['SCHEDULED', '2026-11-23T11:00:00.000Z'],
    ]);
  });

  it('asks again on the queue a completion check that failed after prospects left, and completes the campaign there', async () => {
    const { campaignId } = await readyCampaign('Completion retried');
    expect((await stack.call('POST', `/public/campaigns/${campaignId}/activate/`, { apiKey })).status).toBe(200);
    await stack.drain('campaign-scheduling');
    // An ACTIVE campaign with a prospect counted and none unfinished: what a departure of its last
    // unfinished prospect leaves.
    await stack.db.send(
      new UpdateCommand({ TableName: stack.tableName, Key: campaignKey(campaignId), UpdateExpression: 'ADD prospectCount :one', ExpressionAttributeValues: { ':one': 1 } }),
    );
    const scheduling = sqsCampaignScheduling(makeSqsClient({ endpoint: stack.sqsEndpoint }), stack.queue('campaign-scheduling').queueUrl);
    const failing = { hasUnfinished: async () => Promise.reject(new Error('ProvisionedThroughputExceededException')) };
    const statusOf = async () => (await campaigns.get(workspaceId, campaignId))?.status;

    // Without a queue to hand it to, the caller sees the error; when the queue refuses too, the check's own error.
    await expect(completeCampaignsLeft({ campaigns, prospects: failing, clock }, workspaceId, [campaignId])).rejects.toThrow('ProvisionedThroughputExceededException');
    const refused = async () => Promise.reject(new Error('queue unavailable'));
    await expect(completeCampaignsLeft({ campaigns, prospects: failing, clock, retryLater: refused }, workspaceId, [campaignId])).rejects.toThrow(
      'ProvisionedThroughputExceededException',
    );
    expect(await stack.drain('campaign-scheduling')).toBe(0);

    const handed: number[] = [];
    const retryLater = async (workspace: number, campaign: number) => {
      handed.push(campaign);
      await scheduling.checkCompletion(workspace, campaign);
    };
    await completeCampaignsLeft({ campaigns, prospects: failing, clock, retryLater }, workspaceId, [campaignId]);
    expect(handed).toEqual([campaignId]);
    expect(await statusOf()).toBe('ACTIVE');
    // The consumer asks with the real check: the campaign's prospects have all finished.
    expect(await stack.drain('campaign-scheduling')).toBe(1);
    expect(await statusOf()).toBe('COMPLETED');

    // The check schedules nobody: a prospect added without activation keeps waiting (and is unfinished).
    const other = await readyCampaign('Completion asked, prospect waiting');
    expect((await stack.call('POST', `/public/campaigns/${other.campaignId}/activate/`, { apiKey })).status).toBe(200);
    await stack.drain('campaign-scheduling');
    await seedWaiting(other.campaignId, [6_100_001], null, 'WAITING');
    await scheduling.checkCompletion(workspaceId, other.campaignId);
    expect(await stack.drain('campaign-scheduling')).toBe(1);
    expect((await prospectsOf(other.campaignId)).map((item) => item.schedule)).toEqual(['WAITING']);
    expect((await campaigns.get(workspaceId, other.campaignId))?.status).toBe('ACTIVE');
  });
});
