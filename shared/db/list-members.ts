import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand, type QueryCommandInput, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LeadList } from '../domain/leads/lead';
import {
  type DigestChange,
  type DigestChunk,
  type DigestEntry,
  applyChanges,
  decodeChunk,
  emptyChunk,
  encodeChunk,
  queryDigest,
} from '../domain/leads/member-digest';
import type { MemberPage, MemberPageQuery, PageMember } from '../domain/leads/ports';
import type { Clock } from '../time/clock';
import { batchGetAll } from './batch-get';
import { cancellationReasons, queryAll } from './client';
import { parseItem } from './item-schema';
import { DIGEST_PREFIX, LIST_MEMBER_PREFIX, digestChunkKey, leadListKey, listMemberKey } from './keys';
import { DigestChunkItem, ListMemberItem, SORT_INDEX } from './lead-items';
import { MAX_TRANSACTION_ITEMS, type TransactItem } from './transactions';
import { isThrottledOnly } from './conflict-retries';

/** Bytes a member's view item is assumed to take when choosing how to read a page. */
const VIEW_BYTES = 1024;
/** Bytes of a member's entry in a sort LSI (its keys: ~40 B of list key, ~20 of lead key, a sort value of up to ~220). */
const INDEX_ENTRY_BYTES = 200;
/** Bytes a member is assumed to take in the digest (measured: 10–40 compressed). */
const DIGEST_BYTES_PER_MEMBER = 48;
const READ_UNIT = 4096;
/** Digest chunks rewritten in one transaction, and their bytes (a transaction holds at most 4 MB). */
const CHUNKS_PER_TRANSACTION = 60;
const BYTES_PER_TRANSACTION = 3_000_000;
/** A chunk is split beyond this (an item holds at most 400 KB); typical chunks are a few KB. */
export const MAX_CHUNK_BYTES = 300_000;
const MAX_CLOSE_ATTEMPTS = 10;

interface StoredChunk {
  chunk: DigestChunk;
  rev: number;
}

