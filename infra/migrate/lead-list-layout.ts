/**
 * Brings a table written before the member digest to the current lead-list layout (see
 * docs/data-model.md, "Migrating a table written before the member digest"). Every list's members
 * are rebuilt from the leads themselves (a lead is a member of the lists in its `listIds`): member
 * view items, the digest and the list's counters; every workspace with leads gets its LEADCOUNTS.
 *
 * Idempotent: what already matches is left alone, so a second run writes nothing. Meant to run
 * while no lead writes run (a stopped `npm start`, a deployed stack without lead traffic): it
 * Scans the table once to find the lists and the workspaces with leads. Scans are kept out of
 * shared/ and functions/ (no request path Scans); this is an operator's command, not a request.
 */
import { type DynamoDBDocumentClient, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Company, type LeadList, PROSPECT_STATUS, type Prospect, type SearchType } from '../../shared/domain/leads/lead';
import { type MemberState, companyMember, prospectMember } from '../../shared/domain/leads/list-query';
import {
  DIGEST_CHUNK_CAPACITY,
  type DigestChunk,
  type DigestEntry,
  digestEntry,
  decodeChunk,
  emptyChunk,
  encodeChunk,
} from '../../shared/domain/leads/member-digest';
import type { Clock } from '../../shared/time/clock';
import { type WriteRequest, batchWriteAll } from '../../shared/db/batch-write';
import { queryAll } from '../../shared/db/client';
import { parseItem } from '../../shared/db/item-schema';
import {
  DIGEST_PREFIX,
  LIST_MEMBER_PREFIX,
  digestChunkKey,
  leadJournalKey,
  leadListKey,
  listMemberKey,
  workspaceLeadCountsKey,
} from '../../shared/db/keys';
import { JOURNAL_LEASE_MS } from '../../shared/db/lead-journal';
import { MAX_CHUNK_BYTES } from '../../shared/db/list-members';
import { DigestChunkItem, memberItem, toLeadList } from '../../shared/db/lead-items';
import { DynamoLeadRepository } from '../../shared/db/lead-repository';
import { WorkspaceLeadCountsItem } from '../../shared/db/workspace-lead-counts';

export interface MigrationReport {
  /** Lead lists found. */
  lists: number;
  /** Lists on which anything was written (members, digest or counters). */
  listsChanged: number;
  /** Member view items written (new, or replacing an item of the old layout or an outdated view). */
  membersWritten: number;
  /** Member items deleted: leads whose `listIds` no longer hold the list. */
  membersDeleted: number;
  /** Member items that already were what the leads make them. */
  membersUnchanged: number;
  /** Lists whose digest was written afresh. */
  digestsRebuilt: number;
  /** Lists whose `totalProspects`/`capacityClaimed` were set. */
  countersSet: number;
  /** Batches of lead writes settled on the way: tokens whose journal was gone, journals past their lease finished. */
  journalsSettled: number;
  /** Workspaces holding leads. */
  workspaces: number;
  /** Workspaces whose LEADCOUNTS item was written. */
  leadCountsWritten: number;
}

/** Thrown before anything is changed when a batch of lead writes is still within its lease. */
export class WritesInProgressError extends Error {
  constructor(readonly open: { where: string; token: string; until: string }[]) {
    super(
      `Batches of lead writes are in progress, so the table cannot be migrated now: ${open
        .map((o) => `${o.where} (journal ${o.token}, lease until ${o.until})`)
        .join('; ')}. Stop the service (npm start, or the deployed stack's lead traffic) and run again after the lease.`,
    );
    this.name = 'WritesInProgressError';
  }
}

interface Found {
  /** Lists per workspace. */
  lists: Map<number, number[]>;
  /** Workspaces holding at least one prospect or company. */
  withLeads: Set<number>;
}

