import { randomBytes } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../infra/local/local-stack';
import { prospectKey } from '../../shared/db/keys';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string;
  apiKey?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface TestStack extends LocalStack {
  /** Every line the stack's functions logged (JSON, as in Lambda), oldest first. */
  logs: string[];
  /** A catalog queue of this stack; throws when the catalog has no such queue. */
  queue(name: string): LocalStack['queues'][string];
  /** Runs a queue's consumer until nothing is visible (at most `max` batches); the number of batches. */
  drain(name: string, max?: number): Promise<number>;
  call<T = Record<string, unknown>>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
}

/**
 * A local stack for one test file: the shared DynamoDB Local and SQS emulator, a table and queue
 * names of its own, and the local gateway on a free port. Requests go over real HTTP.
 *
 * A test that sets its own `rateLimitPerMinute` (100_000: the per-key limit stays out of its way)
 * gets a bucket of a minute's worth of tokens unless it sets `rateLimitBurst`: with the default
 * burst of 10 and a clock that stands still, its 11th request with one key would be refused.
 * Without `rateLimitPerMinute` a test gets the defaults (burst 10, 50 a minute).
 */
export async function startTestStack(options: LocalStackOptions = {}): Promise<TestStack> {
  const namespace = `t${randomBytes(5).toString('hex')}`;
  const logs: string[] = [];
  const stack = await startLocalStack({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
    tableName: namespace,
    queuePrefix: `${namespace}-`,
    background: false,
    // Every response is checked against its route's registered schemas: a mismatch is a 500.
    checkResponses: true,
    functionLog: (line) => logs.push(line),
    functionLogFormat: 'json',
    // The stack's own lines are left out, but a call past its function's deployed timeout is shown:
    // on DynamoDB Local it is a hint, not a failure (docs/infrastructure.md).
    log: (line) => {
      if (line.includes('timeout: deployed')) process.stderr.write(`[local gateway] ${line}\n`);
    },
    ...(options.rateLimitPerMinute !== undefined ? { rateLimitBurst: options.rateLimitPerMinute } : {}),
    ...options,
  });
  const queue = (name: string) => {
    const found = stack.queues[name];
    if (!found) throw new Error(`no ${name} queue`);
    return found;
  };
  return {
    ...stack,
    logs,
    /** Stops the stack; fails the file if any response broke its route's registered contract. */
    async stop() {
      await stack.stop();
      const broken = logs.filter((line) => line.includes('Response does not match'));
      if (broken.length > 0) throw new Error(`Responses broke their route contracts:\n${broken.join('\n')}`);
    },
    queue,
    async drain(name, max = 20) {
      let batches = 0;
      while (batches < max && (await stack.poller.pollOnce(queue(name))) > 0) batches += 1;
      return batches;
    },
    async call(method, path, callOptions = {}) {
      const headers: Record<string, string> = { ...callOptions.headers };
      if (callOptions.apiKey !== undefined) headers['X-API-Key'] = callOptions.apiKey;
      if (callOptions.token !== undefined) headers.Authorization = `Bearer ${callOptions.token}`;
      let body: string | undefined = callOptions.rawBody;
      if (body === undefined && callOptions.body !== undefined) {
        body = JSON.stringify(callOptions.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const response = await fetch(`${stack.baseUrl}/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await response.text();
      let parsed: unknown = {};
      try {
        parsed = text ? JSON.parse(text) : {};
      } catch {
        parsed = { unparsed: text };
      }
      return { status: response.status, headers: response.headers, body: parsed as never, text };
    },
  };
}

export interface SignedUpUser {
  email: string;
  password: string;
  token: string;
  userId: number;
  workspaceId: number;
}

let counter = 0;

/** Signs up a fresh user through the API. */
export async function signUp(stack: TestStack, overrides: { email?: string; password?: string } = {}): Promise<SignedUpUser> {
  counter += 1;
  const email = overrides.email ?? `user${counter}-${randomBytes(3).toString('hex')}@example.com`;
  const password = overrides.password ?? 'correct horse battery';
  const response = await stack.call<{ token: string; user: { id: number }; workspace_id: number }>('POST', '/auth/signup', {
    body: { email, password },
  });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.text}`);
  return { email, password, token: response.body.token, userId: response.body.user.id, workspaceId: response.body.workspace_id };
}

/** Creates an API key for a signed-up user and returns the full key. */
export async function createKey(stack: TestStack, user: SignedUpUser, name = 'test key'): Promise<{ id: number; key: string; prefix: string }> {
  const response = await stack.call<{ id: number; key: string; prefix: string }>('POST', '/api-keys', { token: user.token, body: { name } });
  if (response.status !== 201) throw new Error(`create key failed: ${response.status} ${response.text}`);
  return response.body;
}

let seededProspects = 0;

/**
 * Writes a prospect where the prospects capability keeps it (its own partition, `prospectKey`),
 * with only the attributes other capabilities read (workspaceId, networkProfileUrl). For tests of
 * those capabilities; tests of prospects themselves go through their API.
 */
export async function seedProspect(
  stack: TestStack,
  input: { workspaceId: number; networkProfileUrl?: string | null; firstName?: string; lastName?: string },
): Promise<number> {
  seededProspects += 1;
  // Far above the ids the allocator hands out in a test run, and unique within the table.
  const id = 9_000_000_000_000 + seededProspects;
  await stack.db.send(
    new PutCommand({
      TableName: stack.tableName,
      Item: {
        ...prospectKey(id),
        entityType: 'Prospect',
        id,
        workspaceId: input.workspaceId,
        firstName: input.firstName ?? 'Test',
        lastName: input.lastName ?? 'Prospect',
        ...(input.networkProfileUrl ? { networkProfileUrl: input.networkProfileUrl } : {}),
      },
    }),
  );
  return id;
}

/**
 * Moves an item's `createdAt`: as if another process had made it, whose id shard gives ids out of
 * creation order (docs/data-model.md, "Ids"), for tests of what is ordered by creation.
 */
export async function setCreatedAt(stack: TestStack, key: { pk: string; sk: string }, createdAt: string): Promise<void> {
  await stack.db.send(new UpdateCommand({ TableName: stack.tableName, Key: key, UpdateExpression: 'SET createdAt = :at', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':at': createdAt } }));
}
