import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PROSPECT_STATUSES, SEQUENCE_STATUSES } from '../domain/campaigns/campaign';
import type { CampaignProspect } from '../domain/campaigns/campaign-prospect';
import type { ActionPosition, CampaignProspectPage, CampaignProspectPageQuery, CampaignProspects } from '../domain/campaigns/prospect-ports';
import type { CampaignCompletion } from '../domain/engine/ports';
import { type Prospect, isProspect } from '../domain/leads/lead';
import type { LeadChange } from '../domain/leads/ports';
import { batchGetAll } from './batch-get';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { actionDue, campaignKey, campaignProspectByStatus, campaignProspectKey, campaignProspectUnscheduled, outreachActionKey } from './keys';
import type { TransactItem } from './transactions';

/**
 * Campaign prospect items (`campaignProspectKey`): a prospect's place in a campaign. They are
 * written only together with their prospect, in the transactions of the lead write path
 * (shared/db/lead-repository.ts), with the campaigns' `prospectCount` moved in the same
 * transaction, so a campaign's count is always the number of its items.
 */

/**
 * The item of a campaign prospect: by status on lsi1; on lsi2 while unscheduled. A prospect
 * scheduled by its move carries its first action's due time itself (`pendingFirstAction`): the
 * engine writes the outreach action item (shared/db/outreach-actions.ts) when it first handles it.
 */
export function campaignProspectItem(prospect: CampaignProspect) {
  const scheduled = prospect.schedule === 'SCHEDULED' && prospect.nextActionAt !== null;
  return {
    ...campaignProspectKey(prospect.campaignId, prospect.prospectId),
    ...campaignProspectByStatus(prospect.status, prospect.prospectId),
    ...(scheduled ? pendingFirstAction(prospect.nextActionAt as string, prospect.campaignId, prospect.prospectId) : campaignProspectUnscheduled(prospect.prospectId)),
    entityType: 'CampaignProspect',
    ...prospect,
  };
}

/**
 * The attributes of a first action not written yet: the due-time index keys (the scheduler finds
 * it like any action) and `dueAt`, on the campaign prospect item. A move into a campaign or a
 * waiting prospect's scheduling writes these instead of an action item of its own: one item less
 * per prospect moved (docs/data-model.md, "Campaign prospects"). The engine writes the action and
 * removes them (DynamoOutreachActions).
 */
export function pendingFirstAction(dueAt: string, campaignId: number, prospectId: number) {
  return { ...actionDue(dueAt, campaignId, prospectId), dueAt };
}

export const CampaignProspectItem = itemSchema(
  'CampaignProspect',
  v.object({
    campaignId: intAttribute,
    prospectId: intAttribute,
    workspaceId: intAttribute,
    status: v.picklist(PROSPECT_STATUSES),
    nodeId: v.optional(v.nullable(intAttribute), null),
    schedule: v.picklist(['WAITING', 'QUEUED', 'SCHEDULED']),
    nextActionAt: v.optional(v.nullable(v.string()), null),
    lastError: v.optional(v.nullable(v.string()), null),
    companyId: v.optional(v.nullable(intAttribute), null),
    addedAt: v.string(),
    updatedAt: v.string(),
  }),
);

export const toCampaignProspect = (item: Record<string, unknown>): CampaignProspect => parseItem(CampaignProspectItem, item);

const keyString = (key: { pk: string; sk: string }) => `${key.pk}\u0000${key.sk}`;

/** The campaign items whose counters a change moves (each takes a place in its transaction). */
export function campaignCounterKeys(change: LeadChange): string[] {
  const move = change.campaign;
  if (!move) return [];
  return [move.leave, move.enter?.campaignId].flatMap((id) => (id === undefined ? [] : [keyString(campaignKey(id))]));
}

/**
 * The actions of a change's campaign move besides its prospect: the item of the campaign it leaves
 * deleted, the one of the campaign it enters put. Each is conditional on the item being there (or
 * not): with the prospect's version condition they always hold, and if they did not (an item
 * edited by hand), the change fails as a conflict instead of leaving a count wrong.
 */
