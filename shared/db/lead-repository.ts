import {
  type DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type Company, type Prospect, isProspect } from '../domain/leads/lead';
import type { ChangeOutcome, LeadChange, LeadRepository, WorkspaceLeadsPage, WorkspaceLeadsPageQuery } from '../domain/leads/ports';
import { batchGetAll } from './batch-get';
import { isConditionFailed, queryAll } from './client';
import { parseItem } from './item-schema';
import { LeadIdentityItem, companyItem, memberItem, prospectItem, toCompany, toProspect } from './lead-items';
import {
  companiesByWorkspace,
  companyKey,
  leadIdentityKey,
  leadListKey,
  listMemberKey,
  prospectKey,
  prospectsByCompany,
  prospectsByWorkspace,
} from './keys';
import type { Clock } from '../time/clock';
import { TABLE } from './table-schema';
import { leadCountsActions } from './workspace-lead-counts';

/** DynamoDB's limit of actions in one transaction. */
const MAX_TRANSACTION_ITEMS = 100;
/** Actions kept in every transaction for the workspace's lead counts (a save holds one workspace's changes). */
const LEAD_COUNTS_ACTIONS = 1;
/** Retries of a transaction cancelled only by contention with another transaction. */
const MAX_CONFLICT_RETRIES = 6;

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The item an action writes, as one string. */
const actionKey = (action: TransactItem): string => {
  const key = (action.Put?.Item ?? action.Update?.Key ?? action.Delete?.Key) as { pk: string; sk: string };
  return `${key.pk}\u0000${key.sk}`;
};

interface CancellationReason {
  Code?: string;
}

