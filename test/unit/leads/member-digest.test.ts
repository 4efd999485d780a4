import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  DIGEST_CHUNK_CAPACITY,
  type DigestChange,
  type DigestChunk,
  type DigestEntry,
  type DigestQuery,
  MalformedDigestError,
  TOMBSTONE_TTL_MS,
  applyChanges,
  decodeChunk,
  emptyChunk,
  encodeChunk,
  queryDigest,
} from '../../../shared/domain/leads/member-digest';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

const entry = (id: number, version: number, sort: Record<string, string> = {}, filter: Record<string, string> = {}): DigestEntry => ({
  id,
  version,
  sort,
  filter,
});
/** The lead (now at `version`) is a member with these values. */
const put = (e: DigestEntry): DigestChange => ({ id: e.id, version: e.version, entry: e });
/** The lead (now at `version`) is no longer a member. */
const drop = (id: number, version: number): DigestChange => ({ id, version });

/** A chunk holding these entries and tombstones ([id, version, at]). */
function chunkOf(entries: DigestEntry[], gone: [number, number, number][] = []): DigestChunk {
  return {
    entries: new Map(entries.map((e) => [e.id, e])),
    gone: new Map(gone.map(([id, version, at]) => [id, { id, version, at }])),
  };
}

/** Member ids per chunk number, ascending: where applyChanges put each member. */
const layout = (chunks: Map<number, DigestChunk>) =>
  Object.fromEntries([...chunks].sort(([a], [b]) => a - b).map(([n, c]) => [n, [...c.entries.keys()].sort((x, y) => x - y)]));
const tombstones = (chunks: Map<number, DigestChunk>) =>
  Object.fromEntries([...chunks].sort(([a], [b]) => a - b).map(([n, c]) => [n, [...c.gone.values()].sort((x, y) => x.id - y.id)]));

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('member digest: encoding', () => {
  it('round-trips entries, their missing sort and filter values, and tombstones', () => {
    const chunk = chunkOf(
      [
        entry(30, 4, { first_name: 'carla', job_title: '\uffff' }, { first_name: 'carla', email: 'c@example.com' }),
        entry(10, 1, { first_name: 'anna' }, { first_name: 'anna', job_title: 'cto' }),
        // No value at all: every column holds null for it, and it decodes with none.
        entry(20, 7),
        // An empty string is a value, not a missing one.
        entry(40, 2, { first_name: '' }, { location: 'zurich' }),
      ],
      [
        [50, 9, NOW - 1000],
        [60, 3, NOW],
      ],
    );
    const decoded = decodeChunk(encodeChunk(chunk));
    expect(decoded).toEqual(chunk);
    expect([...decoded.entries.keys()]).toEqual([10, 20, 30, 40]);
    expect(decoded.entries.get(20)).toEqual({ id: 20, version: 7, sort: {}, filter: {} });
    expect(decoded.entries.get(10)).toEqual({ id: 10, version: 1, sort: { first_name: 'anna' }, filter: { first_name: 'anna', job_title: 'cto' } });
    expect(decoded.entries.get(40)).toEqual({ id: 40, version: 2, sort: { first_name: '' }, filter: { location: 'zurich' } });
    expect([...decoded.gone.values()]).toEqual([
      { id: 50, version: 9, at: NOW - 1000 },
      { id: 60, version: 3, at: NOW },
    ]);
  });

  it('round-trips an empty chunk and non-ASCII values (astral characters included)', () => {
    expect(decodeChunk(encodeChunk(emptyChunk()))).toEqual(emptyChunk());
    const chunk = chunkOf([entry(1, 1, { name: 'ørsted 😀' }, { name: 'ørsted 😀', location: 'zürich' })]);
    expect(decodeChunk(encodeChunk(chunk))).toEqual(chunk);
  });

  it('round-trips members’ companies and campaigns; a chunk written before the campaigns column reads as no campaign', () => {
    const chunk = chunkOf([
      { ...entry(1, 1), companyId: 7, campaignId: 90 },
      { ...entry(2, 3), companyId: 7 },
      { ...entry(3, 1), campaignId: 91 },
      entry(4, 1),
    ]);
    expect(decodeChunk(encodeChunk(chunk))).toEqual(chunk);
    // Without any member in a campaign the column is left out (lists without campaigns keep their bytes).
    const withoutCampaigns = chunkOf([{ ...entry(2, 3), companyId: 7 }, entry(4, 1)]);
    const bytes = encodeChunk(withoutCampaigns);
    expect(Object.keys(JSON.parse(brotliDecompressSync(bytes).toString('utf8')))).not.toContain('campaigns');
    expect(decodeChunk(bytes)).toEqual(withoutCampaigns);
    // As written before campaigns existed: no `campaigns` column at all.
    const old = brotliCompressSync(
      Buffer.from(JSON.stringify({ format: 1, ids: [5, 6], versions: [2, 1], companies: [8, null], sort: {}, filter: {}, gone: [] })),
    );
    expect([...decodeChunk(old).entries.values()]).toEqual([
      { id: 5, version: 2, sort: {}, filter: {}, companyId: 8 },
      { id: 6, version: 1, sort: {}, filter: {} },
    ]);
  });

  it('refuses bytes that are not a chunk, and a chunk of another format', () => {
    expect(() => decodeChunk(new Uint8Array([1, 2, 3, 4]))).toThrow(MalformedDigestError);
    const otherFormat = brotliCompressSync(Buffer.from(JSON.stringify({ format: 2, ids: [], versions: [], sort: {}, filter: {}, gone: [] })));
    expect(() => decodeChunk(otherFormat)).toThrow(new MalformedDigestError('digest chunk of an unknown format'));
    const uneven = brotliCompressSync(Buffer.from(JSON.stringify({ format: 1, ids: [1, 2], versions: [1], sort: {}, filter: {}, gone: [] })));
    expect(() => decodeChunk(uneven)).toThrow(new MalformedDigestError('digest chunk of an unknown format'));
  });
});

