import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type Workspace, leadsStack } from '../leads/helpers';
import type { TestStack } from '../../support/test-stack';

interface Entry {
  id: number;
  type: string;
  value: string;
  reason: string;
  prospect_id: number | null;
  campaign_id: number | null;
  created_at: string;
}

/** The workspace suppression list through its API: validation, normalization, paging, delete and isolation. */
describe('the suppression list API', () => {
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack({ clock }));
  });
  afterAll(async () => stack?.stop());

  const add = (ws: Workspace, body: unknown) => stack.call<{ added: Entry[]; already_suppressed: Entry[]; error?: string }>('POST', '/public/suppressions/', { apiKey: ws.key, body });
  const list = (ws: Workspace, cursor?: string) =>
    stack.call<{ suppressions: Entry[]; next_cursor: string | null; error?: string }>('GET', `/public/suppressions/${cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`}`, { apiKey: ws.key });

  it('refuses bad input with a 400 naming the problem', async () => {
    const cases: [unknown, string][] = [
      [{}, 'Give at least one value in emails or domains'],
      [{ emails: [] }, 'Give at least one value in emails or domains'],
      [{ emails: 'a@b.co' }, 'emails must be an array'],
      [{ emails: [7] }, 'emails must hold strings'],
      [{ emails: ['not-an-email'] }, 'emails: "not-an-email" is not an email address'],
      [{ emails: ['a@localhost'] }, 'emails: "a@localhost" is not an email address'],
      [{ domains: ['bad domain.com'] }, 'domains: "bad domain.com" is not a domain name'],
      [{ domains: ['-x.com'] }, 'domains: "-x.com" is not a domain name'],
      [{ emails: ['a@b.co'], phones: ['1'] }, 'Unknown field phones: expected emails and/or domains'],
      [{ emails: Array.from({ length: 1001 }, (_, i) => `p${i}@x.co`) }, 'emails: at most 1000 values'],
      [
        { emails: Array.from({ length: 600 }, (_, i) => `p${i}@x.co`), domains: Array.from({ length: 401 }, (_, i) => `d${i}.co`) },
        'At most 1000 values a request (emails and domains together)',
      ],
    ];
    for (const [body, error] of cases) {
      const response = await add(alice, body);
      expect([response.status, response.body], JSON.stringify(body).slice(0, 80)).toEqual([400, { error }]);
    }
    expect((await list(alice)).body.suppressions).toEqual([]);
    expect((await stack.call('POST', '/public/suppressions/', { apiKey: alice.key, rawBody: '{"emails":', headers: { 'content-type': 'application/json' } })).body).toEqual({
      error: 'Request body must be valid JSON',
    });
  });

  it('adds lowercased values once, and says which were there already', async () => {
    const first = await add(alice, { emails: [' Ada@Example.COM ', 'ada@example.com'], domains: ['Spam.Example.'] });
    expect(first.status, first.text).toBe(200);
    expect(first.body.added.map((entry) => [entry.type, entry.value, entry.reason, entry.prospect_id, entry.campaign_id, entry.created_at])).toEqual([
      ['EMAIL', 'ada@example.com', 'MANUAL', null, null, '2026-11-23T09:00:00.000Z'],
      ['DOMAIN', 'spam.example', 'MANUAL', null, null, '2026-11-23T09:00:00.000Z'],
    ]);
    expect(first.body.already_suppressed).toEqual([]);
    clock.advance(60_000);
    const second = await add(alice, { emails: ['ADA@example.com', 'alan@example.com'] });
    expect(second.body.added.map((entry) => [entry.value, entry.created_at])).toEqual([['alan@example.com', '2026-11-23T09:01:00.000Z']]);
    expect(second.body.already_suppressed).toEqual([first.body.added[0]]);
  });

  it('pages the list in id order with a cursor, and refuses a cursor that is not one', async () => {
    const many = await add(alice, { emails: Array.from({ length: 150 }, (_, i) => `bulk${i}@example.com`) });
    expect(many.body.added).toHaveLength(150);
    const pageOne = await list(alice);
    expect(pageOne.status).toBe(200);
    expect(pageOne.body.suppressions).toHaveLength(100);
    expect(pageOne.body.next_cursor).toEqual(expect.any(String));
    const pageTwo = await list(alice, pageOne.body.next_cursor as string);
    expect(pageTwo.body.suppressions).toHaveLength(53);
    expect(pageTwo.body.next_cursor).toBeNull();
    const all = [...pageOne.body.suppressions, ...pageTwo.body.suppressions];
    const ids = all.map((entry) => entry.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(all.map((entry) => entry.value)).size).toBe(153);
    for (const cursor of ['!!', 'bm90LWFuLWlk', 'MA']) {
      expect([(await list(alice, cursor)).status, (await list(alice, cursor)).body], cursor).toEqual([400, { error: 'cursor is not valid' }]);
    }
  });

  it('deletes an entry by id, 404 for an unknown id or another workspace’s', async () => {
    const [entry] = (await list(alice)).body.suppressions as [Entry];
    const fromBob = await stack.call('DELETE', `/public/suppressions/${entry.id}/`, { apiKey: bob.key });
    expect([fromBob.status, fromBob.body]).toEqual([404, { error: 'Suppression not found' }]);
    expect((await stack.call('GET', '/public/suppressions/', { apiKey: bob.key })).body).toEqual({ success: true, suppressions: [], next_cursor: null });

    const deleted = await stack.call('DELETE', `/public/suppressions/${entry.id}/`, { apiKey: alice.key });
    expect([deleted.status, deleted.body]).toEqual([200, { success: true, suppression: entry }]);
    const again = await stack.call('DELETE', `/public/suppressions/${entry.id}/`, { apiKey: alice.key });
    expect([again.status, again.body]).toEqual([404, { error: 'Suppression not found' }]);
    expect((await stack.call('DELETE', '/public/suppressions/abc/', { apiKey: alice.key })).status).toBe(404);
    expect((await list(alice)).body.suppressions.map((e) => e.id)).not.toContain(entry.id);
    // The value can be suppressed again: a new entry.
    const readded = await add(alice, { emails: [entry.value] });
    expect(readded.body.added.map((e) => e.value)).toEqual([entry.value]);
    expect(readded.body.added[0]?.id).not.toBe(entry.id);
  });

  it('needs an API key', async () => {
    expect((await stack.call('GET', '/public/suppressions/')).status).toBe(401);
  });
});
