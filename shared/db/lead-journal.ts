import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { brotliCompressSync, constants } from 'node:zlib';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { LeadList, SearchType } from '../domain/leads/lead';
import type { Clock } from '../time/clock';
import { batchGetAll } from './batch-get';
import { cancellationReasons, isConditionFailed } from './client';
import { parseItem } from './item-schema';
import { leadIdentityKey, leadJournalKey, leadListKey, workspaceLeadCountsKey } from './keys';
import { LeadIdentityItem, LeadJournalItem } from './lead-items';
import type { LeadCounts } from '../domain/leads/ports';
import type { ListMembers } from './list-members';
import { MAX_TRANSACTION_ITEMS, type TransactItem } from './transactions';
import type { ViewRederive } from './view-rederive';
import { isThrottledOnly } from './conflict-retries';

/** Attempts of a transaction registering a batch (contention on the lists or lead counts is retried). */
const MAX_OPEN_ATTEMPTS = 12;

/** Compressed bytes of a journal's leads: an item holds 400 KB. */
const MAX_JOURNAL_BYTES = 350_000;

/** A batch whose journal would not fit in an item (very long identities): the caller splits it. Nothing was written. */
export class JournalTooLargeError extends Error {}

/** Fast brotli: the journal lives for one request, so speed matters more than the last bytes. */
const JOURNAL_COMPRESSION = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * How long a batch of lead writes may take before whoever finds its journal finishes it for it:
 * several times the longest function timeout, so a batch still running is never taken over.
 */
export const JOURNAL_LEASE_MS = 120_000;

/**
 * A batch's token: the clock's epoch ms when it opened, a dot, a UUID. Whoever sees the token (on a
 * list or the workspace's lead counts) can tell a batch past its lease without reading its journal.
 */
export function newJournalToken(now: Date): string {
  return `${now.getTime()}.${randomUUID()}`;
}

/**
 * Whether the token's batch may be past its lease: its opening time is older than the lease, or
 * unknown (tokens written before they carried it: only the journal's `at` tells).
 */
export function mayBeStale(token: string, nowMs: number): boolean {
  const opened = /^(\d+)\./.exec(token);
  return !opened || Number(opened[1]) + JOURNAL_LEASE_MS <= nowMs;
}

export interface JournalEntry {
  token: string;
  workspaceId: number;
  searchType: SearchType;
  /** Every lead the batch writes. */
  leadIds: number[];
  /** Every list whose members the batch changes. */
  lists: number[];
  /** Joins reserved per list. */
  reserved: Map<number, number>;
  /** The new leads and the identities claimed for them. */
  created: { id: number; identities: string[] }[];
}

export type OpenOutcome = { opened: true } | { opened: false; listId: number; room: number };

/**
 * The journal of a batch of lead writes. Opening it registers the batch on every list it changes
 * and reserves the room its joins need, in one transaction; the batch then writes guards, leads
 * and member views, closes each list (digest and counters, see ListMembers.close) and deletes the
 * journal. A batch interrupted half-way leaves its token on the lists: whoever reads such a list
 * after the lease finishes the batch from the leads as they are (settle), so every list converges.
 */
