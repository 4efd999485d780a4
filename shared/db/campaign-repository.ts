import { newestFirst } from '../domain/ordering';
import { type DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { CAMPAIGN_STATUSES, type Campaign, type CampaignStatus, WEEKDAYS, numberedName } from '../domain/campaigns/campaign';
import { CONDITION_TYPES, type CampaignNode, STEP_TYPES } from '../domain/campaigns/nodes';
import type { CampaignRepository, CampaignSettingsChange, FlowChange, StatusExpectation } from '../domain/campaigns/ports';
import { conflict } from '../domain/errors';
import { batchGetAll } from './batch-get';
import { cancellationReasons, isConditionFailed, isTransactionConditionFailed, queryAll } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { CAMPAIGN_NODE_PREFIX, campaignKey, campaignNameKey, campaignNodeKey, campaignsByWorkspace } from './keys';
import { TABLE } from './table-schema';
import type { TransactItem } from './transactions';

const DayWindowItem = v.object({ enabled: v.boolean(), start: v.string(), end: v.string() });
const FlowLinkItem = v.object({
  kind: v.picklist(['STEP', 'CONDITION']),
  type: v.string(),
  parent: v.nullable(intAttribute),
  branch: v.optional(v.picklist(['YES', 'NO'])),
  child: v.optional(v.nullable(intAttribute)),
  yes: v.optional(v.nullable(intAttribute)),
  no: v.optional(v.nullable(intAttribute)),
});

export const CampaignItem = itemSchema(
  'Campaign',
  v.object({
    id: intAttribute,
    workspaceId: intAttribute,
    name: v.string(),
    status: v.picklist(CAMPAIGN_STATUSES),
    timezone: v.string(),
    language: v.string(),
    emailMaxMessages: intAttribute,
    networkMaxMessages: intAttribute,
    networkMaxConnections: intAttribute,
    sendingWindow: v.partial(v.object(Object.fromEntries(WEEKDAYS.map((day) => [day, DayWindowItem])) as Record<(typeof WEEKDAYS)[number], typeof DayWindowItem>)),
    accountIds: v.array(intAttribute),
    // Campaigns written before the option existed have none: off.
    stopOnCompanyReply: v.optional(v.boolean(), false),
    prospectCount: intAttribute,
    flow: v.object({
      root: v.nullable(intAttribute),
      nodes: v.record(v.string(), FlowLinkItem),
      redirects: v.record(v.string(), v.nullable(intAttribute)),
    }),
    flowVersion: intAttribute,
    createdAt: v.string(),
    updatedAt: v.string(),
    activatedAt: v.optional(v.string()),
  }),
);

const nodeCommon = { id: intAttribute, campaignId: intAttribute, delayInHours: intAttribute, createdAt: v.string(), updatedAt: v.string() };
export const CampaignNodeItem = itemSchema(
  'CampaignNode',
  v.variant('kind', [
    v.object({
      kind: v.literal('STEP'),
      ...nodeCommon,
      stepType: v.picklist(STEP_TYPES),
      subjectLine: v.string(),
      messageTemplate: v.string(),
      subjectLineB: v.string(),
      messageTemplateB: v.string(),
      addUnsubscribe: v.boolean(),
    }),
    v.object({ kind: v.literal('CONDITION'), ...nodeCommon, conditionType: v.picklist(CONDITION_TYPES) }),
  ]),
);

const campaignItem = (campaign: Campaign) => ({
  ...campaignKey(campaign.id),
  ...campaignsByWorkspace(campaign.workspaceId, campaign.id),
  entityType: 'Campaign',
  ...campaign,
});
const nodeItem = (node: CampaignNode) => ({ ...campaignNodeKey(node.campaignId, node.id), entityType: 'CampaignNode', ...node });
const nameGuard = (campaign: Pick<Campaign, 'workspaceId' | 'id'>, name: string) => ({
  ...campaignNameKey(campaign.workspaceId, name),
  entityType: 'CampaignName',
  campaignId: campaign.id,
});

/** The condition of a node's put that must find the node as it was read (its `updatedAt`); none for a new node. */
const unchangedSince = (updatedAt: string | undefined) =>
  updatedAt === undefined ? {} : { ConditionExpression: 'updatedAt = :read', ExpressionAttributeValues: { ':read': updatedAt } };

/** How many numbered names one read looks at before claiming the first free one. */
const NAMES_PER_READ = 25;
/**
 * Claims lost to a concurrent create of the same name before giving up (409, retry). Each round
 * one of the requests racing for a name wins it, so N concurrent creates of one name need up to N
 * rounds: 25 covers a burst of 25 (each round reads at most NAMES_PER_READ names and writes once).
 */
const MAX_NAME_ATTEMPTS = 25;

/**
 * Campaigns. The campaign item (settings, status, count, flow structure) and its nodes share a
 * partition; a name guard per workspace and name keeps names unique. The campaign item is only
 * ever changed by UpdateItem of the attributes a change owns, so a count moved by prospects and a
 * flow change never overwrite each other.
 */
export class DynamoCampaignRepository implements CampaignRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(campaign: Campaign): Promise<Campaign> {
    // The name as given is claimed without a read first (the usual case: it is free); only when it
    // is taken are the numbered names read to find the first free one.
    let name = campaign.name;
    for (let attempt = 0; attempt < MAX_NAME_ATTEMPTS; attempt += 1) {
      if (attempt > 0) name = await this.freeName(campaign.workspaceId, campaign.name);
      const stored = { ...campaign, name };
      try {
        await this.db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.tableName, Item: nameGuard(stored, name), ConditionExpression: 'attribute_not_exists(pk)' } },
              { Put: { TableName: this.tableName, Item: campaignItem(stored), ConditionExpression: 'attribute_not_exists(pk)' } },
            ],
          }),
        );
        return stored;
      } catch (error) {
        // The name is taken (or was taken between the read and the write): look for the next free one.
        if (!isTransactionConditionFailed(error)) throw error;
      }
    }
    throw conflict('Campaign name is being taken by concurrent requests, please retry');
  }

  /** The first of `name`, `name (2)`, ... that no campaign of the workspace holds (read consistently; the claim is conditional all the same). */
  private async freeName(workspaceId: number, base: string, own?: number): Promise<string> {
    for (let first = 1; ; first += NAMES_PER_READ) {
      const names = Array.from({ length: NAMES_PER_READ }, (_, i) => numberedName(base, first + i));
      const items = await batchGetAll(
        this.db,
        this.tableName,
        names.map((name) => campaignNameKey(workspaceId, name)),
        { consistent: true },
      );
      const taken = new Map(items.map((item) => [String(item.pk), Number(item.campaignId)]));
      const free = names.find((name) => {
        const holder = taken.get(campaignNameKey(workspaceId, name).pk);
        return holder === undefined || holder === own;
      });
      if (free) return free;
    }
  }

  async get(workspaceId: number, campaignId: number): Promise<Campaign | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: campaignKey(campaignId), ConsistentRead: true }));
    if (!Item) return undefined;
    const campaign = parseItem(CampaignItem, Item);
    return campaign.workspaceId === workspaceId ? campaign : undefined;
  }

  async getWithFlow(workspaceId: number, campaignId: number) {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': campaignKey(campaignId).pk },
      ConsistentRead: true,
    });
    const campaignRow = items.find((item) => item.sk === campaignKey(campaignId).sk);
    if (!campaignRow) return undefined;
    const campaign = parseItem(CampaignItem, campaignRow);
    if (campaign.workspaceId !== workspaceId) return undefined;
    const nodes = new Map<number, CampaignNode>();
    for (const item of items) {
      if (typeof item.sk === 'string' && item.sk.startsWith(CAMPAIGN_NODE_PREFIX)) {
        const node = parseItem(CampaignNodeItem, item);
        nodes.set(node.id, node);
      }
    }
    return { campaign, nodes };
  }

  async listForWorkspace(workspaceId: number): Promise<Campaign[]> {
    const key = campaignsByWorkspace(workspaceId, 0);
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      IndexName: TABLE.gsi1.name,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': key.gsi1pk },
    });
    // Sorted here, not by the index's id order: ids are not given out in creation order.
    return items.map((item) => parseItem(CampaignItem, item)).sort(newestFirst);
  }

  async updateSettings(campaign: Campaign, change: CampaignSettingsChange, updatedAt: string): Promise<Campaign> {
    for (let attempt = 0; attempt < MAX_NAME_ATTEMPTS; attempt += 1) {
      const renamed = change.name !== undefined && change.name !== campaign.name;
      const name = renamed ? await this.freeName(campaign.workspaceId, change.name as string, campaign.id) : campaign.name;
      const values: Record<string, unknown> = { ...change, name, updatedAt };
      const names: Record<string, string> = {};
      const expressionValues: Record<string, unknown> = { ':archived': 'ARCHIVED' };
      const sets = Object.entries(values).map(([attribute, value], i) => {
        names[`#a${i}`] = attribute;
        expressionValues[`:v${i}`] = value;
        return `#a${i} = :v${i}`;
      });
      const update: TransactItem = {
        Update: {
          TableName: this.tableName,
          Key: campaignKey(campaign.id),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(pk) AND #status <> :archived',
          ExpressionAttributeNames: { ...names, '#status': 'status' },
          ExpressionAttributeValues: expressionValues,
        },
      };
      const actions: TransactItem[] = [update];
      if (renamed && name !== campaign.name) {
        actions.push(
          { Put: { TableName: this.tableName, Item: nameGuard(campaign, name), ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Delete: {
              TableName: this.tableName,
              Key: campaignNameKey(campaign.workspaceId, campaign.name),
              ConditionExpression: 'campaignId = :id',
              ExpressionAttributeValues: { ':id': campaign.id },
            },
          },
        );
      }
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: actions }));
        return { ...campaign, ...change, name, updatedAt };
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons) throw error;
        if (reasons[0]?.Code === 'ConditionalCheckFailed') throw conflict('Campaign is archived');
        if (!isTransactionConditionFailed(error)) throw error;
        // The new name was taken meanwhile: look for the next free one.
      }
    }
    throw conflict('Campaign name is being taken by concurrent requests, please retry');
  }

  async detachAccount(campaign: Campaign, accountId: number, updatedAt: string): Promise<Campaign | undefined> {
    const accountIds = campaign.accountIds.filter((id) => id !== accountId);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: campaignKey(campaign.id),
          UpdateExpression: 'SET accountIds = :ids, updatedAt = :now',
          ConditionExpression: 'updatedAt = :seen',
          ExpressionAttributeValues: { ':ids': accountIds, ':now': updatedAt, ':seen': campaign.updatedAt },
        }),
      );
      return { ...campaign, accountIds, updatedAt };
    } catch (error) {
      if (isConditionFailed(error)) return undefined;
      throw error;
    }
  }

  async setStatus(campaign: Campaign, from: CampaignStatus, to: CampaignStatus, updatedAt: string, expect: StatusExpectation = {}): Promise<boolean> {
    // With an expected count: no prospect entered or left since it was read (every move changes it
    // in its transaction). With an expected flow version: the flow is still the one checked.
    const conditions = ['#status = :from'];
    if (expect.prospectCount !== undefined) conditions.push('prospectCount = :count');
    if (expect.flowVersion !== undefined) conditions.push('flowVersion = :flowVersion');
    const again = from === to;
    if (again && to !== 'ACTIVE') throw new Error(`setStatus: ${to} is not set again (only an activation is asked again)`);
    // An activation asked again moves activatedAt forward only: a later one may have written it.
    if (again) conditions.push('(attribute_not_exists(activatedAt) OR activatedAt <= :now)');
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: campaignKey(campaign.id),
          // Made (or asked again to be: no other change, updatedAt kept) ACTIVE: its waiting prospects
          // are being scheduled from now on.
          UpdateExpression: again ? 'SET #status = :to, activatedAt = :now' : `SET #status = :to, updatedAt = :now${to === 'ACTIVE' ? ', activatedAt = :now' : ''}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':to': to,
            ':from': from,
            ':now': updatedAt,
            ...(expect.prospectCount === undefined ? {} : { ':count': expect.prospectCount }),
            ...(expect.flowVersion === undefined ? {} : { ':flowVersion': expect.flowVersion }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      // Asked again while a later activation is written: it stands, as long as the campaign is ACTIVE.
      return again && (await this.get(campaign.workspaceId, campaign.id))?.status === 'ACTIVE';
    }
  }

  async saveFlow(campaign: Campaign, change: FlowChange, updatedAt: string): Promise<boolean> {
    const actions: TransactItem[] = [
      {
        Update: {
          TableName: this.tableName,
          Key: campaignKey(campaign.id),
          UpdateExpression: 'SET flow = :flow, flowVersion = :next, updatedAt = :now',
          ConditionExpression: 'flowVersion = :version AND #status IN (:draft, :paused)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':flow': change.flow,
            ':next': campaign.flowVersion + 1,
            ':version': campaign.flowVersion,
            ':now': updatedAt,
            ':draft': 'DRAFT',
            ':paused': 'PAUSED',
          },
        },
      },
      ...change.put.map((node): TransactItem => ({ Put: { TableName: this.tableName, Item: nodeItem(node), ...unchangedSince(change.expectedUpdatedAt?.[node.id]) } })),
      ...change.delete.map((id): TransactItem => ({ Delete: { TableName: this.tableName, Key: campaignNodeKey(campaign.id, id) } })),
    ];
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: actions }));
      return true;
    } catch (error) {
      if (isTransactionConditionFailed(error)) return false;
      throw error;
    }
  }

  async saveNode(campaign: Campaign, node: CampaignNode, expectedUpdatedAt?: string): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tableName,
                Key: campaignKey(campaign.id),
                ConditionExpression: '#status <> :archived',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':archived': 'ARCHIVED' },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: nodeItem(node),
                ...(expectedUpdatedAt === undefined
                  ? { ConditionExpression: 'attribute_exists(pk)' }
                  : { ConditionExpression: 'attribute_exists(pk) AND updatedAt = :read', ExpressionAttributeValues: { ':read': expectedUpdatedAt } }),
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isTransactionConditionFailed(error)) return false;
      throw error;
    }
  }
}