describe('member digest: applyChanges', () => {
  it('counts new members (+1 each) into a first chunk', () => {
    const chunks = new Map<number, DigestChunk>();
    const result = applyChanges(chunks, [put(entry(1, 1)), put(entry(2, 1)), put(entry(3, 1))], NOW);
    expect(result).toEqual({ touched: new Set([0]), delta: 3, stale: [] });
    expect(layout(chunks)).toEqual({ 0: [1, 2, 3] });
    expect(tombstones(chunks)).toEqual({ 0: [] });
  });

  it('replaces a member with a newer version without counting it again', () => {
    const chunks = new Map([[0, chunkOf([entry(1, 1, { first_name: 'anna' })])]]);
    const result = applyChanges(chunks, [put(entry(1, 2, { first_name: 'bea' }))], NOW);
    expect(result).toEqual({ touched: new Set([0]), delta: 0, stale: [] });
    expect(chunks.get(0)?.entries.get(1)).toEqual(entry(1, 2, { first_name: 'bea' }));
  });

  it('removes a member (−1) and leaves a tombstone with the removal’s version and time', () => {
    const chunks = new Map([[0, chunkOf([entry(1, 1), entry(2, 1)])]]);
    const result = applyChanges(chunks, [drop(2, 2)], NOW);
    expect(result).toEqual({ touched: new Set([0]), delta: -1, stale: [] });
    expect(layout(chunks)).toEqual({ 0: [1] });
    expect(tombstones(chunks)).toEqual({ 0: [{ id: 2, version: 2, at: NOW }] });
  });

  it('records the removal of a lead it never held as a tombstone, without moving the count', () => {
    const chunks = new Map([[0, chunkOf([entry(1, 1)])]]);
    const result = applyChanges(chunks, [drop(9, 4)], NOW);
    expect(result).toEqual({ touched: new Set([0]), delta: 0, stale: [] });
    expect(tombstones(chunks)).toEqual({ 0: [{ id: 9, version: 4, at: NOW }] });
    // A delayed add of an older version of that lead stays out.
    expect(applyChanges(chunks, [put(entry(9, 3))], NOW)).toEqual({ touched: new Set(), delta: 0, stale: [9] });
    expect(layout(chunks)).toEqual({ 0: [1] });
  });

  it('ignores (stale) an entry or a removal older than the version it holds', () => {
    const chunks = new Map([[0, chunkOf([entry(1, 5, { first_name: 'new' })])]]);
    expect(applyChanges(chunks, [put(entry(1, 4, { first_name: 'old' }))], NOW)).toEqual({ touched: new Set(), delta: 0, stale: [1] });
    expect(applyChanges(chunks, [drop(1, 3)], NOW)).toEqual({ touched: new Set(), delta: 0, stale: [1] });
    expect(chunks.get(0)).toEqual(chunkOf([entry(1, 5, { first_name: 'new' })]));
  });

  it('keeps a removed lead out when an older add arrives after the removal, and lets a newer one back in', () => {
    const chunks = new Map([[0, chunkOf([entry(1, 1), entry(2, 1)])]]);
    expect(applyChanges(chunks, [drop(1, 5)], NOW).delta).toBe(-1);
    // Changes arrive in any order: the add of version 4 was written before the removal of version 5.
    expect(applyChanges(chunks, [put(entry(1, 4))], NOW + 1)).toEqual({ touched: new Set(), delta: 0, stale: [1] });
    expect(layout(chunks)).toEqual({ 0: [2] });
    expect(tombstones(chunks)).toEqual({ 0: [{ id: 1, version: 5, at: NOW }] });
    expect(applyChanges(chunks, [put(entry(1, 6))], NOW + 2)).toEqual({ touched: new Set([0]), delta: 1, stale: [] });
    expect(layout(chunks)).toEqual({ 0: [1, 2] });
    expect(tombstones(chunks)).toEqual({ 0: [] });
  });

  it('applies a batch of changes twice with the same result: the replay moves no count', () => {
    const chunks = new Map([[0, chunkOf([entry(1, 1), entry(2, 1), entry(3, 1)])]]);
    const changes = [put(entry(4, 1)), put(entry(2, 2, { first_name: 'x' })), drop(3, 2), drop(8, 1)];
    expect(applyChanges(chunks, changes, NOW)).toEqual({ touched: new Set([0]), delta: 0, stale: [] });
    const once = decodeChunk(encodeChunk(chunks.get(0) as DigestChunk));
    expect(applyChanges(chunks, changes, NOW)).toEqual({ touched: new Set([0]), delta: 0, stale: [] });
    expect(chunks.get(0)).toEqual(once);
    expect(layout(chunks)).toEqual({ 0: [1, 2, 4] });
    expect(tombstones(chunks)).toEqual({
      0: [
        { id: 3, version: 2, at: NOW },
        { id: 8, version: 1, at: NOW },
      ],
    });
  });

  it('counts a batch that adds and removes: +2 −1', () => {
    const chunks = new Map([[0, chunkOf([entry(1, 1), entry(2, 1)])]]);
    expect(applyChanges(chunks, [put(entry(3, 1)), put(entry(4, 1)), drop(1, 2)], NOW)).toEqual({ touched: new Set([0]), delta: 1, stale: [] });
    expect(layout(chunks)).toEqual({ 0: [2, 3, 4] });
  });

  it('prunes tombstones older than TOMBSTONE_TTL_MS from the chunks it touches, and only from those', () => {
    const old = NOW - TOMBSTONE_TTL_MS - 1;
    const edge = NOW - TOMBSTONE_TTL_MS;
    const chunks = new Map([
      [0, chunkOf([entry(1, 1)], [[10, 2, old], [11, 2, edge], [12, 2, NOW - 1]])],
      [1, chunkOf([entry(2, 1)], [[20, 2, old]])],
    ]);
    const result = applyChanges(chunks, [put(entry(1, 2))], NOW);
    expect(result).toEqual({ touched: new Set([0]), delta: 0, stale: [] });
    expect(tombstones(chunks)).toEqual({
      // Exactly TOMBSTONE_TTL_MS old is kept; one millisecond more is pruned.
      0: [
        { id: 11, version: 2, at: edge },
        { id: 12, version: 2, at: NOW - 1 },
      ],
      // Untouched: its old tombstone stays until a change lands in it.
      1: [{ id: 20, version: 2, at: old }],
    });
    // Once pruned, an older add is no longer recognised as stale (the TTL bounds how late a write may
    // arrive): it is a new member, placed in the last chunk with room, whose old tombstone goes too.
    expect(applyChanges(chunks, [put(entry(10, 1))], NOW)).toEqual({ touched: new Set([1]), delta: 1, stale: [] });
    expect(layout(chunks)).toEqual({ 0: [1], 1: [2, 10] });
    expect(tombstones(chunks)[1]).toEqual([]);
  });

  it('puts new members in the last chunk with room, tombstones counting as room taken', () => {
    const full = chunkOf(range(1, DIGEST_CHUNK_CAPACITY).map((id) => entry(id, 1)));
    const chunks = new Map([
      [0, full],
      [1, chunkOf([entry(1000, 1)])],
    ]);
    expect(applyChanges(chunks, [put(entry(2000, 1))], NOW)).toEqual({ touched: new Set([1]), delta: 1, stale: [] });
    expect(layout(chunks)[1]).toEqual([1000, 2000]);

    // The last chunk is full (entries and tombstones), an earlier one has room: the earlier one takes it.
    const roomy = chunkOf(range(1, DIGEST_CHUNK_CAPACITY - 1).map((id) => entry(id, 1)));
    const lastFull = chunkOf(
      range(1000, DIGEST_CHUNK_CAPACITY - 2).map((id) => entry(id, 1)),
      [
        [5000, 2, NOW],
        [5001, 2, NOW],
      ],
    );
    const again = new Map([
      [0, roomy],
      [1, lastFull],
    ]);
    expect(applyChanges(again, [put(entry(3000, 1))], NOW)).toEqual({ touched: new Set([0]), delta: 1, stale: [] });
    expect(again.get(0)?.entries.size).toBe(DIGEST_CHUNK_CAPACITY);
    expect(again.get(0)?.entries.has(3000)).toBe(true);
    // Now every chunk is full: a new chunk after the highest is started.
    expect(applyChanges(again, [put(entry(3001, 1))], NOW)).toEqual({ touched: new Set([2]), delta: 1, stale: [] });
    expect(layout(again)[2]).toEqual([3001]);
  });

  it('starts a new chunk beyond DIGEST_CHUNK_CAPACITY members', () => {
    const chunks = new Map<number, DigestChunk>();
    const ids = range(1, DIGEST_CHUNK_CAPACITY + 1);
    const result = applyChanges(chunks, ids.map((id) => put(entry(id, 1))), NOW);
    expect(result).toEqual({ touched: new Set([0, 1]), delta: DIGEST_CHUNK_CAPACITY + 1, stale: [] });
    expect(layout(chunks)).toEqual({ 0: range(1, DIGEST_CHUNK_CAPACITY), 1: [DIGEST_CHUNK_CAPACITY + 1] });
    // A member already held is updated where it is, even in a full chunk.
    expect(applyChanges(chunks, [put(entry(5, 2))], NOW)).toEqual({ touched: new Set([0]), delta: 0, stale: [] });
    expect(chunks.get(0)?.entries.get(5)?.version).toBe(2);
    // A removed member's tombstone stays in its chunk; its return lands there too.
    applyChanges(chunks, [drop(7, 2)], NOW);
    expect(tombstones(chunks)[0]).toEqual([{ id: 7, version: 2, at: NOW }]);
    expect(applyChanges(chunks, [put(entry(7, 3))], NOW)).toEqual({ touched: new Set([0]), delta: 1, stale: [] });
    expect(layout(chunks)).toEqual({ 0: range(1, DIGEST_CHUNK_CAPACITY), 1: [DIGEST_CHUNK_CAPACITY + 1] });
  });
});

