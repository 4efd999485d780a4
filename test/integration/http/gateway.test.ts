import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../../shared/http/route-table';
import { aTimestamp, anId } from '../../support/formats';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

describe('local gateway behaviour', () => {
  let stack: TestStack;
  let user: SignedUpUser;
  let key: string;

  beforeAll(async () => {
    // One key makes dozens of requests here: the per-key limit (a burst of 10) stays out of the way.
    stack = await startTestStack({ rateLimitPerMinute: 100_000 });
    user = await signUp(stack);
    key = (await createKey(stack, user)).key;
  });
  afterAll(async () => stack?.stop());

  it('answers health without auth, with and without the trailing slash', async () => {
    for (const path of ['/health/', '/health']) {
      const response = await stack.call('GET', path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true, status: 'ok' });
    }
  });

  it('answers unknown routes and methods with 404 JSON', async () => {
    for (const [method, path] of [
      ['GET', '/nothing-here/'],
      ['DELETE', '/api-keys/'],
      ['GET', '/api-keys/1/rotate/'],
      // The literal `search` resource, which takes only POST (not the `{prospect_id}` one).
      ['GET', '/public/prospects/search/'],
    ] as const) {
      const response = await stack.call(method, path, { apiKey: key });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toEqual({ error: 'Not found' });
    }
  });

  it('marks every JSON answer no-store and nosniff, the gateway’s own as well as the handlers’', async () => {
    const headersOf = (response: { headers: Headers }) => ['content-type', 'cache-control', 'x-content-type-options'].map((name) => response.headers.get(name));
    expect(headersOf(await stack.call('GET', '/nothing-here/'))).toEqual(['application/json', 'no-store', 'nosniff']);
    expect(headersOf(await stack.call('GET', '/api-keys/'))).toEqual(['application/json', 'no-store', 'nosniff']);
    expect(headersOf(await stack.call('GET', '/api-keys/', { apiKey: key }))).toEqual(['application/json; charset=utf-8', 'no-store', 'nosniff']);
  });

  it('ignores a UTF-8 byte order mark before a JSON body, as some Windows tools write one', async () => {
    const response = await stack.call<{ lead_list: { name: string } }>('POST', '/public/lead-lists/', {
      apiKey: key,
      rawBody: '\uFEFF{"name": "Written with a BOM"}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect([response.status, response.body.lead_list?.name]).toEqual([201, 'Written with a BOM']);
  });

  it('turns bad bodies into 400s with a clear error, never a 500', async () => {
    const cases: [string, string, string][] = [
      ['not json', '{"name": ', 'Request body must be valid JSON'],
      ['empty string', '', 'name is required'],
      ['form encoded', 'name=abc', 'Request body must be valid JSON'],
      ['number', '42', 'Request body must be a JSON object'],
      ['null', 'null', 'name is required'],
      // Nothing a reader sees: a zero-width space and a direction mark (taken before 2026-11-29).
      ['invisible', '{"name": " \\u200b\\u200f "}', 'name is required'],
      ['huge', JSON.stringify({ name: 'x'.repeat(300 * 1024) }), 'Request body too large: at most 262144 bytes'],
      // JSON that spells no Unicode text: it could not be answered as UTF-8 JSON again.
      ['unpaired surrogate', '{"name": "lone \\ud800 key"}', 'Request body must be valid UTF-8 JSON: a string holds an unpaired surrogate (\\ud800-\\udfff)'],
      // Thousands of levels deep (a walk of the body ran out of call stack on it: a 500).
      ['deep', `${'['.repeat(5000)}${']'.repeat(5000)}`, 'Request body must be a JSON object'],
      ['deep object', `{"name": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`, 'name must be a string'],
      ['unpaired surrogate in a key', '{"name": "ok", "x\\udc00": 1}', 'Request body must be valid UTF-8 JSON: a string holds an unpaired surrogate (\\ud800-\\udfff)'],
    ];
    for (const [label, rawBody, error] of cases) {
      const response = await stack.call('POST', '/api-keys/', { apiKey: key, rawBody, headers: { 'Content-Type': 'application/json' } });
      expect(response.status, label).toBe(400);
      expect(response.body, label).toEqual({ error });
    }
    const listed = await stack.call<{ api_keys: unknown[] }>('GET', '/api-keys/', { apiKey: key });
    // Only the key made in beforeAll: no bad body created one.
    expect(listed.body.api_keys).toEqual([
      {
        id: anId(),
        name: 'test key',
        prefix: key.split('.')[0],
        is_active: true,
        last_used: aTimestamp(),
        created_at: aTimestamp(),
        updated_at: aTimestamp(),
      },
    ]);
  });

  it('refuses bodies over the Lambda payload limit at the gateway with 413', async () => {
    const response = await stack.call('POST', '/api-keys/', { apiKey: key, rawBody: 'x'.repeat(6 * 1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ error: 'Request body too large' });
  });

  it('answers a request with headers over 16 KB (a 100 KB query string, a huge header) with 431 JSON', async () => {
    for (const [label, path, headers] of [
      ['query', `/public/lead-lists/?q=${'a'.repeat(100 * 1024)}`, {}],
      ['header', '/public/lead-lists/', { 'x-padding': 'b'.repeat(20 * 1024) }],
    ] as const) {
      const response = await stack.call('GET', path, { apiKey: key, headers });
      expect([response.status, response.body], label).toEqual([431, { error: 'Request headers too large' }]);
    }
  });

  it('treats headers and query parameters named like Object.prototype members as any other name', async () => {
    const created = await stack.call<{ lead_list: { id: number } }>('POST', '/public/lead-lists/', { apiKey: key, body: { name: 'probe' } });
    const listId = created.body.lead_list.id;
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const headers = { [name]: 'x' };
      // An unknown header is ignored: the request succeeds as without it.
      const listed = await stack.call<{ api_keys: unknown[] }>('GET', '/api-keys/', { apiKey: key, headers });
      expect(listed.status, `header ${name}`).toBe(200);
      expect(listed.body.api_keys, `header ${name}`).toHaveLength(1);
      const viaQuery = await stack.call<{ api_keys: unknown[] }>('GET', `/api-keys/?${name}=1`, { apiKey: key });
      expect(viaQuery.status, `query ${name}`).toBe(200);
      expect(viaQuery.body.api_keys, `query ${name}`).toHaveLength(1);
      // Without credentials the same names still get the usual 401, never a 500.
      const anonymous = await stack.call('GET', `/api-keys/?${name}=1`, { headers });
      expect(anonymous.status, `anonymous ${name}`).toBe(401);
      // A route whose unknown query parameters are filters answers its usual 400.
      const leads = await stack.call('GET', `/public/lead-lists/${listId}/leads/?${name}=1`, { apiKey: key, headers });
      expect(leads.status, `leads ${name}`).toBe(400);
      expect(leads.body, `leads ${name}`).toEqual({
        error: `Unknown filter '${name}'. Filters of PEOPLE lists: first_name, last_name, email, phone_number, network_profile_url, job_title, location, headline, industry, company_name, company_industry, company_location, company_size, company_website_url`,
      });
    }
  });

  it('answers a path whose percent-encoding does not decode with 400 Malformed request path, on every route with a parameter', async () => {
    const withParameters = ROUTES.filter((route) => route.path.includes('{'));
    expect(withParameters).toHaveLength(46);
    for (const route of withParameters) {
      const path = route.path.replace('/api/v1', '').replace(/\{[^}]+\}/g, '%ZZ');
      const bodyless = route.method === 'GET' || route.method === 'HEAD';
      const response = await stack.call(route.method, path, { apiKey: key, token: user.token, ...(bodyless ? {} : { body: {} }) });
      expect(response.status, `${route.method} ${path}`).toBe(400);
      // A HEAD answer has no body.
      expect(response.body, `${route.method} ${path}`).toEqual(route.method === 'HEAD' ? {} : { error: 'Malformed request path' });
    }
    const trailing = await stack.call('POST', '/api-keys/%E0%A4%A/rotate/', { apiKey: key });
    expect(trailing.status).toBe(400);
    expect(trailing.body).toEqual({ error: 'Malformed request path' });
  });

  it("applies each route's registered body limit: 256 KB by default, 4 MB for imports", async () => {
    const created = await stack.call<{ lead_list: { id: number } }>('POST', '/public/lead-lists/', { apiKey: key, body: { name: 'limits' } });
    const listId = created.body.lead_list.id;
    const listCount = async () => (await stack.call<{ searches: unknown[] }>('GET', '/public/lead-lists/', { apiKey: key })).body.searches.length;
    const before = await listCount();
    const big = JSON.stringify({ name: 'x', prospect_ids: [1], padding: 'x'.repeat(3.9 * 1024 * 1024) });
    for (const [method, path] of [
      ['POST', '/public/lead-lists/'],
      ['POST', `/public/lead-lists/${listId}/add-leads/`],
      ['DELETE', `/public/lead-lists/${listId}/delete-leads/`],
    ] as const) {
      const response = await stack.call(method, path, { apiKey: key, rawBody: big, headers: { 'Content-Type': 'application/json' } });
      expect(response.status, path).toBe(400);
      expect(response.body, path).toEqual({ error: 'Request body too large: at most 262144 bytes' });
    }
    // No list was created by the refused bodies.
    expect(await listCount()).toBe(before);
    // The import route takes the same body: past the size check, it is judged on its content.
    const imported = await stack.call('POST', `/public/lead-lists/${listId}/import/`, { apiKey: key, rawBody: big, headers: { 'Content-Type': 'application/json' } });
    expect(imported.status).toBe(400);
    expect(imported.body).toEqual({ error: 'name is not a field of a lead list import (fields: leads, csv, mapping)' });
    const tooBigForImport = JSON.stringify({ csv: 'x'.repeat(4 * 1024 * 1024) });
    const refused = await stack.call('POST', `/public/lead-lists/${listId}/import/`, { apiKey: key, rawBody: tooBigForImport, headers: { 'Content-Type': 'application/json' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'Request body too large: at most 4194304 bytes' });
  });
});