/** A list's members: their view items (pages in key order) and their digest (filters, deep pages, counts). */
export class ListMembers {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock,
  ) {}

  async readDigest(listId: number): Promise<Map<number, StoredChunk>> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': digestChunkKey(listId, 0).pk, ':prefix': DIGEST_PREFIX },
      ConsistentRead: true,
    });
    return new Map(
      items.map((item) => {
        const { rev, data } = parseItem(DigestChunkItem, item);
        return [Number(String(item.sk).slice(DIGEST_PREFIX.length)), { rev, chunk: decodeChunk(data) }];
      }),
    );
  }

  /**
   * Applies member changes to the list's digest and moves its counters by what they changed, in
   * the same transaction: `totalProspects` is always the number of members the digest holds. The
   * last transaction also gives back the `reserved` capacity of the batch and removes its token.
   */
  async close(list: { workspaceId: number; id: number }, changes: DigestChange[], options: { reserved: number; token: string }): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      const stored = await this.readDigest(list.id);
      const chunks = new Map([...stored].map(([n, s]) => [n, s.chunk]));
      const sizeBefore = new Map([...chunks].map(([n, c]) => [n, c.entries.size]));
      const now = this.clock.now();
      const { touched } = applyChanges(chunks, changes, now.getTime());
      const encoded = new Map<number, Uint8Array>();
      // A chunk that grew past the item size it may have is split; the halves go in one transaction.
      const clusters: number[][] = [];
      for (const n of [...touched].sort((a, b) => a - b)) {
        const cluster = [n];
        for (let i = 0; i < cluster.length; i += 1) {
          const current = cluster[i] as number;
          const chunk = chunks.get(current) as DigestChunk;
          const bytes = encodeChunk(chunk);
          if (bytes.byteLength <= MAX_CHUNK_BYTES || chunk.entries.size < 2) {
            encoded.set(current, bytes);
            continue;
          }
          const next = Math.max(...chunks.keys()) + 1;
          const moved = emptyChunk();
          const ids = [...chunk.entries.keys()].sort((a, b) => a - b);
          for (const id of ids.slice(Math.floor(ids.length / 2))) {
            moved.entries.set(id, chunk.entries.get(id) as DigestEntry);
            chunk.entries.delete(id);
          }
          chunks.set(next, moved);
          cluster.push(current, next);
        }
        clusters.push([...new Set(cluster)]);
      }
      const groups: number[][] = [];
      let current: number[] = [];
      let bytes = 0;
      for (const cluster of clusters) {
        const size = cluster.reduce((sum, n) => sum + (encoded.get(n)?.byteLength ?? 0), 0);
        if (current.length > 0 && (current.length + cluster.length > CHUNKS_PER_TRANSACTION || bytes + size > BYTES_PER_TRANSACTION)) {
          groups.push(current);
          current = [];
          bytes = 0;
        }
        current.push(...cluster);
        bytes += size;
      }
      if (current.length > 0 || groups.length === 0) groups.push(current);
      try {
        for (const [g, group] of groups.entries()) {
          const last = g === groups.length - 1;
          const items: TransactItem[] = [];
          let delta = 0;
          for (const n of group) {
            const chunk = chunks.get(n) as DigestChunk;
            const previous = stored.get(n);
            delta += chunk.entries.size - (sizeBefore.get(n) ?? 0);
            const key = digestChunkKey(list.id, n);
            if (chunk.entries.size === 0 && chunk.gone.size === 0) {
              if (previous) {
                items.push({
                  Delete: { TableName: this.tableName, Key: key, ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': previous.rev } },
                });
              }
              continue;
            }
            items.push({
              Put: {
                TableName: this.tableName,
                Item: { ...key, entityType: 'MemberDigest', rev: (previous?.rev ?? 0) + 1, members: chunk.entries.size, data: encoded.get(n) },
                ...(previous
                  ? { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': previous.rev } }
                  : { ConditionExpression: 'attribute_not_exists(pk)' }),
              },
            });
          }
          const capacity = delta - (last ? options.reserved : 0);
          const sets = ['updatedAt = :now'];
          const values: Record<string, unknown> = { ':delta': delta, ':capacity': capacity, ':now': now.toISOString() };
          const names: Record<string, string> = {};
          if (delta > 0) {
            sets.push('#status = :active');
            names['#status'] = 'status';
            values[':active'] = 'ACTIVE';
          }
          let update = `ADD totalProspects :delta, capacityClaimed :capacity${delta !== 0 ? ` SET ${sets.join(', ')}` : ''}`;
          if (delta === 0) delete values[':now'];
          if (last) {
            update += ' DELETE openJournals :token';
            values[':token'] = new Set([options.token]);
            values[':tokenValue'] = options.token;
          }
          if (items.length === 0 && delta === 0 && capacity === 0 && !last) continue;
          items.push({
            Update: {
              TableName: this.tableName,
              Key: leadListKey(list.workspaceId, list.id),
              UpdateExpression: update,
              // The batch's reservation is given back once: only while its token is on the list.
              ConditionExpression: last ? 'attribute_exists(pk) AND contains(openJournals, :tokenValue)' : 'attribute_exists(pk)',
              ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
              ExpressionAttributeValues: values,
            },
          });
          if (items.length > MAX_TRANSACTION_ITEMS) throw new Error('digest transaction too large');
          await this.db.send(new TransactWriteCommand({ TransactItems: items }));
        }
        return;
      } catch (error) {
        // A chunk changed since it was read (another batch closed on the list): read again. Or the
        // token is gone: another finisher closed the batch on this list (its changes are applied).
        // Throttling was retried by the client already (conflict-retries.ts): not again here.
        if (!cancellationReasons(error) || attempt >= MAX_CLOSE_ATTEMPTS || isThrottledOnly(error)) throw error;
        if (!(await this.tokenOpen(list, options.token))) return;
        await sleep(Math.random() * 10 * 2 ** Math.min(attempt, 6));
      }
    }
  }

  /** Whether the batch of `token` is still open on the list (not yet closed there). */
  async tokenOpen(list: { workspaceId: number; id: number }, token: string): Promise<boolean> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: leadListKey(list.workspaceId, list.id), ConsistentRead: true, ProjectionExpression: 'openJournals' }),
    );
    return Item?.openJournals instanceof Set && Item.openJournals.has(token);
  }

  /**
   * One page of the list. Without filters and near the start, a Query on the member partition
   * walks the order: by `id` the table's sort key, which returns the views themselves; by another
   * field that field's LSI, which holds keys only (shared/db/table-schema.ts), so it returns the
   * page's keys and the page's views are then read by key. With filters, or deep enough that
   * skipping entries would read more than the digest, the digest picks the page (and counts the
   * matches) and the page's views are read by key.
   */
  async page(list: LeadList, query: MemberPageQuery): Promise<MemberPage> {
    const filtered = query.filters.length > 0;
    const slot = query.sortField === 'id' ? undefined : SORT_INDEX[list.searchType][query.sortField];
    const wanted = query.offset + query.limit;
    const shallowCost = slot
      ? Math.ceil((wanted * INDEX_ENTRY_BYTES) / READ_UNIT) + query.limit
      : Math.ceil((wanted * VIEW_BYTES) / READ_UNIT);
    const digestCost = Math.ceil((list.totalProspects * DIGEST_BYTES_PER_MEMBER) / READ_UNIT) + query.limit;
    if (!filtered && shallowCost <= digestCost) {
      return { members: slot ? await this.byKeys(list.id, await this.indexPage(list, query, slot.index)) : await this.tablePage(list, query) };
    }

    const stored = await this.readDigest(list.id);
    const { ids, matched } = queryDigest(
      [...stored.values()].map((s) => s.chunk),
      query,
    );
    return { members: await this.byKeys(list.id, ids), ...(filtered ? { matched } : {}) };
  }

  /** The page's views in `ids` order (one consistent BatchGetItem; a member removed meanwhile is left out). */
  private async byKeys(listId: number, ids: number[]): Promise<PageMember[]> {
    const members = await this.members(listId, ids);
    return ids.flatMap((id) => {
      const member = members.get(id);
      return member ? [member] : [];
    });
  }

  /** A page in id order: the views straight from the table's sort key. */
  private async tablePage(list: LeadList, query: MemberPageQuery): Promise<PageMember[]> {
    const items = await this.walk(query, {
      TableName: this.tableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': listMemberKey(list.id, 0).pk, ':prefix': LIST_MEMBER_PREFIX },
    });
    return items.map((item) => parseItem(ListMemberItem, item));
  }

  /**
   * The lead ids of a page in another field's order: its LSI's entries as projected (keys only;
   * the whole views in a table created with ALL). No ProjectionExpression: DynamoDB Local then
   * fetches every entry's item from the table (measured: 26 RCU for 25 entries instead of 1).
   */
  private async indexPage(list: LeadList, query: MemberPageQuery, index: string): Promise<number[]> {
    const items = await this.walk(query, {
      TableName: this.tableName,
      IndexName: index,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': listMemberKey(list.id, 0).pk },
      Select: 'ALL_PROJECTED_ATTRIBUTES',
    });
    return items.map((item) => Number(String(item.sk).slice(LIST_MEMBER_PREFIX.length)));
  }

  /** Reads `offset + limit` entries in the query's direction and keeps the last `limit`. */
  private async walk(query: MemberPageQuery, input: QueryCommandInput): Promise<Record<string, unknown>[]> {
    const wanted = query.offset + query.limit;
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: QueryCommandInput['ExclusiveStartKey'];
    do {
      const page = await this.db.send(
        new QueryCommand({
          ...input,
          ScanIndexForward: query.direction === 'asc',
          // Members written a moment ago must be listed: LSIs, unlike GSIs, can be read consistently.
          ConsistentRead: true,
          Limit: wanted - items.length,
          ExclusiveStartKey,
        }),
      );
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey && items.length < wanted);
    return items.slice(query.offset, wanted);
  }

  /** Some members with their views, by lead id (strongly consistent: read right after a write). */
  async members(listId: number, ids: number[]): Promise<Map<number, PageMember>> {
    if (ids.length === 0) return new Map();
    const items = await batchGetAll(this.db, this.tableName, ids.map((id) => listMemberKey(listId, id)), { consistent: true });
    return new Map(
      items.map((item) => {
        const member = parseItem(ListMemberItem, item);
        return [member.leadId, member];
      }),
    );
  }
}
