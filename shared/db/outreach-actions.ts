import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { CampaignProspect } from '../domain/campaigns/campaign-prospect';
import { toCampaignProspect } from './campaign-prospects';
import type { ActionRef, OutreachAction } from '../domain/engine/action';
import type { ActionStore, DueIndex } from '../domain/engine/ports';
import { isConditionFailed } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { DUE_SHARDS, PARKED_PREFIX, actionDue, actionParked, campaignProspectKey, outreachActionKey } from './keys';

/**
 * The engine's action items (domain: shared/domain/engine/action.ts). ~0.4 KB each, in the table
 * and, while due, in gsi2 (`DUE#nn`) (while parked by a pause, in lsi2 instead): each write is 1 WCU plus 1 for the index copy (2 when the due
 * time, the index's sort key, moves). Every write is a whole-item Put conditional on the version
 * and stint read, so two deliveries of one message can never both act.
 *
 * A prospect's first action is not an item until the engine first handles it: its campaign
 * prospect item carries the due-time keys (`pendingFirstAction`, shared/db/campaign-prospects.ts),
 * and the engine reads it from there as version 0 (`pending`). Its first write puts the action
 * item (conditional on there being none) and then takes the keys off the campaign prospect; a
 * crash in between leaves a due entry whose next reading finds the action written and only
 * removes the keys.
 */

const SEND_KINDS = ['EMAIL', 'INVITE', 'MESSAGE'] as const;

export const OutreachActionItem = itemSchema(
  'OutreachAction',
  v.object({
    campaignId: intAttribute,
    prospectId: intAttribute,
    workspaceId: intAttribute,
    stint: v.string(),
    version: intAttribute,
    nodeId: v.nullable(intAttribute),
    dueAt: v.nullable(v.string()),
    parked: v.nullable(v.picklist(['CAMPAIGN_NOT_ACTIVE', 'CONDITION', 'NO_SENDING_DAY'])),
    claim: v.nullable(
      v.object({
        token: v.string(),
        at: v.string(),
        accountId: intAttribute,
        kind: v.picklist(SEND_KINDS),
        accountDay: v.string(),
        campaignDay: v.string(),
      }),
    ),
    reservation: v.nullable(v.object({ day: v.string(), kind: v.picklist(SEND_KINDS), k: intAttribute })),
    attempts: intAttribute,
    lastActionAt: v.nullable(v.string()),
    started: v.boolean(),
    accounts: v.object({ EMAIL: v.optional(intAttribute), NETWORK: v.optional(intAttribute) }),
    networkProviderId: v.nullable(v.string()),
    updatedAt: v.string(),
  }),
);

/**
 * The stored item of an action: in the due-time index while it has a due time; in the sparse lsi2
 * of its partition while parked because the campaign stopped running, so resume finds exactly
 * those (the index holds a copy of an action only while it is parked).
 */
export function outreachActionItem(action: OutreachAction) {
  return {
    ...outreachActionKey(action.campaignId, action.prospectId),
    ...(action.dueAt !== null ? actionDue(action.dueAt, action.campaignId, action.prospectId) : {}),
    ...(action.parked === 'CAMPAIGN_NOT_ACTIVE' ? actionParked(action.prospectId) : {}),
    entityType: 'OutreachAction',
    ...action,
  };
}

/**
 * The first action of a prospect scheduled in a campaign (at the flow node it waits on), as read
 * from its campaign prospect item: version 0, not written yet (see above).
 */
export function firstAction(prospect: CampaignProspect, nodeId: number | null, dueAt: string): OutreachAction {
  return {
    campaignId: prospect.campaignId,
    prospectId: prospect.prospectId,
    workspaceId: prospect.workspaceId,
    // A stay in the campaign: the time it was added there, unique per prospect and campaign.
    stint: prospect.addedAt,
    version: 0,
    nodeId,
    dueAt,
    parked: null,
    claim: null,
    reservation: null,
    attempts: 0,
    lastActionAt: null,
    started: false,
    accounts: {},
    networkProviderId: null,
    updatedAt: dueAt,
  };
}

export const toOutreachAction = (item: Record<string, unknown>): OutreachAction => parseItem(OutreachActionItem, item);

const SAME_VERSION = 'version = :version AND stint = :stint';

/** A due-index entry as a ref (the attributes the index Query projects). */
function refOf(item: Record<string, unknown>): ActionRef {
  return {
    campaignId: Number(item.campaignId),
    prospectId: Number(item.prospectId),
    workspaceId: Number(item.workspaceId),
    dueAt: String(item.dueAt),
    // A campaign prospect's entry: its first action, not written yet.
    ...(item.entityType === 'CampaignProspect' ? { first: true } : {}),
  };
}

