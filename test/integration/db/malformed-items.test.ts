import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyRecordKey, leadListKey } from '../../../shared/db/keys';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

const INTERNAL_ERROR_TEXT = '{"error":"Internal server error"}';

// A stored item that does not have its type's shape is a bug to see, not a response to guess:
// the endpoint that reads it answers a bare 500 (and logs the item's key), nothing else changes.
describe('a malformed stored item over HTTP', () => {
  let stack: TestStack;
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let aliceKey: string;
  let bobKey: string;

  beforeAll(async () => {
    stack = await startTestStack();
    alice = await signUp(stack);
    bob = await signUp(stack);
    aliceKey = (await createKey(stack, alice, 'lists')).key;
    bobKey = (await createKey(stack, bob, 'lists')).key;
  });
  afterAll(async () => stack?.stop());

  /** The stored item at `key`, changed by `change`, written back as is. */
  async function corrupt(key: { pk: string; sk: string }, change: Record<string, unknown>) {
    const { Item } = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }));
    expect(Item).toBeDefined();
    await stack.db.send(new PutCommand({ TableName: stack.tableName, Item: { ...Item, ...change } }));
  }

  it('a lead list whose count is stored as a string: its endpoints answer exactly 500 {"error":"Internal server error"}', async () => {
    const created = await stack.call<{ lead_list: { id: number } }>('POST', '/public/lead-lists/', { apiKey: aliceKey, body: { name: 'Broken' } });
    expect(created.status).toBe(201);
    const listId = created.body.lead_list.id;
    await corrupt(leadListKey(alice.workspaceId, listId), { totalProspects: '0' });

    for (const path of ['/public/lead-lists/', `/public/lead-lists/${listId}/leads/`]) {
      const response = await stack.call('GET', path, { apiKey: aliceKey });
      expect(response.status, path).toBe(500);
      expect(response.body).toEqual({ error: 'Internal server error' });
      expect(response.text).toBe(INTERNAL_ERROR_TEXT);
    }
    // Another workspace's lists are other items: unaffected.
    const bobs = await stack.call<{ searches: unknown[] }>('GET', '/public/lead-lists/', { apiKey: bobKey });
    expect(bobs.status).toBe(200);
    expect(bobs.body.searches).toEqual([]);
  });

  it('an API key record whose state is not a boolean: listing the user’s keys answers exactly 500 {"error":"Internal server error"}', async () => {
    const { id } = await createKey(stack, alice, 'broken');
    await corrupt(apiKeyRecordKey(alice.userId, id), { isActive: 'yes' });

    const listed = await stack.call('GET', '/api-keys/', { token: alice.token });
    expect(listed.status).toBe(500);
    expect(listed.body).toEqual({ error: 'Internal server error' });
    expect(listed.text).toBe(INTERNAL_ERROR_TEXT);
    const rotated = await stack.call('POST', `/api-keys/${id}/rotate/`, { token: alice.token });
    expect(rotated.status).toBe(500);
    expect(rotated.text).toBe(INTERNAL_ERROR_TEXT);

    const bobs = await stack.call<{ api_keys: { name: string }[] }>('GET', '/api-keys/', { token: bob.token });
    expect(bobs.status).toBe(200);
    expect(bobs.body.api_keys.map((key) => key.name)).toEqual(['lists']);
  });
});
