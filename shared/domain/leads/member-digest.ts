import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { ListFilter, MemberProjection, SortDirection } from './list-query';
import { foldText, holdsUndecomposed } from './normalize';

/**
 * A list's member digest: for every member, its id, the lead version it was derived from and the
 * projection it is sorted and filtered by, packed column by column into compressed chunks of about
 * DIGEST_CHUNK_CAPACITY members. Reading every chunk of a 10,000-lead list is ~100 KB, so a
 * filtered page (with its exact count) or a deep page is decided here, in memory, instead of by
 * reading every member item. Pure: the repository stores the bytes this module produces.
 */

/** Members per chunk before a new chunk is started: small enough that rewriting one stays cheap. */
export const DIGEST_CHUNK_CAPACITY = 200;
/**
 * How long a removed member's version is remembered, so a delayed write of an older version cannot
 * bring it back. Far longer than any request that could still be applying such a write.
 */
export const TOMBSTONE_TTL_MS = 15 * 60_000;

export interface DigestEntry extends MemberProjection {
  id: number;
  /** The lead version this entry was derived from: older versions never overwrite newer ones. */
  version: number;
  /** A prospect's company: how a company's changes find the members they must refresh. */
  companyId?: number;
  /** A prospect's campaign (chunks written before this column read as none). */
  campaignId?: number;
}

/** The digest entry of a lead at `version` whose members hold `state`. */
export const digestEntry = (
  id: number,
  version: number,
  state: { projection: MemberProjection; companyId?: number; campaignId?: number },
): DigestEntry => ({
  id,
  version,
  ...state.projection,
  ...(state.companyId === undefined ? {} : { companyId: state.companyId }),
  ...(state.campaignId === undefined ? {} : { campaignId: state.campaignId }),
});

/** The members whose company is one of `companyIds`. */
export function membersOfCompanies(chunks: Iterable<DigestChunk>, companyIds: ReadonlySet<number>): number[] {
  const ids: number[] = [];
  for (const chunk of chunks) for (const entry of chunk.entries.values()) if (entry.companyId !== undefined && companyIds.has(entry.companyId)) ids.push(entry.id);
  return ids;
}

interface Tombstone {
  id: number;
  version: number;
  /** Epoch ms of the removal. */
  at: number;
}

export interface DigestChunk {
  entries: Map<number, DigestEntry>;
  gone: Map<number, Tombstone>;
}

/** One member's new state in a list: `entry` to hold, or undefined when the lead left the list. */
export interface DigestChange {
  id: number;
  version: number;
  entry?: DigestEntry;
}

const FORMAT = 1;

export const emptyChunk = (): DigestChunk => ({ entries: new Map(), gone: new Map() });

/** Column-wise JSON, brotli-compressed: columns of similar values compress far better than rows. */
export function encodeChunk(chunk: DigestChunk): Uint8Array {
  const entries = [...chunk.entries.values()].sort((a, b) => a.id - b.id);
  const sortKeys = [...new Set(entries.flatMap((e) => Object.keys(e.sort)))];
  const filterKeys = [...new Set(entries.flatMap((e) => Object.keys(e.filter)))];
  const columns = {
    format: FORMAT,
    ids: entries.map((e) => e.id),
    versions: entries.map((e) => e.version),
    companies: entries.map((e) => e.companyId ?? null),
    // Written only when a member is in a campaign, so lists without campaigns keep their bytes.
    ...(entries.some((e) => e.campaignId !== undefined) ? { campaigns: entries.map((e) => e.campaignId ?? null) } : {}),
    sort: Object.fromEntries(sortKeys.map((key) => [key, entries.map((e) => e.sort[key] ?? null)])),
    filter: Object.fromEntries(filterKeys.map((key) => [key, entries.map((e) => e.filter[key] ?? null)])),
    gone: [...chunk.gone.values()].map((t) => [t.id, t.version, t.at]),
  };
  return brotliCompressSync(Buffer.from(JSON.stringify(columns)), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: 0 },
  });
}

export class MalformedDigestError extends Error {}

export function decodeChunk(bytes: Uint8Array): DigestChunk {
  let columns: {
    format: number;
    ids: number[];
    versions: number[];
    companies?: (number | null)[];
    /** Absent in chunks written before campaigns (and in chunks without a member in one). */
    campaigns?: (number | null)[];
    sort: Record<string, (string | null)[]>;
    filter: Record<string, (string | null)[]>;
    gone: [number, number, number][];
  };
  try {
    columns = JSON.parse(brotliDecompressSync(bytes).toString('utf8'));
  } catch (error) {
    throw new MalformedDigestError(`undecodable digest chunk: ${(error as Error).message}`);
  }
  if (columns.format !== FORMAT || !Array.isArray(columns.ids) || columns.ids.length !== columns.versions?.length) {
    throw new MalformedDigestError('digest chunk of an unknown format');
  }
  const chunk = emptyChunk();
  columns.ids.forEach((id, i) => {
    const pick = (table: Record<string, (string | null)[]>) => {
      const values: Record<string, string> = {};
      for (const [key, column] of Object.entries(table)) {
        const value = column[i];
        if (typeof value === 'string') values[key] = value;
      }
      return values;
    };
    const companyId = columns.companies?.[i];
    const campaignId = columns.campaigns?.[i];
    chunk.entries.set(id, {
      id,
      version: columns.versions[i] as number,
      sort: pick(columns.sort),
      filter: pick(columns.filter),
      ...(typeof companyId === 'number' ? { companyId } : {}),
      ...(typeof campaignId === 'number' ? { campaignId } : {}),
    });
  });
  for (const [id, version, at] of columns.gone ?? []) chunk.gone.set(id, { id, version, at });
  return chunk;
}