describe('member digest: queryDigest', () => {
  /** Members over two chunks, with folded filter values as projections store them. */
  const members = [
    entry(7, 1, { first_name: 'carla', job_title: 'vp sales' }, { first_name: 'carla', job_title: 'vp sales', location: 'utrecht' }),
    entry(3, 1, { first_name: 'anna', job_title: 'cto' }, { first_name: 'anna', job_title: 'cto', location: 'amsterdam' }),
    entry(12, 2, { first_name: 'bob', job_title: '\uffff' }, { first_name: 'bob', location: 'zurich' }),
    entry(5, 1, { first_name: 'anna', job_title: 'cfo' }, { first_name: 'anna', job_title: 'cfo', location: 'berlin' }),
    entry(9, 3, { first_name: 'ann', job_title: 'head of growth' }, { first_name: 'ann', job_title: 'head of growth' }),
  ];
  const chunks = [chunkOf(members.slice(0, 3)), chunkOf(members.slice(3), [[4, 2, NOW]])];
  const query = (overrides: Partial<DigestQuery>): DigestQuery => ({ sortField: 'id', direction: 'asc', filters: [], offset: 0, limit: 100, ...overrides });

  it('orders by id, ascending and descending, across chunks; tombstones are not members', () => {
    expect(queryDigest(chunks, query({}))).toEqual({ ids: [3, 5, 7, 9, 12], matched: 5 });
    expect(queryDigest(chunks, query({ direction: 'desc' }))).toEqual({ ids: [12, 9, 7, 5, 3], matched: 5 });
  });

  it('orders by a sort value, ties broken by id (reversed whole when descending); a prefix sorts before its extensions', () => {
    expect(queryDigest(chunks, query({ sortField: 'first_name' }))).toEqual({ ids: [9, 3, 5, 12, 7], matched: 5 });
    expect(queryDigest(chunks, query({ sortField: 'first_name', direction: 'desc' }))).toEqual({ ids: [7, 12, 5, 3, 9], matched: 5 });
    // '\uffff' (a blank) sorts after every other value ascending.
    expect(queryDigest(chunks, query({ sortField: 'job_title' }))).toEqual({ ids: [5, 3, 9, 7, 12], matched: 5 });
    expect(queryDigest(chunks, query({ sortField: 'job_title', direction: 'desc' }))).toEqual({ ids: [12, 7, 9, 3, 5], matched: 5 });
  });

  it('compares sort values as UTF-8 bytes, as DynamoDB compares keys, not as UTF-16 code units', () => {
    const values: [number, string][] = [
      [1, '\uffff'],
      [2, '😀'],
      [3, 'z'],
      [4, 'é'],
      [5, 'ø'],
      [6, '\ue000'],
      [7, 'zz'],
      [8, ''],
    ];
    // In JavaScript's own order the astral '😀' (a surrogate pair, D83D DE00) sorts before '\ue000' and '\uffff'...
    expect([...values].sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id]) => id)).toEqual([8, 3, 7, 4, 5, 2, 6, 1]);
    // ...while in UTF-8 bytes (F0 9F 98 80) it sorts after both (EE 80 80, EF BF BF).
    expect(Buffer.compare(Buffer.from('😀'), Buffer.from('\uffff'))).toBe(1);
    const digest = [chunkOf(values.map(([id, value]) => entry(id, 1, { name: value })))];
    expect(queryDigest(digest, query({ sortField: 'name' }))).toEqual({ ids: [8, 3, 7, 4, 5, 6, 1, 2], matched: 8 });
    expect(queryDigest(digest, query({ sortField: 'name', direction: 'desc' }))).toEqual({ ids: [2, 1, 6, 5, 4, 7, 3, 8], matched: 8 });
  });

  it('sorts a member without the sort value as the empty string, first ascending', () => {
    const digest = [chunkOf([entry(1, 1, { name: 'a' }), entry(2, 1), entry(3, 1, { name: '' })])];
    expect(queryDigest(digest, query({ sortField: 'name' }))).toEqual({ ids: [2, 3, 1], matched: 3 });
  });

  it('filters: a value folded before ß, ø, ... were spelt out still matches the filter as it is folded now', () => {
    const legacy = [chunkOf([entry(1, 1, {}, { location: 'hauptstraße 5' }), entry(2, 1, {}, { location: 'ørsted' }), entry(3, 1, {}, { location: 'hauptstrasse 7' })])];
    const where = (value: string) => query({ filters: [{ key: 'location', values: [value] }] });
    expect(queryDigest(legacy, where('strasse'))).toEqual({ ids: [1, 3], matched: 2 });
    expect(queryDigest(legacy, where('orsted'))).toEqual({ ids: [2], matched: 1 });
  });

  it('filters: contains, any value of a key (OR), every key (AND); a member without the field never matches', () => {
    const f = (filters: DigestQuery['filters']) => queryDigest(chunks, query({ filters }));
    expect(f([{ key: 'job_title', values: ['c'] }])).toEqual({ ids: [3, 5], matched: 2 });
    expect(f([{ key: 'job_title', values: ['o'] }])).toEqual({ ids: [3, 5, 9], matched: 3 });
    expect(f([{ key: 'job_title', values: ['cto', 'growth'] }])).toEqual({ ids: [3, 9], matched: 2 });
    expect(f([{ key: 'first_name', values: ['ann'] }])).toEqual({ ids: [3, 5, 9], matched: 3 });
    expect(f([{ key: 'first_name', values: ['ann'] }, { key: 'job_title', values: ['cfo', 'growth'] }])).toEqual({ ids: [5, 9], matched: 2 });
    // Bob has no job title: not even the empty string matches a missing field.
    expect(f([{ key: 'job_title', values: [''] }])).toEqual({ ids: [3, 5, 7, 9], matched: 4 });
    expect(f([{ key: 'location', values: ['zurich'] }, { key: 'job_title', values: [''] }])).toEqual({ ids: [], matched: 0 });
    expect(f([{ key: 'email', values: ['a'] }])).toEqual({ ids: [], matched: 0 });
    // Values are compared as stored: the caller folds them (the query schema does).
    expect(f([{ key: 'first_name', values: ['ANNA'] }])).toEqual({ ids: [], matched: 0 });
  });

  it('slices the ordered matches by offset and limit and counts every match', () => {
    const sorted = { sortField: 'first_name' } as const;
    expect(queryDigest(chunks, query({ ...sorted, offset: 0, limit: 2 }))).toEqual({ ids: [9, 3], matched: 5 });
    expect(queryDigest(chunks, query({ ...sorted, offset: 2, limit: 2 }))).toEqual({ ids: [5, 12], matched: 5 });
    expect(queryDigest(chunks, query({ ...sorted, offset: 4, limit: 2 }))).toEqual({ ids: [7], matched: 5 });
    expect(queryDigest(chunks, query({ ...sorted, offset: 5, limit: 2 }))).toEqual({ ids: [], matched: 5 });
    expect(queryDigest(chunks, query({ ...sorted, direction: 'desc', offset: 1, limit: 3 }))).toEqual({ ids: [12, 5, 3], matched: 5 });
    expect(queryDigest(chunks, query({ filters: [{ key: 'location', values: ['r'] }], offset: 1, limit: 1 }))).toEqual({ ids: [5], matched: 4 });
  });

  it('answers an empty digest with no ids and no matches', () => {
    expect(queryDigest([], query({ sortField: 'first_name' }))).toEqual({ ids: [], matched: 0 });
    expect(queryDigest([emptyChunk()], query({ filters: [{ key: 'first_name', values: ['a'] }] }))).toEqual({ ids: [], matched: 0 });
  });
});