export class LeadJournal {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock,
    private readonly members: ListMembers,
    private readonly views: ViewRederive,
  ) {}

  async open(entry: JournalEntry, maxLeadsPerList: number): Promise<OpenOutcome> {
    const token = new Set([entry.token]);
    const leads = brotliCompressSync(JSON.stringify({ leadIds: entry.leadIds, created: entry.created }), JOURNAL_COMPRESSION);
    if (leads.byteLength > MAX_JOURNAL_BYTES) throw new JournalTooLargeError();
    // The journal first, on its own (a journal no list names yet is simply never looked at), then
    // its token and reservations. Its ids and identities are compressed.
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...leadJournalKey(entry.token),
          entityType: 'LeadJournal',
          token: entry.token,
          workspaceId: entry.workspaceId,
          searchType: entry.searchType,
          at: this.clock.now().toISOString(),
          lists: entry.lists,
          reserved: Object.fromEntries(entry.reserved),
          leads,
        },
      }),
    );
    const listUpdate = (listId: number): TransactItem => {
      const joins = entry.reserved.get(listId) ?? 0;
      return {
        Update: {
          TableName: this.tableName,
          Key: leadListKey(entry.workspaceId, listId),
          UpdateExpression: 'ADD capacityClaimed :joins, openJournals :token',
          ConditionExpression: `attribute_exists(capacityClaimed)${joins > 0 ? ' AND capacityClaimed <= :room' : ''}`,
          ExpressionAttributeValues: { ':joins': joins, ':token': token, ...(joins > 0 ? { ':room': maxLeadsPerList - joins } : {}) },
        },
      };
    };
    const counts: TransactItem = {
      Update: {
        TableName: this.tableName,
        Key: workspaceLeadCountsKey(entry.workspaceId),
        // `batches` counts the batches ever opened in the workspace (see batchesOpened).
        UpdateExpression: 'ADD openJournals :token, batches :one SET entityType = :type, workspaceId = :workspaceId',
        ExpressionAttributeValues: { ':token': token, ':one': 1, ':type': 'WorkspaceLeadCounts', ':workspaceId': entry.workspaceId },
      },
    };
    // Lists that reserve room go first, with the lead counts: a full list is found before any list
    // took the token. A batch touching more lists than a transaction holds registers in several.
    const ordered = [...entry.lists].sort((a, b) => (entry.reserved.get(b) ?? 0) - (entry.reserved.get(a) ?? 0));
    const groups: number[][] = [];
    for (let i = 0; i < ordered.length; i += MAX_TRANSACTION_ITEMS - 1) groups.push(ordered.slice(i, i + MAX_TRANSACTION_ITEMS - 1));
    if (groups.length === 0) groups.push([]);
    for (const [g, group] of groups.entries()) {
      for (let attempt = 0; ; attempt += 1) {
        try {
          await this.db.send(new TransactWriteCommand({ TransactItems: [...group.map(listUpdate), ...(g === 0 ? [counts] : [])] }));
          break;
        } catch (error) {
          const reasons = cancellationReasons(error);
          // Throttling was retried by the client already (conflict-retries.ts): not again here.
          if (!reasons || attempt >= MAX_OPEN_ATTEMPTS || isThrottledOnly(error)) throw error;
          const refused = reasons.findIndex((reason, i) => i < group.length && reason.Code === 'ConditionalCheckFailed');
          if (refused >= 0) {
            const listId = group[refused] as number;
            const room = await this.roomOf(entry.workspaceId, listId, maxLeadsPerList);
            if (room !== undefined) return { opened: false, listId, room };
            continue;
          }
          // Contention on the lists or the lead counts: back off and send again.
          await sleep(Math.random() * 10 * 2 ** Math.min(attempt, 7));
        }
      }
    }
    return { opened: true };
  }

  /**
   * How many batches of writes were ever opened in the workspace (strongly consistent). A writer
   * that changes a lead after this batch wrote it must open a batch after it (one that opened
   * before planned from an older version, and its conditional writes fail), so when the number is
   * the same after this batch's views landed as right after it opened, no view can be stale.
   * Also the tokens of the batches open in the workspace (the same read: an item is priced whole).
   */
  async batchesOpened(workspaceId: number): Promise<{ batches: number; open: string[] }> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: workspaceLeadCountsKey(workspaceId),
        ConsistentRead: true,
        ProjectionExpression: 'batches, openJournals',
      }),
    );
    return {
      batches: typeof Item?.batches === 'number' ? Item.batches : 0,
      open: Item?.openJournals instanceof Set ? [...(Item.openJournals as Set<string>)] : [],
    };
  }

  /** The room left in a list; undefined after giving a list older than capacity tracking its count. */
  private async roomOf(workspaceId: number, listId: number, maxLeadsPerList: number): Promise<number | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: leadListKey(workspaceId, listId), ConsistentRead: true }));
    if (!Item) throw new Error(`lead list ${listId} vanished during a write`);
    if (typeof Item.capacityClaimed !== 'number') {
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: leadListKey(workspaceId, listId),
            UpdateExpression: 'SET capacityClaimed = totalProspects',
            ConditionExpression: 'attribute_not_exists(capacityClaimed)',
          }),
        );
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
      }
      return undefined;
    }
    return Math.max(0, maxLeadsPerList - Item.capacityClaimed);
  }

  /**
   * Counts the batch's new leads in its workspace and removes its token there (once: only while
   * the token is there), then deletes the journal.
   */
  async close(entry: { token: string; workspaceId: number }, counts: LeadCounts): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: workspaceLeadCountsKey(entry.workspaceId),
          UpdateExpression: 'ADD prospects :prospects, companies :companies DELETE openJournals :token',
          // The token is there until the counts are taken: they are counted exactly once.
          ConditionExpression: 'contains(openJournals, :tokenValue)',
          ExpressionAttributeValues: {
            ':prospects': counts.prospects,
            ':companies': counts.companies,
            ':token': new Set([entry.token]),
            ':tokenValue': entry.token,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: leadJournalKey(entry.token) }));
  }

  /** Finishes the workspace's batches past their lease (tokens on its lead counts); true when any was. */
  async settleWorkspace(workspaceId: number, tokens: string[]): Promise<boolean> {
    return this.settleTokens(tokens, workspaceLeadCountsKey(workspaceId));
  }

  /**
   * Finishes the batches still open on the list whose lease has run out; true when it finished
   * any (the caller reads the list again). Batches within their lease are left to their writer.
   */
  async settle(list: LeadList): Promise<boolean> {
    return this.settleTokens(list.openJournals ?? [], leadListKey(list.workspaceId, list.id));
  }

  /**
   * Finishes the batches of these tokens (held by the item at `holder`) whose lease has run out. A
   * token whose journal is gone cannot be (the journal goes last) but is dropped from the holder.
   */
  private async settleTokens(tokens: string[], holder: { pk: string; sk: string }): Promise<boolean> {
    let finished = false;
    const nowMs = this.clock.now().getTime();
    // A batch within its lease (its token tells) is left to its writer without reading its journal
    // (up to 350 KB): a list read while batches run, and an answer waiting for them, read none.
    for (const token of tokens.filter((open) => mayBeStale(open, nowMs))) {
      const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: leadJournalKey(token), ConsistentRead: true }));
      if (Item) {
        if (await this.finishIfStale(Item)) finished = true;
        continue;
      }
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: holder,
          UpdateExpression: 'DELETE openJournals :token',
          ExpressionAttributeValues: { ':token': new Set([token]) },
        }),
      );
      finished = true;
    }
    return finished;
  }

  /** Finishes the journal's batch if its lease has run out; true when it did. */
  private async finishIfStale(item: Record<string, unknown>): Promise<boolean> {
    const journal = parseItem(LeadJournalItem, item);
    if (Date.parse(journal.at) + JOURNAL_LEASE_MS > this.clock.now().getTime()) return false;
    await this.finish({
      token: journal.token,
      workspaceId: journal.workspaceId,
      searchType: journal.searchType,
      ...journal.leads,
      lists: journal.lists,
      reserved: new Map(Object.entries(journal.reserved).map(([listId, n]) => [Number(listId), n])),
    });
    return true;
  }

  /**
   * Completes an interrupted batch from the leads as they are now: identities claimed for a lead
   * that was never written are released; on every list the batch had not closed, each lead's view
   * and digest entry are made to match the lead (member or not); then the list is closed.
   */
  private async finish(entry: JournalEntry): Promise<void> {
    const people = entry.searchType === 'PEOPLE';
    const leads = await this.views.currentLeads(entry.searchType, entry.leadIds);
    const kind = people ? 'PROSPECT' : 'COMPANY';
    for (const created of entry.created) {
      if (leads.has(created.id)) continue;
      await this.takeBackClaims(entry.workspaceId, kind, created);
    }
    for (const listId of entry.lists) {
      if (!(await this.members.tokenOpen({ workspaceId: entry.workspaceId, id: listId }, entry.token))) continue;
      // Only the leads that touch this list: members now, or held by its views or digest.
      const views = await this.members.members(listId, entry.leadIds);
      const digested = new Set([...(await this.members.readDigest(listId)).values()].flatMap((stored) => [...stored.chunk.entries.keys()]));
      const relevant = entry.leadIds.filter((id) => leads.get(id)?.listIds.includes(listId) || views.has(id) || digested.has(id));
      const changes = await this.views.rederive(entry.searchType, listId, relevant, leads);
      await this.members.close({ workspaceId: entry.workspaceId, id: listId }, changes, { reserved: entry.reserved.get(listId) ?? 0, token: entry.token });
    }
    // The new leads that were written are counted now, as the batch would have at its end.
    const landed = entry.created.filter((created) => leads.has(created.id)).length;
    await this.close(entry, people ? { prospects: landed, companies: 0 } : { prospects: 0, companies: landed });
  }

  /**
   * A new lead that was never written: the identities claimed for it are released (it was never
   * counted: new leads are counted when their batch closes).
   */
  private async takeBackClaims(workspaceId: number, kind: 'PROSPECT' | 'COMPANY', created: { id: number; identities: string[] }) {
    const guards = await batchGetAll(
      this.db,
      this.tableName,
      created.identities.map((identity) => leadIdentityKey(workspaceId, kind, identity)),
      { consistent: true },
    );
    const held = guards.map((item) => parseItem(LeadIdentityItem, item)).filter((guard) => guard.leadId === created.id);
    for (const guard of held) {
      try {
        await this.db.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: leadIdentityKey(workspaceId, kind, guard.identity),
            ConditionExpression: 'leadId = :id',
            ExpressionAttributeValues: { ':id': created.id },
          }),
        );
      } catch (error) {
        // Released meanwhile by another finisher of the same batch.
        if (!isConditionFailed(error)) throw error;
      }
    }
  }

}
