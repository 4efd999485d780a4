import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startFauxqs } from 'fauxqs';
import { makeDocClient } from '../../shared/db/client';
import { AUTHORIZER_ENTRY, FUNCTION_GROUPS, type FunctionGroup } from '../../shared/http/route-table';
import { QUEUES, SCHEDULES } from '../../shared/runtime/catalog';
import { type RunningDynamoDb, startDynamoDbLocal } from './dynamodb-local';
import { type AuthorizerHandler, type ProxyHandler, createLocalGateway } from './gateway';
import { startSandboxDirectory } from './sandbox-directory/server';
import { type SandboxProvider, freePort, registerProviderWebhooks, startSandboxProvider } from './sandbox-provider';
import { type PolledQueue, type SqsHandler, SqsPoller } from './sqs-poller';
import { ensureTable } from './table';
import { type ScheduledHandler, startTimer } from './timer';
import { TokenBuckets } from './token-bucket';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface LocalStackOptions {
  /** Gateway port; 0 picks a free one. */
  port?: number;
  host?: string;
  /** Use a running DynamoDB (tests share one); otherwise DynamoDB Local is started. */
  dynamodbEndpoint?: string;
  /** Where a started DynamoDB Local keeps its data; in memory when unset. */
  dynamodbPath?: string;
  dynamodbPort?: number;
  /** Use a running SQS emulator; otherwise fauxqs is started in-process. */
  sqsEndpoint?: string;
  tableName?: string;
  /** Namespace for queue names, so several stacks can share one emulator. */
  queuePrefix?: string;
  sessionSecret?: string;
  /** Requests per minute per API key (the usage plan's limit). */
  rateLimitPerMinute?: number;
  /** Requests per minute per session usage key. */
  sessionRateLimitPerMinute?: number;
  /** The rate limiter's clock (tests freeze it). */
  now?: () => number;
  /** Run the SQS poller and the schedule timer (off in tests that drive consumers by hand). */
  background?: boolean;
  /** Report DynamoDB consumed capacity into the process-wide meter (benchmarks). */
  trackCapacity?: boolean;
  /** Key material sealing webhook signing secrets; random when unset (`npm start` keeps one in .data/). */
  webhookSecretKey?: string;
  /** Delays of the sandbox provider's webhook retries (tests shorten them). */
  providerWebhookRetryDelaysMs?: readonly number[];
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface LocalStack {
  baseUrl: string;
  port: number;
  tableName: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  db: DynamoDBDocumentClient;
  sqs: SQSClient;
  queues: Record<string, PolledQueue & { dlqUrl: string }>;
  poller: SqsPoller;
  limiter: TokenBuckets;
  /** The sandbox network/email provider and its control API. */
  provider: SandboxProvider;
  stop(): Promise<void>;
}

const SESSION_POOL_SIZE = 8;

async function importHandler<T>(entry: string): Promise<T> {
  const module = (await import(pathToFileURL(resolve(REPO_ROOT, entry)).href)) as { handler: T };
  return module.handler;
}

/**
 * Everything the deployed stack has, on one machine: DynamoDB Local, the SQS emulator, the local
 * gateway in front of the same authorizer and handlers, the SQS poller and the schedule timer.
 * Used by `npm start`, the integration tests and the benchmarks.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const log = options.log ?? (() => {});
  const stops: (() => Promise<void> | void)[] = [];

  let dynamodbEndpoint = options.dynamodbEndpoint;
  if (!dynamodbEndpoint) {
    const dynamo: RunningDynamoDb = await startDynamoDbLocal({
      ...(options.dynamodbPath ? { dbPath: options.dynamodbPath } : {}),
      ...(options.dynamodbPort ? { port: options.dynamodbPort } : {}),
    });
    dynamodbEndpoint = dynamo.endpoint;
    stops.push(() => dynamo.stop());
  }

  let sqsEndpoint = options.sqsEndpoint;
  if (!sqsEndpoint) {
    const fauxqs = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
    sqsEndpoint = fauxqs.address;
    stops.push(() => fauxqs.stop());
  }

  // Sandbox B2B directory behind prospect search (the adapter talks real HTTP to it).
  const directory = await startSandboxDirectory();
  stops.push(() => directory.stop());

  // Sandbox network/email provider (the real adapter and the provider's SDK talk HTTP to it).
  const provider = await startSandboxProvider({
    accessToken: randomBytes(24).toString('hex'),
    log,
    ...(options.providerWebhookRetryDelaysMs ? { webhookRetryDelaysMs: options.providerWebhookRetryDelaysMs } : {}),
  });
  stops.push(() => provider.stop());
  const providerWebhookSecret = randomBytes(32).toString('hex');
  // The gateway's port is known before the handlers load, as they read PUBLIC_API_URL at import.
  const port = options.port || (await freePort(options.host ?? '127.0.0.1'));
  const baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;

  const tableName = options.tableName ?? 'outreach';
  const queuePrefix = options.queuePrefix ?? '';
  const sessionUsageKeys = Array.from({ length: SESSION_POOL_SIZE }, (_, i) => `localsessionpool${i}${'x'.repeat(24)}`);

  // Handlers read their configuration from the environment at import, as in Lambda.
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamodbEndpoint,
    RUNTIME: 'local',
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    SQS_ENDPOINT: sqsEndpoint,
    SESSION_SECRET: options.sessionSecret ?? randomBytes(32).toString('hex'),
    SESSION_USAGE_KEYS: sessionUsageKeys.join(','),
    DIRECTORY_BASE_URL: directory.url,
    DIRECTORY_API_KEY: directory.apiKey,
    PROVIDER_BASE_URL: provider.url,
    PROVIDER_ACCESS_TOKEN: provider.accessToken,
    PROVIDER_WEBHOOK_SECRET: providerWebhookSecret,
    PUBLIC_API_URL: baseUrl,
    WEBHOOK_SECRET_KEY: options.webhookSecretKey ?? randomBytes(32).toString('hex'),
    // Local development receives webhooks on this machine; a deployed stack never allows it.
    WEBHOOK_ALLOW_LOOPBACK: '1',
    ...(options.trackCapacity ? { DYNAMODB_TRACK_CAPACITY: '1' } : {}),
    ...options.env,
  });

  const db = makeDocClient({ endpoint: dynamodbEndpoint });
  await ensureTable(db, tableName);

  const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const queues: LocalStack['queues'] = {};
  for (const definition of QUEUES) {
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${queuePrefix}${definition.name}-dlq` }));
    const dlqArn = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes?.QueueArn;
    const queue = await sqs.send(
      new CreateQueueCommand({
        QueueName: `${queuePrefix}${definition.name}`,
        Attributes: {
          VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: definition.maxReceiveCount }),
        },
      }),
    );
    const queueArn = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes?.QueueArn;
    process.env[definition.urlEnv] = queue.QueueUrl ?? '';
    queues[definition.name] = {
      name: definition.name,
      queueUrl: queue.QueueUrl ?? '',
      queueArn: queueArn ?? '',
      dlqUrl: dlq.QueueUrl ?? '',
      batchSize: definition.batchSize,
      handler: undefined as unknown as SqsHandler,
    };
  }
  for (const definition of QUEUES) {
    const queue = queues[definition.name];
    if (queue) queue.handler = await importHandler<SqsHandler>(definition.consumerEntry);
  }

  const handlers = {} as Record<FunctionGroup, ProxyHandler>;
  for (const [group, entry] of Object.entries(FUNCTION_GROUPS) as [FunctionGroup, string][]) {
    handlers[group] = await importHandler<ProxyHandler>(entry);
  }
  const authorizer = await importHandler<AuthorizerHandler>(AUTHORIZER_ENTRY);

  const perKey = options.rateLimitPerMinute ?? 50;
  const perSession = options.sessionRateLimitPerMinute ?? 600;
  const sessionKeys = new Set(sessionUsageKeys);
  const limiter = new TokenBuckets(
    (key) => ({ capacity: sessionKeys.has(key) ? perSession : perKey, windowMs: 60_000 }),
    options.now,
  );

  const server = createLocalGateway({ handlers, authorizer, limiter, log });
  await new Promise<void>((resolveListen) => server.listen(port, options.host ?? '127.0.0.1', resolveListen));
  stops.unshift(
    () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  );
  // The provider posts account-status and message events to our inbound endpoint, with our secret.
  await registerProviderWebhooks(provider, `${baseUrl}/api/v1/webhooks/provider`, providerWebhookSecret);

  const poller = new SqsPoller(sqs, Object.values(queues), log);
  if (options.background !== false) {
    poller.start();
    stops.unshift(() => poller.stop());
    const timer = startTimer(
      await Promise.all(
        SCHEDULES.map(async (job) => ({
          name: job.name,
          everyMs: job.everyMinutes * 60_000,
          handler: await importHandler<ScheduledHandler>(job.entry),
        })),
      ),
      log,
    );
    stops.unshift(() => timer.stop());
  }

  return {
    baseUrl,
    port,
    tableName,
    dynamodbEndpoint,
    sqsEndpoint,
    db,
    sqs,
    queues,
    poller,
    limiter,
    provider,
    async stop() {
      for (const stop of stops) await stop();
      db.destroy();
      sqs.destroy();
    },
  };
}
