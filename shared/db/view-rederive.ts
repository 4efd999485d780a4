import { type DynamoDBDocumentClient, DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Company, Prospect, SearchType } from '../domain/leads/lead';
import { companyMember, prospectMember } from '../domain/leads/list-query';
import { type DigestChange, digestEntry } from '../domain/leads/member-digest';
import { batchGetAll } from './batch-get';
import { cancellationReasons } from './client';
import { companyKey, listMemberKey, prospectKey } from './keys';
import { memberItem, toCompany, toProspect } from './lead-items';

/** View writes in flight at once when re-deriving. */
const REDERIVE_CONCURRENCY = 8;

/**
 * Re-derives list member views from their leads as they are: what finishes an interrupted batch
 * (LeadJournal) and mends a view a batch put after a newer write of its lead (LeadBatchWrites).
 */
export class ViewRederive {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The leads as they are now (strongly consistent), by id; ids without a lead are left out. */
  async currentLeads(searchType: SearchType, ids: number[]): Promise<Map<number, Prospect | Company>> {
    const people = searchType === 'PEOPLE';
    const items = await batchGetAll(this.db, this.tableName, ids.map(people ? prospectKey : companyKey), { consistent: true });
    return new Map(items.map((item) => (people ? toProspect(item) : toCompany(item))).map((lead) => [lead.id, lead]));
  }

  /**
   * Makes each lead's view in the list match the lead as it is (`leads`, read just before): put
   * when it is a member, deleted otherwise, each only while the lead is still at the version it was
   * derived from. Returns the digest changes that say the same.
   */
  async rederive(searchType: SearchType, listId: number, ids: number[], leads: Map<number, Prospect | Company>): Promise<DigestChange[]> {
    const people = searchType === 'PEOPLE';
    const leadKey = people ? prospectKey : companyKey;
    const companyIds = [...leads.values()].flatMap((lead) => ('companyId' in lead && lead.companyId !== undefined ? [lead.companyId] : []));
    const companies = new Map(
      (people && companyIds.length ? await batchGetAll(this.db, this.tableName, [...new Set(companyIds)].map(companyKey), { consistent: true }) : [])
        .map(toCompany)
        .map((company) => [company.id, company]),
    );
    const changes: DigestChange[] = [];
    const writes: (() => Promise<void>)[] = [];
    for (const id of ids) {
      const lead = leads.get(id);
      if (!lead?.listIds.includes(listId)) {
        changes.push({ id, version: lead?.version ?? 0 });
        writes.push(() => this.writeView(leadKey(id), listId, id, lead?.version));
        continue;
      }
      const state = people ? prospectMember(lead as Prospect, companies.get((lead as Prospect).companyId ?? -1)) : companyMember(lead as Company);
      changes.push({ id, version: lead.version, entry: digestEntry(id, lead.version, state) });
      writes.push(() => this.writeView(leadKey(id), listId, id, lead.version, memberItem(searchType, listId, id, lead.version, state)));
    }
    let next = 0;
    const worker = async () => {
      while (next < writes.length) await (writes[next++] as () => Promise<void>)();
    };
    await Promise.all(Array.from({ length: Math.min(REDERIVE_CONCURRENCY, writes.length) }, worker));
    return changes;
  }

  /** Puts (or deletes) a member view, provided the lead is still at the version it was derived from. */
  private async writeView(leadKey: { pk: string; sk: string }, listId: number, leadId: number, version: number | undefined, item?: Record<string, unknown>) {
    const key = listMemberKey(listId, leadId);
    if (version === undefined) {
      await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: key }));
      return;
    }
    const write = item ? { Put: { TableName: this.tableName, Item: item } } : { Delete: { TableName: this.tableName, Key: key } };
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tableName,
                Key: leadKey,
                ConditionExpression: '#version = :version',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':version': version },
              },
            },
            write,
          ],
        }),
      );
    } catch (error) {
      // The lead moved on (its version condition failed): its newer writer owns the view. Any
      // other cancellation (throttling past the client's retries) is passed on: swallowed, the
      // list's digest would count a member whose view was never written.
      if (cancellationReasons(error)?.[0]?.Code !== 'ConditionalCheckFailed') throw error;
    }
  }
}
