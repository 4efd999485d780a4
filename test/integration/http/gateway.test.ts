import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aTimestamp, anId } from '../../support/formats';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

describe('local gateway behaviour', () => {
  let stack: TestStack;
  let user: SignedUpUser;
  let key: string;

  beforeAll(async () => {
    stack = await startTestStack();
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
    ] as const) {
      const response = await stack.call(method, path, { apiKey: key });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toEqual({ error: 'Not found' });
    }
  });

  it('turns bad bodies into 400s with a clear error, never a 500', async () => {
    const cases: [string, string, string][] = [
      ['not json', '{"name": ', 'Request body must be valid JSON'],
      ['empty string', '', 'name is required'],
      ['form encoded', 'name=abc', 'Request body must be valid JSON'],
      ['number', '42', 'Request body must be a JSON object'],
      ['null', 'null', 'name is required'],
      ['huge', JSON.stringify({ name: 'x'.repeat(300 * 1024) }), 'Request body too large: at most 262144 bytes'],
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
});
