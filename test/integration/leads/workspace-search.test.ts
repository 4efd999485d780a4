import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestStack, createKey, signUp } from '../../support/test-stack';
import {
  type CompanyView,
  type ProspectView,
  type Workspace,
  createList,
  importLeads,
  leadsStack,
  person,
} from './helpers';
import { type SearchResponse, searchAs } from './search-helpers';

/** WORKSPACE search paged by cursor: each prospect once, filters, companies, exact counts, cursors refused. */
describe('prospect search: source WORKSPACE, paged by cursor', () => {
  let stack: TestStack;

  const search = <T = ProspectView>(ws: Workspace, body: unknown) => searchAs<T>(stack, ws, body);

  beforeAll(async () => {
    ({ stack } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  const freshWorkspace = async (): Promise<Workspace> => {
    const user = await signUp(stack);
    return { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
  };

  /** Follows next_cursor from the first page to the end; every page's body. */
  async function allPages<T>(ws: Workspace, body: Record<string, unknown>): Promise<SearchResponse<T>[]> {
    const pages: SearchResponse<T>[] = [];
    let cursor: string | null | undefined;
    do {
      const response = await search<T>(ws, { ...body, ...(cursor ? { cursor } : {}) });
      expect(response.status, response.text).toBe(200);
      pages.push(response.body);
      cursor = response.body.next_cursor;
    } while (cursor && pages.length < 50);
    return pages;
  }


  it('gives every prospect exactly once, in id order, page_size at a time, then next_cursor null; total_count exact', async () => {
    const carol = await freshWorkspace();
    const list = await createList(stack, carol, 'Seven');
    const ids = (await importLeads(stack, carol, list.id, { leads: [1, 2, 3, 4, 5, 6, 7].map((n) => person(n)) })).leads.map((l) => l.id);
    const pages = await allPages<ProspectView>(carol, { source: 'WORKSPACE', page_size: 3 });
    expect(pages.map((page) => page.results.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap((page) => page.results.map((r) => r.id))).toEqual([...ids].sort((a, b) => a - b));
    expect(pages.map((page) => page.total_count)).toEqual([7, 7, 7]);
    expect(pages.map((page) => typeof page.next_cursor)).toEqual(['string', 'string', 'object']);
    expect(pages[2]?.next_cursor).toBeNull();
    // `page` without a cursor reads forward to the same place; with a cursor it is only echoed.
    const second = await search(carol, { source: 'WORKSPACE', page_size: 3, page: 2 });
    expect(second.body.results.map((r) => r.id)).toEqual(pages[1]?.results.map((r) => r.id));
    expect(second.body.next_cursor).toBe(pages[1]?.next_cursor);
    const echoed = await search(carol, { source: 'WORKSPACE', page_size: 3, page: 9, cursor: pages[0]?.next_cursor });
    expect(echoed.body).toMatchObject({ page: 9, page_size: 3, total_count: 7 });
    expect(echoed.body.results.map((r) => r.id)).toEqual(pages[1]?.results.map((r) => r.id));
    // The end is known when the last page is exactly full, and a page_size may change between pages.
    const whole = await search(carol, { source: 'WORKSPACE', page_size: 7 });
    expect(whole.body.results).toHaveLength(7);
    expect(whole.body.next_cursor).toBeNull();
    const rest = await search(carol, { source: 'WORKSPACE', page_size: 10, cursor: pages[0]?.next_cursor });
    expect(rest.body.results.map((r) => r.id)).toEqual(pages.slice(1).flatMap((page) => page.results.map((r) => r.id)));
    expect(rest.body.next_cursor).toBeNull();
    // `cursor: null` is the first page, and so is `cursor: ""`, as an empty `?cursor=` is for the lists.
    for (const none of [null, '']) {
      const first = await search(carol, { source: 'WORKSPACE', page_size: 3, cursor: none });
      expect(first.body).toMatchObject({ next_cursor: pages[0]?.next_cursor });
      expect(first.body.results.map((r) => r.id)).toEqual(pages[0]?.results.map((r) => r.id));
    }
  });

  it('applies filters page by page: only matches, each once; total_count null; archived prospects left out', async () => {
    const dave = await freshWorkspace();
    const list = await createList(stack, dave, 'Mixed');
    const rows = Array.from({ length: 11 }, (_, i) =>
      person(100 + i, {
        job_title: i % 3 === 0 ? 'Platform Engineer' : 'Account Executive',
        company_name: i % 2 === 0 ? 'Even Corp' : 'Odd Ltd',
      }),
    );
    const ids = (await importLeads(stack, dave, list.id, { leads: rows })).leads.map((l) => l.id);
    const engineers = ids.filter((_, i) => i % 3 === 0).sort((a, b) => a - b);
    const pages = await allPages<ProspectView>(dave, { source: 'WORKSPACE', page_size: 2, filters: { job_title: 'engineer' } });
    expect(pages.flatMap((page) => page.results.map((r) => r.id))).toEqual(engineers);
    expect(pages.map((page) => page.results.length)).toEqual([2, 2]);
    expect(pages.every((page) => page.total_count === null)).toBe(true);
    // A filter on the company's values, and one that both sides of the pages must match.
    const evenEngineers = ids.filter((_, i) => i % 3 === 0 && i % 2 === 0).sort((a, b) => a - b);
    const both = await allPages<ProspectView>(dave, {
      source: 'WORKSPACE',
      page_size: 1,
      filters: { job_title: 'engineer', company_name: 'even corp' },
    });
    expect(both.flatMap((page) => page.results.map((r) => [r.id, r.company?.name]))).toEqual(evenEngineers.map((id) => [id, 'Even Corp']));
    expect(both.at(-1)?.next_cursor).toBeNull();
    // The same filters written another way (case, array, alias) continue the same search.
    const again = await search(dave, { source: 'WORKSPACE', page_size: 2, filters: { current_title: ['ENGINEER'] }, cursor: pages[0]?.next_cursor });
    expect(again.status, again.text).toBe(200);
    expect(again.body.results.map((r) => r.id)).toEqual(pages[1]?.results.map((r) => r.id));
    // An archived prospect drops out of the pages still to come.
    await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: dave.key, body: { prospect_ids: [engineers[2]] } });
    const afterArchive = await search(dave, { source: 'WORKSPACE', page_size: 2, filters: { job_title: 'engineer' }, cursor: pages[0]?.next_cursor });
    expect(afterArchive.body.results.map((r) => r.id)).toEqual([engineers[3]]);
    expect(afterArchive.body.next_cursor).toBeNull();
  });

  it('pages companies by cursor too, with their exact count', async () => {
    const erin = await freshWorkspace();
    const list = await createList(stack, erin, 'People at five companies');
    await importLeads(stack, erin, list.id, { leads: [1, 2, 3, 4, 5].map((n) => person(200 + n, { company_name: `Company ${n}` })) });
    const pages = await allPages<CompanyView>(erin, { search_type: 'COMPANY', source: 'WORKSPACE', page_size: 2 });
    expect(pages.flatMap((page) => page.results.map((c) => c.name))).toEqual(['Company 1', 'Company 2', 'Company 3', 'Company 4', 'Company 5']);
    expect(pages.map((page) => page.total_count)).toEqual([5, 5, 5]);
    const filtered = await allPages<CompanyView>(erin, { search_type: 'COMPANY', source: 'WORKSPACE', page_size: 1, filters: { name: ['company 2', 'company 5'] } });
    expect(filtered.flatMap((page) => page.results.map((c) => c.name))).toEqual(['Company 2', 'Company 5']);
    expect(filtered.map((page) => page.total_count)).toEqual([null, null]);
  });

  it('keeps total_count exact: archiving a prospect takes one off, adding it back to a list puts it back, concurrent imports all count', async () => {
    const frank = await freshWorkspace();
    const count = async (searchType = 'PEOPLE') => (await search(frank, { search_type: searchType, source: 'WORKSPACE', page_size: 1 })).body.total_count;
    expect(await count()).toBe(0);
    const list = await createList(stack, frank, 'Counted');
    const ids = (
      await importLeads(stack, frank, list.id, { leads: [1, 2, 3].map((n) => person(300 + n, { company_name: `Counted ${n % 2}` })) })
    ).leads.map((l) => l.id);
    expect(await count()).toBe(3);
    expect(await count('COMPANY')).toBe(2);
    // Importing the same people again changes nothing.
    await importLeads(stack, frank, list.id, { leads: [1, 2, 3].map((n) => person(300 + n)) });
    expect(await count()).toBe(3);
    const deleted = await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: frank.key, body: { prospect_ids: [ids[0]] } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await count()).toBe(2);
    // Archiving an archived prospect again moves nothing.
    await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: frank.key, body: { prospect_ids: [ids[0]] } });
    expect(await count()).toBe(2);
    const unfiltered = await allPages<ProspectView>(frank, { source: 'WORKSPACE', page_size: 1 });
    expect(unfiltered.flatMap((page) => page.results.map((r) => r.id))).toEqual(ids.slice(1).sort((a, b) => (a as number) - (b as number)));
    const restored = await stack.call('POST', `/public/lead-lists/${list.id}/add-leads/`, { apiKey: frank.key, body: { prospect_ids: [ids[0]] } });
    expect(restored.status, restored.text).toBe(200);
    expect(await count()).toBe(3);
    expect(await count('COMPANY')).toBe(2);
    const lists = await Promise.all([createList(stack, frank, 'A'), createList(stack, frank, 'B')]);
    await Promise.all(
      lists.map((l, k) => importLeads(stack, frank, l.id, { leads: Array.from({ length: 20 }, (_, i) => person(400 + k * 100 + i)) })),
    );
    expect(await count()).toBe(43);
  });

  it('refuses with 400 a cursor of another workspace, search type or filter set, an edited one, and any cursor with DIRECTORY', async () => {
    const [george, helen] = await Promise.all([freshWorkspace(), freshWorkspace()]);
    for (const ws of [george, helen]) {
      const list = await createList(stack, ws, 'Three');
      await importLeads(stack, ws, list.id, { leads: [1, 2, 3].map((n) => person(500 + n, { company_name: `Cursor Co ${n}` })) });
    }
    const cursorOf = async (ws: Workspace, body: Record<string, unknown>) => {
      const response = await search(ws, { source: 'WORKSPACE', page_size: 1, ...body });
      expect(response.status, response.text).toBe(200);
      expect(response.body.next_cursor).toEqual(expect.any(String));
      return response.body.next_cursor as string;
    };
    const refused = async (ws: Workspace, body: Record<string, unknown>, error = 'cursor is not valid for this search') => {
      const response = await search(ws, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toEqual({ error });
    };
    const plain = await cursorOf(george, {});
    const filtered = await cursorOf(george, { filters: { keywords: 'first' } });
    // Each is good for its own search.
    expect((await search(george, { source: 'WORKSPACE', page_size: 1, cursor: plain })).status).toBe(200);
    expect((await search(george, { source: 'WORKSPACE', page_size: 1, cursor: filtered, filters: { keywords: 'FIRST' } })).status).toBe(200);

    await refused(helen, { source: 'WORKSPACE', cursor: plain });
    await refused(george, { source: 'WORKSPACE', search_type: 'COMPANY', cursor: plain });
    await refused(george, { source: 'WORKSPACE', cursor: filtered });
    await refused(george, { source: 'WORKSPACE', cursor: plain, filters: { keywords: 'first' } });
    await refused(george, { source: 'WORKSPACE', cursor: filtered, filters: { keywords: 'last' } });
    // Edited: another position, one character changed, not a cursor at all, far too long.
    const [version, after, check] = Buffer.from(plain, 'base64url').toString('utf8').split('.');
    await refused(george, { source: 'WORKSPACE', cursor: Buffer.from(`${version}.${Number(after) + 1}.${check}`).toString('base64url') });
    await refused(george, { source: 'WORKSPACE', cursor: `${plain.slice(0, -1)}${plain.endsWith('A') ? 'B' : 'A'}` });
    await refused(george, { source: 'WORKSPACE', cursor: `${plain.slice(0, 10)}${plain.slice(11)}` });
    await refused(george, { source: 'WORKSPACE', cursor: 'not a cursor!' });
    await refused(george, { source: 'WORKSPACE', cursor: 'A'.repeat(201) });
    await refused(george, { source: 'WORKSPACE', cursor: 5 }, 'cursor must be a string');
    // The directory has no cursor (its pages are `page`): refused before it is asked.
    await refused(george, { cursor: plain }, 'cursor is only accepted with source WORKSPACE');
    await refused(george, { source: 'DIRECTORY', cursor: 'anything' }, 'cursor is only accepted with source WORKSPACE');
    const directory = await search(george, { filters: { job_title: 'CTO' }, page_size: 1, cursor: null });
    expect(directory.body).toMatchObject({ source: 'DIRECTORY', next_cursor: null, total_count: expect.any(Number) });
  });
});
