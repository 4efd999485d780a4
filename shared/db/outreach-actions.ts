import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { SEQUENCE_STATUSES } from '../domain/campaigns/campaign';
import type { CampaignProspect } from '../domain/campaigns/campaign-prospect';
import { toCampaignProspect } from './campaign-prospects';
import { type ActionRef, type Cancelled, type OutreachAction, type PlaceInLine, SEND_KINDS, type SendKind, placeInLine } from '../domain/engine/action';
import { type HeldSlot, type HeldSlotReader, heldSlotKey } from '../domain/engine/held-slots';
import type { ActionStore, DueIndex, WaitInLine } from '../domain/engine/ports';
import { batchGetAll } from './batch-get';
import { cancellationReasons, isConditionFailed, isTransactionConditionFailed, storedAsWritten } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { DUE_SHARDS, PARKED_PREFIX, actionDue, actionParked, actionPastCap, campaignProspectKey, outreachActionKey, pastCapPrefix } from './keys';

/**
 * The engine's action items (domain: shared/domain/engine/action.ts). ~0.4 KB each, in the table
 * and, while due, in gsi2 (`DUE#nn`) (while parked by a pause, in lsi2 instead): each write is 1 WCU plus 1 for the index copy (2 when the due
 * time, the index's sort key, moves). Every write is a whole-item Put conditional on the version
 * and stint read, so two deliveries of one message can never both act.
 *
 * A prospect's first action is not an item until the engine first handles it: its campaign
 * prospect item carries the due-time keys (`pendingFirstAction`, shared/db/campaign-prospects.ts),
 * and the engine reads it from there as version 0 (`pending`). Its first write puts the action
 * item and takes the keys off the campaign prospect in one transaction (`writeFirst`), so the two
 * never both hold it.
 */

/** A slot reserved in the campaign's daily cap (SlotReservation), or null. */
export const ReservationAttribute = v.nullable(v.object({ day: v.string(), kind: v.picklist(SEND_KINDS), k: intAttribute }));

/** What a stored action says of its place in line past the cap (action.ts `placeInLine`), read leniently. */
const PlaceInLineAttributes = v.object({
  pastCap: v.optional(v.nullable(v.object({ day: v.string(), kind: v.picklist(SEND_KINDS) })), null),
  dueAt: v.optional(v.nullable(v.string()), null),
  claim: v.optional(v.unknown(), null),
  parked: v.optional(v.unknown(), null),
});

/** The place in line past the cap a stored action (or a deleted one's old image) holds, if any. */
function placeInLineOf(item: Record<string, unknown>): PlaceInLine | undefined {
  const read = v.safeParse(PlaceInLineAttributes, item);
  return read.success ? placeInLine(read.output) : undefined;
}

/** A send whose answer was lost (LostAnswer), or null; `counted` since 2026-11-27 20:00. */
const LostAnswerAttribute = v.nullable(
  v.object({ nodeId: intAttribute, at: v.string(), accountId: intAttribute, text: v.string(), variant: v.optional(v.picklist(['A', 'B'])), counted: v.optional(v.object({ accountDay: v.string(), campaignDay: v.string(), campaignK: v.optional(intAttribute) })) }),
);

const OutreachActionItem = itemSchema(
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
        campaignK: v.optional(intAttribute),
        text: v.optional(v.string()),
        variant: v.optional(v.picklist(['A', 'B'])),
        lookOnly: v.optional(v.literal(true)),
      }),
    ),
    reservation: ReservationAttribute,
    pastCap: v.optional(v.nullable(v.object({ day: v.string(), kind: v.picklist(SEND_KINDS) })), null),
    pulledFor: v.optional(v.nullable(v.object({ day: v.string(), kind: v.picklist(SEND_KINDS), k: intAttribute })), null),
    attempts: intAttribute,
    lastError: v.optional(v.nullable(v.string()), null),
    answerLost: v.optional(LostAnswerAttribute, null),
    lastActionAt: v.nullable(v.string()),
    reachedAt: v.optional(v.nullable(v.string()), null),
    waitingForDelay: v.optional(v.boolean(), false),
    alreadyConnected: v.optional(v.boolean(), false),
    started: v.boolean(),
    // Actions written before 2026-11-27: taken as having left their entry (their node as stored) with no steps recorded.
    atEntry: v.optional(v.boolean(), false),
    done: v.optional(v.array(intAttribute), []),
    accounts: v.object({ EMAIL: v.optional(intAttribute), NETWORK: v.optional(intAttribute) }),
    networkProviderId: v.nullable(v.string()),
    updatedAt: v.string(),
  }),
);