/** Prospects, companies, their identity guards and their list memberships. */
export class DynamoLeadRepository implements LeadRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Stamps a list's updatedAt when its count moves. */
    private readonly clock: Clock,
  ) {}

  async getProspects(ids: number[]): Promise<Prospect[]> {
    const items = await batchGetAll(this.db, this.tableName, ids.map(prospectKey), { consistent: true });
    return items.map(toProspect);
  }

  async getCompanies(ids: number[]): Promise<Company[]> {
    const items = await batchGetAll(this.db, this.tableName, ids.map(companyKey), { consistent: true });
    return items.map(toCompany);
  }

  async findIdentities(workspaceId: number, kind: 'PROSPECT' | 'COMPANY', identities: string[]): Promise<Map<string, number>> {
    const items = await batchGetAll(
      this.db,
      this.tableName,
      identities.map((identity) => leadIdentityKey(workspaceId, kind, identity)),
      { consistent: true },
    );
    return new Map(
      items.map((item) => {
        const guard = parseItem(LeadIdentityItem, item);
        return [guard.identity, guard.leadId];
      }),
    );
  }

  async workspaceProspectsPage(workspaceId: number, page: WorkspaceLeadsPageQuery): Promise<WorkspaceLeadsPage<Prospect>> {
    return this.workspacePage(prospectsByWorkspace(workspaceId, 0).gsi1pk, (id) => prospectsByWorkspace(workspaceId, id).gsi1sk, page, toProspect);
  }

  async workspaceCompaniesPage(workspaceId: number, page: WorkspaceLeadsPageQuery): Promise<WorkspaceLeadsPage<Company>> {
    return this.workspacePage(companiesByWorkspace(workspaceId, 0).gsi1pk, (id) => companiesByWorkspace(workspaceId, id).gsi1sk, page, toCompany);
  }

  /**
   * One Query of a workspace's leads on gsi1, in id order: `gsi1sk > <after>` (the position a
   * cursor names, whether or not a lead has that id) and `Limit`.
   */
  private async workspacePage<T extends { id: number }>(
    gsi1pk: string,
    sortKeyOf: (id: number) => string,
    page: WorkspaceLeadsPageQuery,
    toLead: (item: Record<string, unknown>) => T,
  ): Promise<WorkspaceLeadsPage<T>> {
    const after = page.after === undefined ? {} : { ':after': sortKeyOf(page.after) };
    const result = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: TABLE.gsi1.name,
        KeyConditionExpression: page.after === undefined ? '#pk = :pk' : '#pk = :pk AND #sk > :after',
        ExpressionAttributeNames: { '#pk': TABLE.gsi1.partitionKey, ...(page.after === undefined ? {} : { '#sk': TABLE.gsi1.sortKey }) },
        ExpressionAttributeValues: { ':pk': gsi1pk, ...after },
        Limit: page.limit,
      }),
    );
    const items = (result.Items ?? []).map(toLead);
    const last = items.at(-1);
    // Without a filter expression, LastEvaluatedKey is the last item returned.
    return result.LastEvaluatedKey && last ? { items, lastId: last.id } : { items };
  }

  async prospectsOfCompany(companyId: number): Promise<Prospect[]> {
    const { gsi2pk } = prospectsByCompany(companyId, 0);
    return (await this.queryAll({ IndexName: TABLE.gsi2.name, pkName: TABLE.gsi2.partitionKey, pk: gsi2pk })).map(toProspect);
  }

  async markCompanyMembersSynced(company: Company): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: companyKey(company.id),
          UpdateExpression: 'SET membersSyncedVersion = :version',
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':version': company.version },
        }),
      );
    } catch (error) {
      // The company changed again meanwhile; whoever changed it syncs its members.
      if (!isConditionFailed(error)) throw error;
    }
  }

  async save(changes: LeadChange[], options: { maxLeadsPerList: number }): Promise<ChangeOutcome[]> {
    const outcomes: ChangeOutcome[] = changes.map(() => 'applied');
    for (const group of this.pack(changes)) await this.commit(changes, group, outcomes, options);
    return outcomes;
  }

  /** Groups changes into transactions of at most 100 actions, none touching an item twice. */
  private pack(changes: LeadChange[]): number[][] {
    const groups: number[][] = [];
    let current: number[] = [];
    let keys = new Set<string>();
    let counters = new Set<number>();
    let size = 0;
    changes.forEach((change, index) => {
      const { actions, deltas } = this.changeActions(change);
      const own = actions.map(actionKey);
      const added = () => own.length + [...deltas.keys()].filter((listId) => !counters.has(listId)).length;
      if (current.length > 0 && (size + added() > MAX_TRANSACTION_ITEMS - LEAD_COUNTS_ACTIONS || own.some((key) => keys.has(key)))) {
        groups.push(current);
        current = [];
        keys = new Set();
        counters = new Set();
        size = 0;
      }
      size += added();
      current.push(index);
      for (const key of own) keys.add(key);
      for (const listId of deltas.keys()) counters.add(listId);
    });
    if (current.length > 0) groups.push(current);
    return groups;
  }

  /** Writes one group in one transaction; drops the changes whose conditions fail and retries the rest. */
  private async commit(changes: LeadChange[], group: number[], outcomes: ChangeOutcome[], options: { maxLeadsPerList: number }) {
    let live = group;
    let contention = 0;
    while (live.length > 0) {
      const { items, owners } = this.transactItems(changes, live, options);
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: items }));
        return;
      } catch (error) {
        if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') throw error;
        const reasons = ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? []) as CancellationReason[];
        const joins = (listId: number) =>
          live.filter((index) => {
            const change = changes[index] as LeadChange;
            return change.after.listIds.includes(listId) && !(change.before?.listIds ?? []).includes(listId);
          });
        const fullLists = reasons.flatMap((reason, i) => {
          const owner = owners[i];
          return reason.Code === 'ConditionalCheckFailed' && typeof owner === 'object' ? [owner.listId] : [];
        });
        if (live.length > 1 && fullLists.some((listId) => joins(listId).length > 1)) {
          // The list has room for some of these joins but not all: find which, one change at a time.
          for (const index of live) await this.commit(changes, [index], outcomes, options);
          return;
        }
        const failed = new Set<number>();
        reasons.forEach((reason, i) => {
          if (reason.Code !== 'ConditionalCheckFailed') return;
          const owner = owners[i];
          if (typeof owner === 'number') {
            failed.add(owner);
            outcomes[owner] = 'conflict';
          } else if (owner) {
            // A counter refused the growth: the list is full for the change joining it.
            for (const index of joins(owner.listId)) {
              failed.add(index);
              outcomes[index] = 'list_full';
            }
          }
        });
        if (failed.size === 0) {
          // Cancelled by contention (TransactionConflict) only: back off and send again.
          contention += 1;
          if (contention > MAX_CONFLICT_RETRIES) {
            for (const index of live) outcomes[index] = 'conflict';
            return;
          }
          await sleep(Math.random() * 20 * 2 ** contention);
          continue;
        }
        live = live.filter((index) => !failed.has(index));
      }
    }
  }

  /** The actions of some changes plus one counter update per list, and whom each action belongs to. */
  private transactItems(changes: LeadChange[], indexes: number[], options: { maxLeadsPerList: number }) {
    const items: TransactItem[] = [];
    const owners: (number | { listId: number })[] = [];
    const totals = new Map<number, { workspaceId: number; delta: number }>();
    for (const index of indexes) {
      const change = changes[index] as LeadChange;
      const { actions, deltas } = this.changeActions(change);
      for (const action of actions) {
        items.push(action);
        owners.push(index);
      }
      for (const [listId, delta] of deltas) {
        const total = totals.get(listId) ?? { workspaceId: change.after.workspaceId, delta: 0 };
        total.delta += delta;
        totals.set(listId, total);
      }
    }
    const now = this.clock.now().toISOString();
    for (const [listId, { workspaceId, delta }] of totals) {
      if (delta === 0) continue;
      const growing = delta > 0;
      items.push({
        Update: {
          TableName: this.tableName,
          Key: leadListKey(workspaceId, listId),
          UpdateExpression: `ADD totalProspects :delta SET updatedAt = :now${growing ? ', #status = :active' : ''}`,
          // Counts stay true: the counter moves in the same transaction as the memberships.
          ConditionExpression: growing ? 'attribute_exists(pk) AND totalProspects <= :room' : 'attribute_exists(pk)',
          ...(growing ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
          ExpressionAttributeValues: {
            ':delta': delta,
            ':now': now,
            ...(growing ? { ':active': 'ACTIVE', ':room': options.maxLeadsPerList - delta } : {}),
          },
        },
      });
      owners.push({ listId });
    }
    // The workspace's lead counts move with the leads. Last and without an owner: an unconditional ADD fails no condition.
    items.push(...leadCountsActions(this.tableName, indexes.map((index) => changes[index] as LeadChange)));
    return { items, owners };
  }

  /** One change's own actions (lead, identity guards, memberships) and how it moves each list's count. */
  private changeActions(change: LeadChange): { actions: TransactItem[]; deltas: Map<number, number> } {
    const TableName = this.tableName;
    const { before, after } = change;
    const prospect = isProspect(after);
    const kind = prospect ? 'PROSPECT' : 'COMPANY';
    const actions: TransactItem[] = [
      {
        Put: {
          TableName,
          Item: prospect ? prospectItem(after) : companyItem(after as Company),
          // Every write of a lead is conditional on the version it was planned from.
          ...(before
            ? {
                ConditionExpression: '#version = :version AND workspaceId = :workspaceId',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':version': before.version, ':workspaceId': before.workspaceId },
              }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        },
      },
    ];
    for (const identity of change.claim) {
      actions.push({
        Put: {
          TableName,
          Item: { ...leadIdentityKey(after.workspaceId, kind, identity), entityType: 'LeadIdentity', identity, leadId: after.id },
          ConditionExpression: 'attribute_not_exists(pk) OR leadId = :id',
          ExpressionAttributeValues: { ':id': after.id },
        },
      });
    }
    for (const identity of change.release) {
      actions.push({
        Delete: {
          TableName,
          Key: leadIdentityKey(after.workspaceId, kind, identity),
          ConditionExpression: 'leadId = :id',
          ExpressionAttributeValues: { ':id': after.id },
        },
      });
    }
    const deltas = new Map<number, number>();
    const previous = new Set(before?.listIds ?? []);
    const next = new Set(after.listIds);
    for (const listId of next) {
      if (previous.has(listId) && !change.refreshMembers) continue;
      actions.push({ Put: { TableName, Item: memberItem(prospect ? 'PEOPLE' : 'COMPANY', listId, after, change.projection) } });
      if (!previous.has(listId)) deltas.set(listId, 1);
    }
    for (const listId of previous) {
      if (next.has(listId)) continue;
      actions.push({ Delete: { TableName, Key: listMemberKey(listId, after.id) } });
      deltas.set(listId, -1);
    }
    return { actions, deltas };
  }

  private queryAll(query: { IndexName: string; pkName: string; pk: string }): Promise<Record<string, unknown>[]> {
    return queryAll(this.db, {
      TableName: this.tableName,
      IndexName: query.IndexName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': query.pkName },
      ExpressionAttributeValues: { ':pk': query.pk },
    });
  }
}