export function campaignMoveActions(tableName: string, change: LeadChange): TransactItem[] {
  const move = change.campaign;
  if (!move) return companyChangeActions(tableName, change);
  const actions: TransactItem[] = [];
  if (move.leave !== undefined && move.leave !== move.enter?.campaignId) {
    actions.push({
      Delete: { TableName: tableName, Key: campaignProspectKey(move.leave, change.after.id), ConditionExpression: 'attribute_exists(pk)' },
    });
    // Its pending action goes with it (there is none while it waited to be scheduled): one that holds
    // a slot of the day's cap or a place in line past it only as read, so that it is given back or
    // handed on once, and one read without (or not there) only while it still holds neither, so
    // that a slot or place taken since is not lost with it (held-slots.ts). Either refusal fails
    // the change, which is planned again from fresh reads.
    const leaving = move.leaving;
    actions.push({
      Delete: {
        TableName: tableName,
        Key: outreachActionKey(move.leave, change.after.id),
        ...(leaving
          ? { ConditionExpression: '#version = :actionVersion', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':actionVersion': leaving.version } }
          : {
              // lsi3sk: its key in line past the cap (outreachActionItem), only while it waits there.
              ConditionExpression: '(attribute_not_exists(#reservation) OR attribute_type(#reservation, :null)) AND attribute_not_exists(lsi3sk)',
              ExpressionAttributeNames: { '#reservation': 'reservation' },
              ExpressionAttributeValues: { ':null': 'NULL' },
            }),
      },
    });
  }
  if (move.enter) {
    const enter = move.enter;
    // A scheduled one carries its first action's due time (campaignProspectItem): no action item yet.
    actions.push({ Put: { TableName: tableName, Item: campaignProspectItem(enter), ConditionExpression: 'attribute_not_exists(pk)' } });
  }
  if (move.progress) {
    const { campaignId, status, lastError, at } = move.progress;
    // The prospect's company with it, when the change moved it (one action per item in a transaction).
    const company = companyMoved(change) && (change.after as Prospect).campaignId === campaignId;
    actions.push({
      Update: {
        TableName: tableName,
        Key: campaignProspectKey(campaignId, change.after.id),
        UpdateExpression: `SET #status = :status, lsi1sk = :byStatus, lastError = :error, nextActionAt = :none, updatedAt = :at${company ? ', companyId = :company' : ''}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': status,
          ':byStatus': campaignProspectByStatus(status, change.after.id).lsi1sk,
          ':error': lastError,
          ':none': null,
          ':at': at,
          ...(company ? { ':company': (change.after as Prospect).companyId ?? null } : {}),
        },
      },
    });
  } else if (!isProspect(change.after) || move.enter?.campaignId !== change.after.campaignId) {
    // A prospect that stays in its campaign (whose item the move neither puts nor updates).
    actions.push(...companyChangeActions(tableName, change));
  }
  return actions;
}

/** A prospect in a campaign whose company this change sets, changes or removes. */
const companyMoved = (change: LeadChange): boolean =>
  change.before !== undefined && isProspect(change.after) && isProspect(change.before) && change.before.companyId !== change.after.companyId;

/**
 * The campaign prospect keeps its prospect's company (`colleagues`, stop_on_company_reply, reads
 * it): a change of company of a prospect in a campaign updates it in the prospect's transaction.
 * Before 2026-11-28 it kept the company of the move in, so a colleague who joined the company since
 * went on after a reply, and one who left it was stopped.
 */
function companyChangeActions(tableName: string, change: LeadChange): TransactItem[] {
  const campaignId = isProspect(change.after) ? change.after.campaignId : undefined;
  if (campaignId === undefined || !companyMoved(change)) return [];
  return [
    {
      Update: {
        TableName: tableName,
        Key: campaignProspectKey(campaignId, change.after.id),
        UpdateExpression: 'SET companyId = :company',
        // The campaign prospect exists while the prospect names its campaign (both are written in
        // one transaction); the condition keeps a lost one from being made up of this attribute.
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':company': (change.after as Prospect).companyId ?? null },
      },
    },
  ];
}

/**
 * The counter updates of the changes written in one transaction: `ADD prospectCount :delta` on
 * each campaign they enter or leave (never a Put: the campaign item is only ever updated), with
 * the statuses the changes expect of it as the condition.
 */
export function campaignCountActions(tableName: string, changes: LeadChange[]): TransactItem[] {
  const deltas = new Map<number, number>();
  const expected = new Map<number, Set<string>>();
  for (const change of changes) {
    const move = change.campaign;
    if (!move) continue;
    if (move.leave !== undefined && move.leave !== move.enter?.campaignId) deltas.set(move.leave, (deltas.get(move.leave) ?? 0) - 1);
    if (move.enter) deltas.set(move.enter.campaignId, (deltas.get(move.enter.campaignId) ?? 0) + 1);
    if (move.expect) expected.set(move.expect.campaignId, new Set([...(expected.get(move.expect.campaignId) ?? []), move.expect.status]));
  }
  return [...deltas].map(([campaignId, delta]): TransactItem => {
    const statuses = [...(expected.get(campaignId) ?? [])];
    const values: Record<string, unknown> = { ':delta': delta };
    statuses.forEach((status, i) => {
      values[`:s${i}`] = status;
    });
    return {
      Update: {
        TableName: tableName,
        Key: campaignKey(campaignId),
        UpdateExpression: 'ADD prospectCount :delta',
        ConditionExpression: ['attribute_exists(pk)', ...statuses.map((_, i) => `#status = :s${i}`)].join(' AND '),
        ...(statuses.length ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
        ExpressionAttributeValues: values,
      },
    };
  });
}

