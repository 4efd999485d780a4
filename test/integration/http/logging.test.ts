import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leadListKey } from '../../../shared/db/keys';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

/** The functions' log entries (JSON lines, as in Lambda). */
const entries = (stack: TestStack) => stack.logs.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('function logs', () => {
  let stack: TestStack;
  let alice: SignedUpUser;
  let key: { id: number; key: string; prefix: string };

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000 });
    alice = await signUp(stack, { password: 'a very secret password' });
    key = await createKey(stack, alice);
  });
  afterAll(async () => stack?.stop());

  it('logs an unexpected failure as one JSON entry with the request id, workspace, cold start and the error with its stack', async () => {
    const created = await stack.call<{ lead_list: { id: number } }>('POST', '/public/lead-lists/', { apiKey: key.key, body: { name: 'Broken' } });
    const listKey = leadListKey(alice.workspaceId, created.body.lead_list.id);
    const { Item } = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: listKey, ConsistentRead: true }));
    await stack.db.send(new PutCommand({ TableName: stack.tableName, Item: { ...Item, totalProspects: 'many' } }));
    stack.logs.length = 0;

    const response = await stack.call('GET', '/public/lead-lists/', { apiKey: key.key });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: 'Internal server error' });

    const logged = entries(stack);
    expect(logged).toHaveLength(1);
    const [entry] = logged;
    expect(entry).toMatchObject({
      level: 'ERROR',
      message: 'Unhandled error',
      service: 'lead-lists',
      workspace_id: alice.workspaceId,
      route: 'GET /api/v1/public/lead-lists',
      function_name: 'leadLists',
      // The list was created by an earlier invocation of the same function: a warm start.
      cold_start: false,
    });
    expect(entry?.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(entry?.function_request_id).toMatch(/^[0-9a-f-]{36}$/);
    const error = entry?.error as { name: string; message: string; stack: string };
    expect(error.name).toBe('MalformedItemError');
    expect(error.message).toBe(`Malformed LeadList item (pk=${listKey.pk}, sk=${listKey.sk}): totalProspects: expected number`);
    expect(error.stack.split('\n')[0]).toBe(`MalformedItemError: ${error.message}`);
    expect(error.stack.split('\n')[1]).toMatch(/^\s+at /);
  });

  it('never logs API keys, session tokens, passwords or secrets', async () => {
    stack.logs.length = 0;
    const rotated = await stack.call<{ key: string }>('POST', `/api-keys/${key.id}/rotate/`, { apiKey: key.key });
    const webhook = await stack.call<{ signing_secret: string }>('PUT', '/user/webhook/', {
      token: alice.token,
      body: { webhook_url: 'https://hooks.example.com/never-called' },
    });
    const login = await stack.call<{ token: string }>('POST', '/auth/login/', { body: { email: alice.email, password: alice.password } });
    // Failures too: a refused key, a refused session, a bad body and an unexpected error.
    await stack.call('GET', '/api-keys/', { apiKey: key.key });
    await stack.call('GET', '/api-keys/', { token: `${alice.token}x` });
    await stack.call('POST', '/auth/login/', { body: { email: alice.email, password: `${alice.password}!` } });
    await stack.call('GET', '/public/lead-lists/', { apiKey: rotated.body.key });

    const text = stack.logs.join('\n');
    // Only the unexpected error is logged (answers like 401 and 400 are not failures).
    expect(entries(stack).map((entry) => [entry.service, entry.message])).toEqual([['lead-lists', 'Unhandled error']]);
    const secrets = [
      key.key,
      key.key.split('.')[1],
      rotated.body.key,
      rotated.body.key.split('.')[1],
      alice.token,
      login.body.token,
      alice.password,
      webhook.body.signing_secret,
      stack.settings.sessionSecret,
      stack.settings.webhookSecretKey,
      stack.settings.providerAccessToken,
      stack.settings.providerWebhookSecret,
      stack.settings.directoryApiKey,
    ];
    for (const secret of secrets) {
      expect(typeof secret === 'string' && secret.length >= 8).toBe(true);
      expect(text.includes(secret as string)).toBe(false);
    }
  });
});
