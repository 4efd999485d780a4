import { type DynamoDBDocumentClient, GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { type Lead, PROSPECT_STATUS, isProspect } from '../domain/leads/lead';
import type { LeadChange, LeadCounts, WorkspaceLeadCounts } from '../domain/leads/ports';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { workspaceLeadCountsKey } from './keys';
import type { LeadJournal } from './lead-journal';

/**
 * A workspace's lead counts (`WORKSPACE#<ws>` / `LEADCOUNTS`): `prospects` that are not archived
 * and `companies`. Every lead write moves them in its own transaction, so they are exact after
 * every transaction; the unfiltered workspace search answers its `total_count` from them.
 */

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const WorkspaceLeadCountsItem = itemSchema(
  'WorkspaceLeadCounts',
  // Each attribute appears with the first ADD that names it.
  v.object({
    prospects: v.optional(intAttribute, 0),
    companies: v.optional(intAttribute, 0),
    /** Batches of lead writes still open in the workspace (see shared/db/lead-journal.ts). */
    openJournals: v.optional(v.pipe(v.set(v.string()), v.transform((set) => [...set]))),
  }),
);

/** The TransactWriteItems action that moves a workspace's counts by `delta` (creating the item at 0 first). */
export function leadCountsUpdate(tableName: string, workspaceId: number, delta: LeadCounts): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: workspaceLeadCountsKey(workspaceId),
      UpdateExpression: 'ADD prospects :prospects, companies :companies SET entityType = :type, workspaceId = :workspaceId',
      ExpressionAttributeValues: {
        ':prospects': delta.prospects,
        ':companies': delta.companies,
        ':type': 'WorkspaceLeadCounts',
        ':workspaceId': workspaceId,
      },
    },
  };
}

const counted = (lead: Lead | undefined): number => (lead && isProspect(lead) && lead.status !== PROSPECT_STATUS.archived ? 1 : 0);

/**
 * How one lead change moves its workspace's counts: a new prospect that is not archived +1, a
 * prospect archived −1, an archived one restored +1; a new company +1 (companies are never removed).
 */
export function leadCountsDelta(change: Pick<LeadChange, 'before' | 'after'>): LeadCounts {
  if (!isProspect(change.after)) return { prospects: 0, companies: change.before ? 0 : 1 };
  return { prospects: counted(change.after) - counted(change.before), companies: 0 };
}

/**
 * The count updates of the changes written in one transaction: one action per workspace whose
 * counts move (none when they do not). This is the whole of the write path's part: a save path
 * adds these actions to each transaction it sends.
 */
export function leadCountsActions(tableName: string, changes: Pick<LeadChange, 'before' | 'after'>[]): TransactItem[] {
  const totals = new Map<number, LeadCounts>();
  for (const change of changes) {
    const delta = leadCountsDelta(change);
    const total = totals.get(change.after.workspaceId) ?? { prospects: 0, companies: 0 };
    totals.set(change.after.workspaceId, { prospects: total.prospects + delta.prospects, companies: total.companies + delta.companies });
  }
  return [...totals]
    .filter(([, total]) => total.prospects !== 0 || total.companies !== 0)
    .map(([workspaceId, total]) => leadCountsUpdate(tableName, workspaceId, total));
}

/** Reads a workspace's lead counts. */
export class DynamoWorkspaceLeadCounts implements WorkspaceLeadCounts {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Finishes batches of writes interrupted past their lease, so their leads are counted. */
    private readonly journal: LeadJournal,
  ) {}

  /** Strongly consistent, so a search right after a write counts it. A missing item is 0 and 0. */
  async get(workspaceId: number): Promise<LeadCounts> {
    const counts = await this.read(workspaceId);
    if (counts.openJournals?.length && (await this.journal.settleWorkspace(workspaceId, counts.openJournals))) {
      const settled = await this.read(workspaceId);
      return { prospects: settled.prospects, companies: settled.companies };
    }
    return { prospects: counts.prospects, companies: counts.companies };
  }

  private async read(workspaceId: number) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: workspaceLeadCountsKey(workspaceId), ConsistentRead: true }));
    return Item ? parseItem(WorkspaceLeadCountsItem, Item) : { prospects: 0, companies: 0, openJournals: [] as string[] };
  }
}