/**
 * The stored item of an action: in the due-time index while it has a due time; in the sparse lsi2
 * of its partition while parked because the campaign stopped running, so resume finds exactly
 * those (the index holds a copy of an action only while it is parked); in the sparse lsi3 while it
 * waits for a later day past its campaign's cap (`pastCap`), so a position given back finds it.
 */
export function outreachActionItem(action: OutreachAction) {
  const pastCap = action.claim === null && action.parked === null ? action.pastCap : null;
  return {
    ...outreachActionKey(action.campaignId, action.prospectId),
    ...(action.dueAt !== null ? actionDue(action.dueAt, action.campaignId, action.prospectId) : {}),
    ...(action.parked === 'CAMPAIGN_NOT_ACTIVE' ? actionParked(action.prospectId) : {}),
    ...(pastCap && action.dueAt !== null ? actionPastCap(pastCap.kind, action.dueAt, action.prospectId) : {}),
    entityType: 'OutreachAction',
    ...action,
  };
}

/**
 * The first action of a prospect scheduled in a campaign (at the flow node it waits on), as read
 * from its campaign prospect item, whose `dueAt` it carries: version 0, not written yet (see above).
 */
export function firstAction(prospect: CampaignProspect, dueAt: string): OutreachAction {
  return {
    campaignId: prospect.campaignId,
    prospectId: prospect.prospectId,
    workspaceId: prospect.workspaceId,
    // A stay in the campaign: the time it was added there, unique per prospect and campaign.
    stint: prospect.addedAt,
    version: 0,
    nodeId: prospect.nodeId,
    dueAt,
    parked: null,
    claim: null,
    reservation: null,
    attempts: 0,
    lastError: null,
    answerLost: null,
    lastActionAt: null,
    reachedAt: null,
    waitingForDelay: false,
    alreadyConnected: false,
    started: false,
    atEntry: true,
    done: [],
    accounts: {},
    networkProviderId: null,
    updatedAt: dueAt,
  };
}

export const toOutreachAction = (item: Record<string, unknown>): OutreachAction => parseItem(OutreachActionItem, item);

const SAME_VERSION = 'version = :version AND stint = :stint';

/**
 * The statuses of a campaign prospect whose first action may still be written: IN_REVIEW, and
 * IN_PROGRESS, which the engine writes before the action when its first step was skipped (the
 * flow's next node is written after the status). A stop (reply, unsubscribe, pipeline stage, an
 * end) writes any other.
 */
/** A campaign prospect whose sequence may still run: a first action it carries is pending. */
const PENDING_STATUSES: readonly string[] = SEQUENCE_STATUSES;
/** `#status IN (...)` over PENDING_STATUSES, with its values. */
const PENDING_STATUS_CONDITION = `#status IN (${PENDING_STATUSES.map((_, i) => `:pending${i}`).join(', ')})`;
const PENDING_STATUS_VALUES = Object.fromEntries(PENDING_STATUSES.map((status, i) => [`:pending${i}`, status]));

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