/** Reading a campaign's prospects: pages in prospect id order, of one status through lsi1. */
export class DynamoCampaignProspects implements CampaignProspects, CampaignCompletion {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Whether any prospect is still IN_REVIEW (waiting or scheduled) or IN_PROGRESS: two one-item Queries of lsi1. */
  async hasUnfinished(campaignId: number): Promise<boolean> {
    const { pk } = campaignProspectKey(campaignId, 0);
    const found = await Promise.all(
      SEQUENCE_STATUSES.map((status) => `${status}#`).map((prefix) =>
        this.db.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: 'lsi1',
            KeyConditionExpression: 'pk = :pk AND begins_with(lsi1sk, :prefix)',
            ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
            // As projected (keys only): a ProjectionExpression makes DynamoDB Local fetch the item from the table.
            Select: 'ALL_PROJECTED_ATTRIBUTES',
            Limit: 1,
            ConsistentRead: true,
          }),
        ),
      ),
    );
    return found.some((result) => (result.Items ?? []).length > 0);
  }

  /**
   * The prospects of a company in a campaign (stop_on_company_reply). A Query of the campaign's
   * partition filtered by company: it reads every campaign prospect (~0.4 KB each: ~50 RCU per 1,000
   * prospects), which only a reply in a campaign with the option set pays.
   */
  async colleagues(campaignId: number, companyId: number): Promise<number[]> {
    const { pk } = campaignProspectKey(campaignId, 0);
    const found: number[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          FilterExpression: 'companyId = :company',
          ExpressionAttributeValues: { ':pk': pk, ':company': companyId },
          ProjectionExpression: 'prospectId',
          // A colleague moved in a moment before the reply is stopped too.
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) if (typeof item.prospectId === 'number') found.push(item.prospectId);
      start = page.LastEvaluatedKey;
    } while (start);
    return found;
  }

  async page(campaignId: number, query: CampaignProspectPageQuery): Promise<CampaignProspectPage> {
    const { pk } = campaignProspectKey(campaignId, 0);
    const byStatus = query.status !== undefined;
    const after = query.after;
    const result = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        // lsi1 holds keys only (shared/db/table-schema.ts): DynamoDB fetches each item from the table.
        ...(byStatus ? { IndexName: 'lsi1', Select: 'ALL_ATTRIBUTES' as const } : {}),
        KeyConditionExpression: byStatus ? 'pk = :pk AND begins_with(lsi1sk, :prefix)' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...(byStatus ? { ':prefix': `${query.status}#` } : {}) },
        ...(after === undefined
          ? {}
          : {
              ExclusiveStartKey: {
                ...campaignProspectKey(campaignId, after),
                ...(byStatus ? campaignProspectByStatus(query.status as string, after) : {}),
              },
            }),
        // One more than the page: whether there is a next page is known without another request.
        Limit: query.limit + 1,
        ConsistentRead: true,
      }),
    );
    const rows = (result.Items ?? []).slice(0, query.limit);
    const prospects = rows.map(toCampaignProspect);
    // A first action not written yet is carried by the item itself (pendingFirstAction).
    const firstActionPending = new Set(rows.flatMap((row) => (typeof row.dueAt === 'string' ? [Number(row.prospectId)] : [])));
    const last = prospects.at(-1);
    const more = (result.Items ?? []).length > query.limit || result.LastEvaluatedKey !== undefined;
    return { prospects, firstActionPending, ...(more && last ? { lastId: last.prospectId } : {}) };
  }

  /**
   * The node and due time of each named prospect's outreach action (shared/db/outreach-actions.ts):
   * one BatchGetItem per 100, eventually consistent; a prospect without one is absent.
   */
  async actionsOf(campaignId: number, prospectIds: number[]): Promise<Map<number, ActionPosition>> {
    if (prospectIds.length === 0) return new Map();
    const items = await batchGetAll(
      this.db,
      this.tableName,
      prospectIds.map((prospectId) => outreachActionKey(campaignId, prospectId)),
      // Named, as an attribute name that may be a reserved word.
      { projection: 'prospectId, nodeId, dueAt, lastError, atEntry, #claim', names: { '#claim': 'claim' } },
    );
    return new Map(
      items.map((item) => [
        Number(item.prospectId),
        {
          nodeId: typeof item.nodeId === 'number' ? item.nodeId : null,
          // Being sent (claimed): nothing is due.
          dueAt: typeof item.dueAt === 'string' && !item.claim ? item.dueAt : null,
          lastError: typeof item.lastError === 'string' ? item.lastError : null,
          ...(item.atEntry === true ? { atEntry: true } : {}),
        },
      ]),
    );
  }
}
