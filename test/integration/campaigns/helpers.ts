import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { campaignKey, campaignProspectKey, outreachActionKey, prospectKey } from '../../../shared/db/keys';
import type { Campaign, CampaignStatus } from '../../../shared/domain/campaigns/campaign';
import type { FlowStructure } from '../../../shared/domain/campaigns/flow';
import type { TestStack } from '../../support/test-stack';
import type { Workspace } from '../leads/helpers';

/**
 * Campaigns for the tests of moving prospects: created through the campaign repository (the
 * campaign endpoints are another capability's) and put into a status with `setStatus`.
 */
export async function createCampaign(
  stack: TestStack,
  ws: Workspace,
  name: string,
  options: { status?: CampaignStatus; flow?: FlowStructure } = {},
): Promise<Campaign> {
  const repository = new DynamoCampaignRepository(stack.db, stack.tableName);
  const at = stack.clock.now().toISOString();
  const campaign: Campaign = {
    id: await new DynamoIdAllocator(stack.db, stack.tableName).next(),
    workspaceId: ws.workspaceId,
    name,
    status: 'DRAFT',
    timezone: 'Europe/Amsterdam',
    language: 'en',
    emailMaxMessages: 40,
    networkMaxMessages: 100,
    networkMaxConnections: 50,
    sendingWindow: {},
    accountIds: [],
    stopOnCompanyReply: false,
    prospectCount: 0,
    flow: options.flow ?? { root: null, nodes: {}, redirects: {} },
    flowVersion: 0,
    createdAt: at,
    updatedAt: at,
  };
  const stored = await repository.create(campaign);
  if (options.status && options.status !== 'DRAFT') await setStatus(stack, stored, options.status);
  return { ...stored, status: options.status ?? 'DRAFT' };
}

/** Moves a campaign to a status, whatever it is now. */
export async function setStatus(stack: TestStack, campaign: Campaign, status: CampaignStatus): Promise<void> {
  const repository = new DynamoCampaignRepository(stack.db, stack.tableName);
  const current = await repository.get(campaign.workspaceId, campaign.id);
  if (!current) throw new Error(`campaign ${campaign.id} is gone`);
  const moved = await repository.setStatus(current, current.status, status, stack.clock.now().toISOString());
  if (!moved) throw new Error(`campaign ${campaign.id} changed status meanwhile`);
}

/** The campaign's `prospectCount` as stored. */
export async function prospectCount(stack: TestStack, campaignId: number): Promise<number> {
  const { Item } = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: campaignKey(campaignId), ConsistentRead: true }));
  return Item?.prospectCount as number;
}

/** Every campaign prospect item of the campaign, in prospect id order. */
export async function campaignItems(stack: TestStack, campaignId: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await stack.db.send(
      new QueryCommand({
        TableName: stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': campaignProspectKey(campaignId, 0).pk },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** The engine's action item of a prospect in a campaign, as stored (undefined when it has none). */
export async function engineAction(stack: TestStack, campaignId: number, prospectId: number): Promise<Record<string, unknown> | undefined> {
  return (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: outreachActionKey(campaignId, prospectId), ConsistentRead: true }))).Item;
}

/** The prospect item as stored. */
export async function storedProspect(stack: TestStack, id: number): Promise<Record<string, unknown> | undefined> {
  return (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: prospectKey(id), ConsistentRead: true }))).Item;
}

export interface MovedProspect {
  id: number;
  status: string;
  campaign_id: number | null;
  company: { id: number; name: string; website_url: string; industry: string } | null;
  [key: string]: unknown;
}

export interface AddToCampaignResponse {
  success: boolean;
  count: number;
  prospects: MovedProspect[];
  has_more: boolean;
  skipped: { id: number; reason: string }[];
  warning?: string;
}

export const addToCampaign = (stack: TestStack, ws: Workspace, listId: number, body: unknown) =>
  stack.call<AddToCampaignResponse>('POST', `/public/lead-lists/${listId}/add-to-campaign/`, { apiKey: ws.key, body });