export class DynamoOutreachActions implements ActionStore, DueIndex {
  readonly shards = DUE_SHARDS;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(campaignId: number, prospectId: number, consistent = true): Promise<OutreachAction | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: outreachActionKey(campaignId, prospectId), ConsistentRead: consistent }),
    );
    return Item ? toOutreachAction(Item) : undefined;
  }

  async pending(campaignId: number, prospectId: number, consistent = true): Promise<OutreachAction | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: campaignProspectKey(campaignId, prospectId), ConsistentRead: consistent }),
    );
    if (!Item || typeof Item.dueAt !== 'string') return undefined;
    const prospect = toCampaignProspect(Item);
    if (prospect.status !== 'IN_REVIEW') {
      // Started: its action was written, and a crash kept the keys. Nothing is pending.
      await this.clearPending(campaignId, prospectId, Item.dueAt);
      return undefined;
    }
    return firstAction(prospect, prospect.nodeId, Item.dueAt);
  }

  async replace(previous: OutreachAction, next: OutreachAction): Promise<boolean> {
    const first = previous.version === 0;
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: outreachActionItem({ ...next, version: previous.version + 1 }),
          ...(first
            ? // Written for the first time: there must be none (a first write that already happened wins).
              { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: SAME_VERSION, ExpressionAttributeValues: { ':version': previous.version, ':stint': previous.stint } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    } finally {
      // Written now (or before): the campaign prospect no longer carries it.
      if (first && previous.dueAt !== null) await this.clearPending(previous.campaignId, previous.prospectId, previous.dueAt);
    }
  }

  async remove(action: OutreachAction): Promise<boolean> {
    if (action.version === 0) return action.dueAt !== null && this.clearPending(action.campaignId, action.prospectId, action.dueAt);
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: outreachActionKey(action.campaignId, action.prospectId),
          ConditionExpression: SAME_VERSION,
          ExpressionAttributeValues: { ':version': action.version, ':stint': action.stint },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  /** Deletes the action whatever its version (a stop: the prospect replied, unsubscribed, ...), or its first action still pending; true when there was one. */
  async cancel(campaignId: number, prospectId: number): Promise<boolean> {
    const { Attributes } = await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: outreachActionKey(campaignId, prospectId), ReturnValues: 'ALL_OLD' }),
    );
    return Attributes !== undefined || (await this.clearPending(campaignId, prospectId));
  }

  /**
   * Takes the pending first action's keys off the campaign prospect item (only those of `dueAt`
   * when given); false when it carries none (or others).
   */
  private async clearPending(campaignId: number, prospectId: number, dueAt?: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: campaignProspectKey(campaignId, prospectId),
          UpdateExpression: 'REMOVE gsi2pk, gsi2sk, dueAt',
          ConditionExpression: dueAt === undefined ? 'attribute_exists(dueAt)' : 'dueAt = :due',
          ...(dueAt === undefined ? {} : { ExpressionAttributeValues: { ':due': dueAt } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  async parkedForCampaign(campaignId: number, limit: number): Promise<OutreachAction[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'lsi2',
        // lsi2 holds keys only (shared/db/table-schema.ts): DynamoDB fetches each item from the table.
        Select: 'ALL_ATTRIBUTES',
        KeyConditionExpression: 'pk = :pk AND begins_with(lsi2sk, :parked)',
        ExpressionAttributeValues: { ':pk': outreachActionKey(campaignId, 0).pk, ':parked': PARKED_PREFIX },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map(toOutreachAction);
  }

  async due(shard: number, upTo: string, after: string | undefined, limit: number, startKey?: unknown): Promise<{ refs: ActionRef[]; next?: unknown }> {
    // Entries sort by `<dueAt>#<campaign>#<prospect>`: everything due by `upTo` sorts before `<upTo>#~`.
    const upper = `${upTo}#~`;
    const { Items, LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: after === undefined ? 'gsi2pk = :pk AND gsi2sk <= :upper' : 'gsi2pk = :pk AND gsi2sk BETWEEN :lower AND :upper',
        ExpressionAttributeValues: { ':pk': `DUE#${String(shard).padStart(2, '0')}`, ':upper': upper, ...(after === undefined ? {} : { ':lower': after }) },
        ProjectionExpression: 'campaignId, prospectId, workspaceId, dueAt, entityType',
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey as Record<string, unknown> } : {}),
      }),
    );
    return { refs: (Items ?? []).map(refOf), ...(LastEvaluatedKey ? { next: LastEvaluatedKey } : {}) };
  }
}