/** The one Scan: the lead lists and the workspaces that hold leads (only the attributes that say so). */
async function scanTable(db: DynamoDBDocumentClient, tableName: string): Promise<Found> {
  const lists = new Map<number, number[]>();
  const withLeads = new Set<number>();
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#type IN (:list, :prospect, :company)',
        ProjectionExpression: '#type, #workspace, #id',
        ExpressionAttributeNames: { '#type': 'entityType', '#workspace': 'workspaceId', '#id': 'id' },
        ExpressionAttributeValues: { ':list': 'LeadList', ':prospect': 'Prospect', ':company': 'Company' },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const workspaceId = item.workspaceId;
      if (typeof workspaceId !== 'number') continue;
      if (item.entityType === 'LeadList' && typeof item.id === 'number') lists.set(workspaceId, [...(lists.get(workspaceId) ?? []), item.id]);
      else withLeads.add(workspaceId);
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  for (const ids of lists.values()) ids.sort((a, b) => a - b);
  return { lists, withLeads };
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * The same attributes with the same values (member items hold strings and numbers only), but for a
 * version that may be behind the lead's: a change of the lead that leaves a list's view as it was
 * (it joined another list, an enrichment found nothing) moves the lead's version and not that view's,
 * by design, as for digest entries (`entryText`). Before 2026-11-28 such views were written again on
 * every run.
 */
function sameView(stored: Record<string, unknown>, wanted: Record<string, unknown>): boolean {
  const keys = Object.keys(wanted);
  if (Object.keys(stored).length !== keys.length) return false;
  return keys.every((key) => (key === 'version' ? Number(stored.version) <= Number(wanted.version) : stored[key] === wanted[key]));
}

/**
 * An entry as comparable text: id, company, and the sort and filter values in key order. Not the
 * version: a status write moves a prospect's version and leaves its entry as it was, by design
 * (data-model.md, "Status changes: no batch"), so an entry one version behind with the same values
 * is current (before 2026-11-27 such a list's digest was rebuilt on every run).
 */
function entryText(entry: DigestEntry): string {
  const ordered = (record: Record<string, string>) => Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([entry.id, entry.companyId ?? null, ordered(entry.sort), ordered(entry.filter)]);
}

/** The fresh digest of these entries: chunks of DIGEST_CHUNK_CAPACITY members in id order, no tombstones. */
/** Chunks of up to DIGEST_CHUNK_CAPACITY entries, halved until each encodes within MAX_CHUNK_BYTES (as ListMembers.close does). */
function freshChunks(entries: DigestEntry[]): DigestChunk[] {
  const pieces: DigestEntry[][] = [];
  for (let i = 0; i < entries.length; i += DIGEST_CHUNK_CAPACITY) pieces.push(entries.slice(i, i + DIGEST_CHUNK_CAPACITY));
  const chunks: DigestChunk[] = [];
  while (pieces.length > 0) {
    const piece = pieces.shift() as DigestEntry[];
    const chunk = emptyChunk();
    for (const entry of piece) chunk.entries.set(entry.id, entry);
    if (piece.length > 1 && encodeChunk(chunk).byteLength > MAX_CHUNK_BYTES) {
      pieces.unshift(piece.slice(0, piece.length / 2), piece.slice(piece.length / 2));
      continue;
    }
    chunks.push(chunk);
  }
  return chunks;
}

export async function migrateLeadListLayout(
  db: DynamoDBDocumentClient,
  tableName: string,
  options: { clock: Clock; log?: (line: string) => void },
): Promise<MigrationReport> {
  const log = options.log ?? (() => {});
  const clock = options.clock;
  const leads = new DynamoLeadRepository(db, tableName, clock);
  const report: MigrationReport = {
    lists: 0,
    listsChanged: 0,
    membersWritten: 0,
    membersDeleted: 0,
    membersUnchanged: 0,
    digestsRebuilt: 0,
    countersSet: 0,
    journalsSettled: 0,
    workspaces: 0,
    leadCountsWritten: 0,
  };

  const found = await scanTable(db, tableName);
  const workspaceIds = [...new Set([...found.lists.keys(), ...found.withLeads])].sort((a, b) => a - b);

  // Before anything changes: batches of lead writes left open are settled as a read of the list or
  // the counts would settle them (a token whose journal is gone is dropped; a journal past its
  // lease is finished). One still within its lease means writes are running: nothing is migrated.
  const readList = async (workspaceId: number, listId: number): Promise<LeadList | undefined> => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: leadListKey(workspaceId, listId), ConsistentRead: true }));
    return Item ? toLeadList(Item) : undefined;
  };
  const readCounts = async (workspaceId: number) => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: workspaceLeadCountsKey(workspaceId), ConsistentRead: true }));
    return Item ? { item: Item, counts: parseItem(WorkspaceLeadCountsItem, Item) } : undefined;
  };
  const blocked: { where: string; token: string; until: string }[] = [];
  const blocking = async (where: string, tokens: string[]) => {
    for (const token of tokens) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: leadJournalKey(token), ConsistentRead: true }));
      const at = typeof Item?.at === 'string' ? Date.parse(Item.at) : Number.NaN;
      blocked.push({ where, token, until: Number.isNaN(at) ? 'unknown' : new Date(at + JOURNAL_LEASE_MS).toISOString() });
    }
  };
  for (const workspaceId of workspaceIds) {
    for (const listId of found.lists.get(workspaceId) ?? []) {
      const list = await readList(workspaceId, listId);
      const open = list?.openJournals ?? [];
      if (!list || open.length === 0) continue;
      await leads.journal.settle(list);
      const left = (await readList(workspaceId, listId))?.openJournals ?? [];
      report.journalsSettled += open.filter((token) => !left.includes(token)).length;
      await blocking(`list ${listId}`, left);
    }
    const counts = await readCounts(workspaceId);
    const open = counts?.counts.openJournals ?? [];
    if (open.length > 0) {
      await leads.journal.settleWorkspace(workspaceId, open);
      const left = (await readCounts(workspaceId))?.counts.openJournals ?? [];
      report.journalsSettled += open.filter((token) => !left.includes(token)).length;
      await blocking(`workspace ${workspaceId}`, left);
    }
  }
  if (blocked.length > 0) throw new WritesInProgressError(blocked);

  for (const workspaceId of workspaceIds) {
    const listIds = found.lists.get(workspaceId) ?? [];
    const hasLeads = found.withLeads.has(workspaceId);
    const prospects = hasLeads ? await leads.workspaceProspects(workspaceId) : [];
    const companies = new Map((hasLeads ? await leads.workspaceCompanies(workspaceId) : []).map((company) => [company.id, company]));
    const companyCount = companies.size;
    // A prospect's company is normally one of the workspace's; any other is read by id.
    const elsewhere = [...new Set(prospects.flatMap((p) => (p.companyId !== undefined && !companies.has(p.companyId) ? [p.companyId] : [])))];
    for (const company of elsewhere.length ? await leads.getCompanies(elsewhere) : []) companies.set(company.id, company);

    for (const listId of listIds) {
      const list = await readList(workspaceId, listId);
      if (!list) continue;
      report.lists += 1;
      const members: { id: number; version: number; state: MemberState }[] =
        list.searchType === 'PEOPLE'
          ? prospects
              .filter((p) => p.listIds.includes(listId))
              .map((p: Prospect) => ({ id: p.id, version: p.version, state: prospectMember(p, p.companyId === undefined ? undefined : companies.get(p.companyId)) }))
          : [...companies.values()]
              .filter((c) => c.workspaceId === workspaceId && c.listIds.includes(listId))
              .map((c: Company) => ({ id: c.id, version: c.version, state: companyMember(c) }));
      members.sort((a, b) => a.id - b.id);
      const changed = await migrateList(db, tableName, list, members, report);
      if (changed.length > 0) report.listsChanged += 1;
      log(
        `list ${listId} (${list.searchType}, workspace ${workspaceId}): ${members.length} members; ${changed.length ? changed.join('; ') : 'unchanged'}`,
      );
    }

    if (!hasLeads) continue;
    report.workspaces += 1;
    const wanted = { prospects: prospects.filter((p) => p.status !== PROSPECT_STATUS.archived).length, companies: companyCount };
    const stored = await readCounts(workspaceId);
    const same =
      stored &&
      stored.item.entityType === 'WorkspaceLeadCounts' &&
      stored.item.workspaceId === workspaceId &&
      stored.item.prospects === wanted.prospects &&
      stored.item.companies === wanted.companies;
    if (!same) {
      // SET, not ADD: the counts become what the leads say (a token of an open batch, if any, is kept).
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: workspaceLeadCountsKey(workspaceId),
          UpdateExpression: 'SET prospects = :prospects, companies = :companies, entityType = :type, workspaceId = :workspaceId',
          ExpressionAttributeValues: { ':prospects': wanted.prospects, ':companies': wanted.companies, ':type': 'WorkspaceLeadCounts', ':workspaceId': workspaceId },
        }),
      );
      report.leadCountsWritten += 1;
    }
    log(`workspace ${workspaceId}: LEADCOUNTS prospects ${wanted.prospects}, companies ${wanted.companies}; ${same ? 'unchanged' : 'written'}`);
  }
  return report;
}

