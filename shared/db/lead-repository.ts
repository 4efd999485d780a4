import { type DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Company, Prospect } from '../domain/leads/lead';
import { membersOfCompanies } from '../domain/leads/member-digest';
import type { Fingerprint, FingerprintStamp } from '../domain/leads/import-fingerprint';
import type { MemberState } from '../domain/leads/list-query';
import type { ChangeOutcome, LeadChange, LeadRepository, WorkspaceLeadsPage, WorkspaceLeadsPageQuery } from '../domain/leads/ports';
import { batchGetAll } from './batch-get';
import { isConditionFailed, queryAll } from './client';
import { parseItem } from './item-schema';
import { LeadIdentityItem, toLeadList, toCompany, toProspect } from './lead-items';
import { LeadBatchWrites } from './lead-batch-writes';
import { LeadFingerprints } from './lead-fingerprints';
import { LeadJournal } from './lead-journal';
import { ListMembers } from './list-members';
import { ViewOnlyWrites } from './view-only-writes';
import { ViewRederive } from './view-rederive';
import {
  companiesByWorkspace,
  companyKey,
  LEAD_LIST_PREFIX,
  leadIdentityKey,
  leadListKey,
  prospectKey,
  prospectsByWorkspace,
  workspaceLeadCountsKey,
} from './keys';
import type { Clock } from '../time/clock';
import { TABLE } from './table-schema';

/** Prospects, companies, their identity guards and their list memberships. */
export class DynamoLeadRepository implements LeadRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    clock: Clock,
  ) {
    this.members = new ListMembers(db, tableName, clock);
    this.fingerprints = new LeadFingerprints(db, tableName);
    const views = new ViewRederive(db, tableName);
    this.journal = new LeadJournal(db, tableName, clock, this.members, views);
    this.viewOnly = new ViewOnlyWrites(db, tableName);
    this.batches = new LeadBatchWrites(db, tableName, clock, this.members, this.journal, views);
  }

  private readonly batches: LeadBatchWrites;

  private readonly viewOnly: ViewOnlyWrites;

  private readonly fingerprints: LeadFingerprints;
  /** The lists' member views and digests, shared with the list repository. */
  readonly members: ListMembers;
  /** The journals of batches of writes, shared with the list repository (which settles them). */
  readonly journal: LeadJournal;

  async getProspects(ids: number[], options: { consistent?: boolean } = {}): Promise<Prospect[]> {
    const items = await batchGetAll(this.db, this.tableName, ids.map(prospectKey), { consistent: options.consistent ?? true });
    return items.map(toProspect);
  }

  async getCompanies(ids: number[], options: { consistent?: boolean } = {}): Promise<Company[]> {
    const items = await batchGetAll(this.db, this.tableName, ids.map(companyKey), { consistent: options.consistent ?? true });
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

  /** Every prospect of the workspace (gsi1): for maintenance such as the layout migration, not requests. */
  async workspaceProspects(workspaceId: number): Promise<Prospect[]> {
    const { gsi1pk } = prospectsByWorkspace(workspaceId, 0);
    return (await this.queryAll({ IndexName: TABLE.gsi1.name, pkName: TABLE.gsi1.partitionKey, pk: gsi1pk })).map(toProspect);
  }

  /** Every company of the workspace (gsi1): for maintenance, not requests. */
  async workspaceCompanies(workspaceId: number): Promise<Company[]> {
    const { gsi1pk } = companiesByWorkspace(workspaceId, 0);
    return (await this.queryAll({ IndexName: TABLE.gsi1.name, pkName: TABLE.gsi1.partitionKey, pk: gsi1pk })).map(toCompany);
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

  /**
   * The companies' prospects that are in lists: the members whose digest entry names one of them,
   * in every PEOPLE list of their workspaces, each digest read once (prospects out of every list
   * have no members to refresh).
   */
  async prospectsOfCompanies(companies: Company[]): Promise<{ byCompany: Map<number, Prospect[]>; complete: boolean }> {
    const wanted = new Set(companies.map((company) => company.id));
    const ids = new Set<number>();
    let complete = true;
    for (const workspaceId of new Set(companies.map((company) => company.workspaceId))) {
      const lists = (
        await queryAll(this.db, {
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': leadListKey(workspaceId, 0).pk, ':prefix': LEAD_LIST_PREFIX },
          ConsistentRead: true,
        })
      )
        .map(toLeadList)
        .filter((list) => list.searchType === 'PEOPLE');
      for (const list of lists) {
        if (list.openJournals?.length) complete = false;
        if (list.totalProspects === 0 && !list.openJournals?.length) continue;
        const chunks = await this.members.readDigest(list.id);
        for (const id of membersOfCompanies([...chunks.values()].map((stored) => stored.chunk), wanted)) ids.add(id);
      }
    }
    const byCompany = new Map<number, Prospect[]>();
    for (const prospect of ids.size ? await this.getProspects([...ids]) : []) {
      if (prospect.companyId === undefined || !wanted.has(prospect.companyId)) continue;
      byCompany.set(prospect.companyId, [...(byCompany.get(prospect.companyId) ?? []), prospect]);
    }
    return { byCompany, complete };
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

  /** Applies changes in one journaled batch (LeadBatchWrites). */
  save(changes: LeadChange[], options: { maxLeadsPerList: number }): Promise<ChangeOutcome[]> {
    return this.batches.save(changes, options);
  }

  /** A status-like change: see ViewOnlyWrites. */
  saveViewOnly(change: LeadChange): Promise<'applied' | 'conflict'> {
    return this.viewOnly.save(change);
  }

  repairViews(prospect: Prospect, member: MemberState): Promise<void> {
    return this.viewOnly.repairViews(prospect, member);
  }

  async settleStaleWrites(workspaceId: number): Promise<boolean> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: workspaceLeadCountsKey(workspaceId), ConsistentRead: true }));
    const tokens = Item?.openJournals instanceof Set ? [...(Item.openJournals as Set<string>)] : [];
    return tokens.length > 0 && this.journal.settleWorkspace(workspaceId, tokens);
  }

  findFingerprints(workspaceId: number, identities: string[]): Promise<{ prints: Map<string, Fingerprint>; unclaimed: Set<string> }> {
    return this.fingerprints.find(workspaceId, identities);
  }

  confirmUnchanged<O>(checks: { owner: O; workspaceId: number; fingerprint: Fingerprint }[]): Promise<Set<O>> {
    return this.fingerprints.confirmUnchanged(checks);
  }

  async stampFingerprints(workspaceId: number, stamps: FingerprintStamp[]): Promise<void> {
    await this.fingerprints.stamp(workspaceId, stamps);
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