export interface ApplyResult {
  /** Chunks whose content changed (new ones included), by chunk number. */
  touched: Set<number>;
  /** Change in the number of members. */
  delta: number;
  /** Changes not applied because the digest already holds a newer version of the lead. */
  stale: number[];
}

/**
 * Applies member changes to the chunks (mutating them), newest version wins: an entry or a
 * removal older than what a chunk holds for the lead is ignored, so changes can arrive in any
 * order and be applied twice. New members go to the last chunk with room, else to a new one.
 */
export function applyChanges(chunks: Map<number, DigestChunk>, changes: DigestChange[], nowMs: number): ApplyResult {
  const where = new Map<number, number>();
  for (const [n, chunk] of chunks) {
    for (const id of chunk.entries.keys()) where.set(id, n);
    for (const id of chunk.gone.keys()) if (!where.has(id)) where.set(id, n);
  }
  const touched = new Set<number>();
  const stale: number[] = [];
  let delta = 0;
  const sizes = () => [...chunks.entries()].map(([n, c]) => ({ n, size: c.entries.size + c.gone.size }));
  const placeNew = (): number => {
    const open = sizes()
      .filter((c) => c.size < DIGEST_CHUNK_CAPACITY)
      .sort((a, b) => b.n - a.n)[0];
    if (open) return open.n;
    const next = Math.max(-1, ...chunks.keys()) + 1;
    chunks.set(next, emptyChunk());
    return next;
  };

  for (const change of changes) {
    const n = where.get(change.id);
    const chunk = n === undefined ? undefined : chunks.get(n);
    const held = chunk?.entries.get(change.id) ?? chunk?.gone.get(change.id);
    if (held && held.version > change.version) {
      stale.push(change.id);
      continue;
    }
    const present = chunk?.entries.has(change.id) ?? false;
    if (change.entry) {
      const target = n ?? placeNew();
      const targetChunk = chunks.get(target) as DigestChunk;
      targetChunk.gone.delete(change.id);
      targetChunk.entries.set(change.id, change.entry);
      where.set(change.id, target);
      touched.add(target);
      if (!present) delta += 1;
    } else {
      const target = n ?? placeNew();
      const targetChunk = chunks.get(target) as DigestChunk;
      targetChunk.entries.delete(change.id);
      targetChunk.gone.set(change.id, { id: change.id, version: change.version, at: nowMs });
      where.set(change.id, target);
      touched.add(target);
      if (present) delta -= 1;
    }
  }
  for (const n of touched) {
    const chunk = chunks.get(n) as DigestChunk;
    for (const [id, tombstone] of chunk.gone) if (nowMs - tombstone.at > TOMBSTONE_TTL_MS) chunk.gone.delete(id);
  }
  return { touched, delta, stale };
}

export interface DigestQuery {
  sortField: string;
  direction: SortDirection;
  filters: ListFilter[];
  offset: number;
  limit: number;
}

/** Whether a member matches every filter (each a case- and accent-insensitive "contains" of any value). */
export const matchesFilters = (entry: DigestEntry, filters: ListFilter[]): boolean =>
  filters.every((filter) => {
    const stored = entry.filter[filter.key];
    if (stored === undefined) return false;
    // Folded before ß, æ, ø, ... were spelt out: folded again, as the filter's values are.
    const value = holdsUndecomposed(stored) ? foldText(stored) : stored;
    return filter.values.some((wanted) => value.includes(wanted));
  });

/**
 * Members in exactly the order the member partition's keys give: by id, or by the field's sort
 * value compared as UTF-8 bytes (as DynamoDB compares strings) with the id breaking ties.
 * Sorts `entries` in place and returns it.
 */
export function orderEntries(entries: DigestEntry[], sortField: string, direction: SortDirection): DigestEntry[] {
  let ordered: DigestEntry[];
  if (sortField === 'id') {
    ordered = entries.sort((a, b) => a.id - b.id);
  } else {
    const keyed = entries.map((entry) => ({ entry, key: Buffer.from(entry.sort[sortField] ?? '', 'utf8') }));
    keyed.sort((a, b) => Buffer.compare(a.key, b.key) || a.entry.id - b.entry.id);
    ordered = keyed.map((k) => k.entry);
  }
  if (direction === 'desc') ordered.reverse();
  return ordered;
}

/** The page's lead ids and the number of members matching the filters, in the member partition's key order. */
export function queryDigest(chunks: Iterable<DigestChunk>, query: DigestQuery): { ids: number[]; matched: number } {
  const found: DigestEntry[] = [];
  for (const chunk of chunks) for (const entry of chunk.entries.values()) if (matchesFilters(entry, query.filters)) found.push(entry);
  const ordered = orderEntries(found, query.sortField, query.direction);
  return { ids: ordered.slice(query.offset, query.offset + query.limit).map((e) => e.id), matched: found.length };
}