/** Rebuilds one list from its members as the leads say; what it changed, in words (empty: nothing). */
async function migrateList(
  db: DynamoDBDocumentClient,
  tableName: string,
  list: LeadList,
  members: { id: number; version: number; state: MemberState }[],
  report: MigrationReport,
): Promise<string[]> {
  const changed: string[] = [];
  const searchType: SearchType = list.searchType;
  const partition = listMemberKey(list.id, 0).pk;

  // Member view items: written where missing or different (old items carry f_ attributes and no view), deleted for non-members.
  const stored = new Map(
    (
      await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': partition, ':prefix': LIST_MEMBER_PREFIX },
        ConsistentRead: true,
      })
    ).map((item) => [String(item.sk), item]),
  );
  const writes: WriteRequest[][] = [];
  let written = 0;
  for (const member of members) {
    const item = memberItem(searchType, list.id, member.id, member.version, member.state);
    const key = String(item.sk);
    const existing = stored.get(key);
    stored.delete(key);
    if (existing && sameView(existing, item)) {
      report.membersUnchanged += 1;
      continue;
    }
    writes.push([{ PutRequest: { Item: item } }]);
    written += 1;
  }
  const deleted = stored.size;
  for (const item of stored.values()) writes.push([{ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }]);
  await batchWriteAll(db, tableName, writes);
  report.membersWritten += written;
  report.membersDeleted += deleted;
  if (written) changed.push(`${plural(written, 'member item')} written`);
  if (deleted) changed.push(`${plural(deleted, 'member item')} deleted`);

  // The digest: left alone when it already holds exactly these entries, else written afresh.
  const entries: DigestEntry[] = members.map((m) => digestEntry(m.id, m.version, m.state));
  const chunkItems = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': partition, ':prefix': DIGEST_PREFIX },
    ConsistentRead: true,
  });
  const revs = new Map<number, number>();
  let held: string[] | undefined = [];
  for (const item of chunkItems) {
    const n = Number(String(item.sk).slice(DIGEST_PREFIX.length));
    try {
      const { rev, data } = parseItem(DigestChunkItem, item);
      revs.set(n, rev);
      held?.push(...[...decodeChunk(data).entries.values()].map(entryText));
    } catch {
      // A chunk that cannot be read is replaced with the rest.
      revs.set(n, typeof item.rev === 'number' ? item.rev : 0);
      held = undefined;
    }
  }
  const wanted = entries.map(entryText);
  const digestCurrent = held !== undefined && held.length === wanted.length && held.sort().join('\n') === [...wanted].sort().join('\n');
  if (!digestCurrent) {
    const chunks = freshChunks(entries);
    const requests: WriteRequest[][] = chunks.map((chunk, n) => [
      {
        PutRequest: {
          Item: {
            ...digestChunkKey(list.id, n),
            entityType: 'MemberDigest',
            // Past any revision a writer read, so a writer holding an old one re-reads.
            rev: (revs.get(n) ?? 0) + 1,
            members: chunk.entries.size,
            data: encodeChunk(chunk),
          },
        },
      },
    ]);
    for (const n of revs.keys()) if (n >= chunks.length) requests.push([{ DeleteRequest: { Key: digestChunkKey(list.id, n) } }]);
    await batchWriteAll(db, tableName, requests);
    report.digestsRebuilt += 1;
    changed.push(`digest rebuilt: ${plural(chunks.length, 'chunk')} (replacing ${revs.size})`);
  }

  // The counters: totalProspects is the digest's member count; capacityClaimed the same (no batch is open).
  const count = members.length;
  if (list.totalProspects !== count || list.capacityClaimed !== count) {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: leadListKey(list.workspaceId, list.id),
        UpdateExpression: 'SET totalProspects = :count, capacityClaimed = :count',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':count': count },
      }),
    );
    report.countersSet += 1;
    changed.push(`totalProspects ${list.totalProspects} -> ${count}, capacityClaimed ${list.capacityClaimed ?? 'absent'} -> ${count}`);
  }
  return changed;
}