export class DynamoOutreachActions implements ActionStore, DueIndex, HeldSlotReader {
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
    if (!PENDING_STATUSES.includes(prospect.status)) {
      // Its sequence was stopped or ended with the keys still on (a crash between the status write
      // and their removal): nothing is pending, and the keys go. Statuses never return to pending
      // within a stint, so even an eventually consistent read of one decides this.
      await this.clearPending(campaignId, prospectId, { dueAt: Item.dueAt, stint: prospect.addedAt });
      return undefined;
    }
    return firstAction(prospect, Item.dueAt);
  }

  async replace(previous: OutreachAction, next: OutreachAction): Promise<boolean> {
    if (previous.version === 0) return this.writeFirst(previous, next);
    const item = outreachActionItem({ ...next, version: previous.version + 1 });
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: SAME_VERSION,
          ExpressionAttributeValues: { ':version': previous.version, ':stint': previous.stint },
        }),
      );
      return true;
    } catch (error) {
      // Lost a race, or the SDK sent this very write again after it landed; or an error whose
      // write may still have landed (the SDK out of retries): the item tells.
      if (isConditionFailed(error)) return storedAsWritten(this.db, this.tableName, item);
      if (await storedAsWritten(this.db, this.tableName, item)) return true;
      throw error;
    }
  }

  /**
   * A first action's first write, in one transaction: the action put (there must be none) and its
   * keys taken off the campaign prospect, conditional on the campaign prospect still carrying this
   * first action (same stint and due time) and its sequence not stopped (`PENDING_STATUSES`). So whatever
   * took the first action away since it was read (a stop, a move out, another delivery that wrote
   * it, even one that then finished and deleted it) makes this write fail: the same guarantee as a
   * stored action's version condition.
   */
  private async writeFirst(previous: OutreachAction, next: OutreachAction): Promise<boolean> {
    const item = outreachActionItem({ ...next, version: 1 });
    try {
      await this.db.send(new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.tableName,
              Item: item,
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: this.tableName,
              Key: campaignProspectKey(previous.campaignId, previous.prospectId),
              UpdateExpression: 'REMOVE gsi2pk, gsi2sk, dueAt',
              ConditionExpression: `dueAt = :due AND addedAt = :stint AND ${PENDING_STATUS_CONDITION}`,
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':due': previous.dueAt, ':stint': previous.stint, ...PENDING_STATUS_VALUES },
            },
          },
        ],
      }));
      return true;
    } catch (error) {
      if (!isTransactionConditionFailed(error)) {
        // An error whose transaction may still have landed (the SDK out of retries): the action tells.
        if (await storedAsWritten(this.db, this.tableName, item)) return true;
        throw error;
      }
      // An action item beside keys that still hold (a state this transaction never leaves): the
      // action is the one that counts; the campaign prospect's entry goes, so it is not read again.
      const [action, keys] = cancellationReasons(error) ?? [];
      // This transaction landed and was sent again (its answer lost): the action is the one it put.
      if (action?.Code === 'ConditionalCheckFailed' && (await storedAsWritten(this.db, this.tableName, item))) return true;
      if (action?.Code === 'ConditionalCheckFailed' && keys?.Code === 'None' && previous.dueAt !== null) {
        await this.clearPending(previous.campaignId, previous.prospectId, { dueAt: previous.dueAt, stint: previous.stint });
      }
      return false;
    }
  }

  async remove(action: OutreachAction): Promise<boolean> {
    if (action.version === 0) return action.dueAt !== null && this.clearPending(action.campaignId, action.prospectId, { dueAt: action.dueAt, stint: action.stint });
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

  /**
   * The version and what the named actions hold (HeldSlotReader): a slot reservation, or a place in
   * line past the cap. One BatchGetItem per 100, strongly consistent (a stale read could give a slot
   * back twice), projected to what it needs.
   */
  async heldSlots(keys: { campaignId: number; prospectId: number }[]): Promise<Map<string, HeldSlot>> {
    if (keys.length === 0) return new Map();
    const items = await batchGetAll(
      this.db,
      this.tableName,
      keys.map(({ campaignId, prospectId }) => outreachActionKey(campaignId, prospectId)),
      {
        consistent: true,
        projection: 'campaignId, prospectId, #version, reservation, pastCap, dueAt, claim, parked',
        names: { '#version': 'version' },
      },
    );
    const held = new Map<string, HeldSlot>();
    for (const item of items) {
      if (typeof item.version !== 'number') continue;
      const reservation = v.safeParse(ReservationAttribute, item.reservation ?? null);
      const key = heldSlotKey(Number(item.campaignId), Number(item.prospectId));
      if (reservation.success && reservation.output) held.set(key, { version: item.version, reservation: reservation.output });
      else {
        const inLine = placeInLineOf(item);
        if (inLine) held.set(key, { version: item.version, reservation: null, inLine });
      }
    }
    return held;
  }

  /**
   * Deletes the action whatever its version (a stop: the prospect replied, unsubscribed, ...), or
   * its first action still pending; what it held (its slot reservation, or its place in line past
   * the cap), undefined when there was none.
   */
  async cancel(campaignId: number, prospectId: number): Promise<Cancelled | undefined> {
    const { Attributes } = await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: outreachActionKey(campaignId, prospectId), ReturnValues: 'ALL_OLD' }),
    );
    // Only what it held is read of what was deleted, leniently: nothing else of it can fail the stop now.
    if (Attributes) {
      const reservation = v.safeParse(ReservationAttribute, Attributes.reservation ?? null);
      const inLine = placeInLineOf(Attributes);
      return { reservation: reservation.success ? reservation.output : null, ...(inLine ? { inLine } : {}) };
    }
    // A first action never waited for a slot (its first wait writes the action item).
    return (await this.clearPending(campaignId, prospectId)) ? { reservation: null } : undefined;
  }

  /**
   * Takes the pending first action's keys off the campaign prospect item (only those of this due
   * time and stint when given); false when it carries none (or others).
   */
  private async clearPending(campaignId: number, prospectId: number, expected?: { dueAt: string; stint: string }): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: campaignProspectKey(campaignId, prospectId),
          UpdateExpression: 'REMOVE gsi2pk, gsi2sk, dueAt',
          ConditionExpression: expected ? 'dueAt = :due AND addedAt = :stint' : 'attribute_exists(dueAt)',
          ...(expected ? { ExpressionAttributeValues: { ':due': expected.dueAt, ':stint': expected.stint } } : {}),
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

  async waitsPastCap(campaignId: number, kind: SendKind, limit: number): Promise<WaitInLine[]> {
    const prefix = pastCapPrefix(kind);
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'lsi3',
        // Keys only (lsi3 holds them): the caller reads the action it picks, strongly, before writing it.
        KeyConditionExpression: 'pk = :pk AND begins_with(lsi3sk, :prefix)',
        ExpressionAttributeValues: { ':pk': outreachActionKey(campaignId, 0).pk, ':prefix': prefix },
        // The latest due first: pulling the tail forward leaves the days before it as they were placed.
        ScanIndexForward: false,
        Limit: limit,
        // Strong (a local index can be): a wait moved a moment ago (a pull, a handover) is seen where it is now.
        ConsistentRead: true,
      }),
    );
    // lsi3sk is `<prefix><dueAt>#<prospect>`: the due time the index sorted it by.
    return (Items ?? []).map((item) => ({
      prospectId: Number(String(item.sk).slice('PROSPECT#'.length)),
      dueAt: String(item.lsi3sk).slice(prefix.length, String(item.lsi3sk).lastIndexOf('#')),
    }));
  }

  onNode(campaignId: number, nodeId: number, afterProspectId: number, limit: number): Promise<{ actions: OutreachAction[]; last?: number }> {
    return this.pageOfCampaign(campaignId, afterProspectId, limit, nodeId);
  }

  inCampaign(campaignId: number, afterProspectId: number, limit: number): Promise<{ actions: OutreachAction[]; last?: number }> {
    return this.pageOfCampaign(campaignId, afterProspectId, limit);
  }

  private async pageOfCampaign(campaignId: number, afterProspectId: number, limit: number, nodeId?: number): Promise<{ actions: OutreachAction[]; last?: number }> {
    const { pk, sk } = outreachActionKey(campaignId, afterProspectId);
    const { Items, LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        // The whole partition in prospect order, a page at a time (Limit counts the items looked
        // at): an occasional sweep after a delay or pacing edit, so no index is kept per node.
        KeyConditionExpression: 'pk = :pk AND sk > :after',
        ...(nodeId === undefined
          ? { ExpressionAttributeValues: { ':pk': pk, ':after': sk } }
          : { FilterExpression: 'nodeId = :node', ExpressionAttributeValues: { ':pk': pk, ':after': sk, ':node': nodeId } }),
        Limit: limit,
      }),
    );
    const last = LastEvaluatedKey ? Number(String(LastEvaluatedKey.sk).slice('PROSPECT#'.length)) : undefined;
    return { actions: (Items ?? []).map(toOutreachAction), ...(last === undefined ? {} : { last }) };
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
