import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AllSettings } from '../../shared/config/settings';
import { settingDefault } from '../../shared/config/settings';
import { makeDocClient } from '../../shared/db/client';
import { DynamoOutreachActions } from '../../shared/db/outreach-actions';
import type { LogFormat } from '../../shared/logging/logger';
import { QUEUES, SCHEDULES, consumerTimeoutSeconds } from '../../shared/runtime/catalog';
import { type Clock, isMovableClock, systemClock } from '../../shared/time/clock';
import { type RunningDynamoDb, startDynamoDbLocal } from './dynamodb-local';
import { startLocalQueues } from './local-queues';
import { type LocalFunctions, buildLocalFunctions } from './functions';
import { createLocalGateway } from './gateway';
import { LOCAL_CLOCK_ERRORS, MAX_CLOCK_STEPS, STUCK_STEP_MINUTES } from './local-clock';
import { startSandboxDirectory } from './sandbox-directory/server';
import { type SandboxEnrichment, startSandboxEnrichment } from './sandbox-enrichment';
import { type SandboxProvider, freePort, registerProviderWebhooks, startSandboxProvider } from './sandbox-provider';
import { type PolledQueue, SqsPoller } from './sqs-poller';
import { LOCAL_TABLE_NAME, ensureTable } from './table';
import { type ScheduledHandler, createScheduleRunner } from './timer';
import { TokenBuckets } from './token-bucket';
import { SESSION_PLAN_DEFAULTS } from '../session-plan';

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
  /** Requests per minute per API key: the refill rate of each key's bucket (the usage plan's rate). */
  rateLimitPerMinute?: number;
  /** Tokens each API key's bucket holds (the usage plan's burst). */
  rateLimitBurst?: number;
  /** Requests per minute per session usage key (the sessions plan's rate: 600). */
  sessionRateLimitPerMinute?: number;
  /** Tokens each session usage key's bucket holds (the sessions plan's burst: 100). */
  sessionRateLimitBurst?: number;
  /**
   * The one clock of the stack: handlers, rate limiter and sandbox provider (tests move it). When it
   * is movable (a ManualClock, `npm start`'s OffsetClock), `POST /_local/clock` moves it too.
   */
  clock?: Clock;
  /** Run the SQS poller and the schedule timer (off in tests that drive consumers by hand). */
  background?: boolean;
  /** Report DynamoDB consumed capacity into the process-wide meter (benchmarks). */
  trackCapacity?: boolean;
  /** Check every HTTP response against its route's schemas (tests: a mismatch becomes a 500). */
  checkResponses?: boolean;
  /** Key material sealing webhook signing secrets; random when unset (`npm start` keeps one in .data/). */
  webhookSecretKey?: string;
  /** Key of the unsubscribe links' tokens; random when unset (`npm start` keeps one in .data/, so links in sent emails keep working). */
  unsubscribeSecret?: string;
  /** Where the sandbox provider keeps its accounts across restarts (`npm start`); in memory when unset. */
  sandboxAccountsFile?: string;
  /** Delays of the sandbox provider's webhook retries (tests shorten them). */
  providerWebhookRetryDelaysMs?: readonly number[];
  /** Settings of the functions beyond what the stack sets (limits, timeouts, ...). */
  settings?: Partial<AllSettings>;
  /** Lines of the local runtime (gateway, poller, sandbox provider). */
  log?: (line: string) => void;
  /** The functions' log lines; discarded when unset. */
  functionLog?: (line: string) => void;
  /** `readable` (default) for people, `json` as in Lambda (tests read the entries). */
  functionLogFormat?: LogFormat;
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
  clock: Clock;
  /** The settings the functions were built with (secrets included: tests act as the provider). */
  settings: Partial<AllSettings>;
  /** The built functions (benchmarks call them in process). */
  functions: LocalFunctions;
  /** The sandbox network/email provider and its control API. */
  provider: SandboxProvider;
  /** The sandbox enrichment providers (Hunter, Prospeo, Lusha protocols) and their control API. */
  enrichment: SandboxEnrichment;
  /** Runs every scheduled job (SCHEDULES) once, awaited; what `POST /_local/clock` does after moving the clock. */
  runSchedules(): Promise<void>;
  stop(): Promise<void>;
}

const SESSION_POOL_SIZE = 8;

/**
 * Everything the deployed stack has, on one machine: DynamoDB Local, the SQS emulator, the local
 * gateway in front of the same authorizer and handlers, the SQS poller and the schedule timer.
 * Used by `npm start`, the integration tests and the benchmarks.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const stops: (() => Promise<void> | void)[] = [];
  try {
    return await assembleLocalStack(options, stops);
  } catch (error) {
    // A part that could not start (the port taken, say): those started before it stop too, so no
    // DynamoDB Local is left running without its owner.
    for (const stop of stops) await Promise.resolve().then(stop).catch(() => {});
    throw error;
  }
}

/** Starts the parts in order, each pushing (or unshifting) how it stops onto `stops`. */
async function assembleLocalStack(options: LocalStackOptions, stops: (() => Promise<void> | void)[]): Promise<LocalStack> {
  const log = options.log ?? (() => {});
  const clock = options.clock ?? systemClock;

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
    const queues = await startLocalQueues();
    sqsEndpoint = queues.endpoint;
    stops.push(() => queues.stop());
  }

  // Sandbox B2B directory behind prospect search (the adapter talks real HTTP to it).
  const directory = await startSandboxDirectory();
  stops.push(() => directory.stop());

  // Sandbox enrichment providers (the real adapters talk HTTP to it).
  const enrichment = await startSandboxEnrichment();
  stops.push(() => enrichment.stop());

  // Sandbox network/email provider (the real adapter and the provider's SDK talk HTTP to it).
  const provider = await startSandboxProvider({
    accessToken: randomBytes(24).toString('hex'),
    clock,
    log,
    ...(options.providerWebhookRetryDelaysMs ? { webhookRetryDelaysMs: options.providerWebhookRetryDelaysMs } : {}),
    ...(options.sandboxAccountsFile ? { accountsFile: options.sandboxAccountsFile } : {}),
  });
  stops.push(() => provider.stop());
  const providerWebhookSecret = randomBytes(32).toString('hex');
  // The gateway's port is known before the handlers are built: the provider is handed URLs of this API.
  const port = options.port || (await freePort(options.host ?? '127.0.0.1'));
  const baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;

  const tableName = options.tableName ?? LOCAL_TABLE_NAME;
  const queuePrefix = options.queuePrefix ?? '';
  const sessionUsageKeys = Array.from({ length: SESSION_POOL_SIZE }, (_, i) => `localsessionpool${i}${'x'.repeat(24)}`);

  const db = makeDocClient({ endpoint: dynamodbEndpoint });
  await ensureTable(db, tableName);

  const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const created: Omit<LocalStack['queues'][string], 'handler'>[] = [];
  const queueUrls: Partial<Record<string, string>> = {};
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
    queueUrls[definition.urlSetting] = queue.QueueUrl ?? '';
    created.push({
      name: definition.name,
      queueUrl: queue.QueueUrl ?? '',
      queueArn: queueArn ?? '',
      dlqUrl: dlq.QueueUrl ?? '',
      batchSize: definition.batchSize,
      timeoutMs: consumerTimeoutSeconds(definition) * 1000,
    });
  }

  // What the Lambda entries read from their environment, as plain values: every function is built
  // with the settings its registration declares, taken from here and the declared defaults.
  const settings: Partial<AllSettings> = {
    tableName,
    dynamodbEndpoint,
    runtime: 'local',
    trackCapacity: options.trackCapacity ?? false,
    sessionSecret: options.sessionSecret ?? randomBytes(32).toString('hex'),
    sessionUsageKeys,
    directoryBaseUrl: directory.url,
    directoryApiKey: directory.apiKey,
    providerBaseUrl: provider.url,
    providerAccessToken: provider.accessToken,
    providerWebhookSecret,
    // MX lookups go to the sandbox's resolver, whose answers its control API sets.
    mxResolverUrl: provider.url,
    publicApiUrl: baseUrl,
    webhookSecretKey: options.webhookSecretKey ?? randomBytes(32).toString('hex'),
    unsubscribeSecret: options.unsubscribeSecret ?? randomBytes(32).toString('hex'),
    // Local development receives webhooks on this machine; a deployed stack never allows it.
    webhookAllowLoopback: true,
    hunterBaseUrl: enrichment.url,
    hunterApiKey: enrichment.keys.hunter,
    prospeoBaseUrl: enrichment.url,
    prospeoApiKey: enrichment.keys.prospeo,
    lushaBaseUrl: enrichment.url,
    lushaApiKey: enrichment.keys.lusha,
    sqsEndpoint,
    ...queueUrls,
    ...options.settings,
  };
  const functions = buildLocalFunctions(settings, {
    clock,
    logging: { format: options.functionLogFormat ?? 'readable', sink: options.functionLog ?? (() => {}) },
    checkResponses: options.checkResponses ?? false,
  });
  const queues: LocalStack['queues'] = {};
  for (const queue of created) {
    const handler = functions.consumers[queue.name];
    if (!handler) throw new Error(`No consumer for queue ${queue.name}`);
    queues[queue.name] = { ...queue, handler };
  }

  // The per-key plan's bucket: `rateLimitBurst` tokens, refilled at `rateLimitPerMinute` a minute.
  const perKey = {
    capacity: options.rateLimitBurst ?? settingDefault('rateLimitBurst'),
    refillTokens: options.rateLimitPerMinute ?? settingDefault('rateLimitPerMinute'),
    refillMs: 60_000,
  };
  // Each session pool key's bucket: the deployed sessions plan's rate and burst.
  const sessionBucket = {
    capacity: options.sessionRateLimitBurst ?? SESSION_PLAN_DEFAULTS.burstLimit,
    refillTokens: options.sessionRateLimitPerMinute ?? SESSION_PLAN_DEFAULTS.rateLimitPerSecond * 60,
    refillMs: 60_000,
  };
  const sessionKeys = new Set(sessionUsageKeys);
  const limiter = new TokenBuckets((key) => (sessionKeys.has(key) ? sessionBucket : perKey), clock);

  const poller = new SqsPoller(sqs, Object.values(queues), clock, log);
  const timedJobs = SCHEDULES.map((job) => {
    const handler: ScheduledHandler | undefined = functions.schedules[job.name];
    if (!handler) throw new Error(`No handler for scheduled job ${job.name}`);
    return { name: job.name, everyMs: job.localEveryMs ?? job.everyMinutes * 60_000, handler };
  });
  const schedules = createScheduleRunner(timedJobs, clock, log);
  const runSchedules = () => schedules.runAll();
  // After `POST /_local/clock`: what became due runs before the answer (schedules, then one receive round per queue).
  /** Receive rounds on every queue until they are empty (bounded: a message may keep coming back). */
  const drainQueues = async () => {
    let handled = 0;
    for (let round = 0; round < 50; round += 1) {
      const received = await poller.pollNow();
      handled += received;
      if (received === 0) break;
    }
    return handled;
  };
  // What the clock's time brings: queued work (a campaign just activated), the scheduler's run, and
  // what it dispatched, again while anything moved.
  const playNow = async () => {
    for (let round = 0; round < 10; round += 1) {
      const before = await drainQueues();
      await runSchedules();
      if (before + (await drainQueues()) === 0) break;
    }
  };
  const dueIndex = new DynamoOutreachActions(db, tableName);
  /**
   * The earliest due time of an outreach action at or before `to` (one one-item Query per due
   * shard), leaving out those due at or before `ignoreThrough`.
   */
  const earliestDue = async (to: Date, ignoreThrough: Date | undefined): Promise<Date | undefined> => {
    const after = ignoreThrough === undefined ? undefined : `${ignoreThrough.toISOString()}#~`;
    const firsts = await Promise.all(Array.from({ length: dueIndex.shards }, (_, shard) => dueIndex.due(shard, to.toISOString(), after, 1)));
    const times = firsts.flatMap(({ refs }) => refs.map((ref) => Date.parse(ref.dueAt)));
    return times.length ? new Date(Math.min(...times)) : undefined;
  };
  /**
   * `POST /_local/clock`: the clock moves to `to` through every due time of an outreach action on
   * the way, each played out as it comes, so that a week ahead plays a week of a campaign (a
   * follow-up due a day after a send made on the way goes too), not one moment a week later. Stops
   * stepping after MAX_CLOCK_STEPS (then jumps, as before). An action still due after its moment
   * was played (one claimed and in flight, or left by a crash) is stepped past a minute at a time,
   * the scheduler's deployed period, for STUCK_STEP_MINUTES (long enough for a crashed claim to
   * expire and a full sweep to settle it); then whatever is still due is passed over, so one stuck
   * action does not turn a week into thousands of one-minute steps.
   */
  const moveClock = (to: Date) =>
    poller.exclusive(async () => {
      if (!isMovableClock(clock)) throw new Error(LOCAL_CLOCK_ERRORS.notMovable);
      await playNow();
      let stuckSince: number | undefined;
      let ignoreThrough: Date | undefined;
      for (let step = 0; step < MAX_CLOCK_STEPS; step += 1) {
        const now = clock.now().getTime();
        const next = await earliestDue(to, ignoreThrough);
        if (!next) break;
        if (next.getTime() > now) stuckSince = undefined;
        else if (stuckSince === undefined) stuckSince = now;
        else if (now - stuckSince >= STUCK_STEP_MINUTES * 60_000) {
          ignoreThrough = new Date(now);
          stuckSince = undefined;
          continue;
        }
        const at = Math.max(next.getTime(), now + 60_000);
        if (at >= to.getTime()) break;
        clock.set(new Date(at));
        await playNow();
      }
      // npm start's clock also runs with real time, which may have passed `to` meanwhile; it never goes back.
      if (clock.now().getTime() < to.getTime()) clock.set(to);
      await playNow();
    });

  const server = createLocalGateway({ handlers: functions.http, authorizer: functions.authorizer, limiter, clock, moveClock, log });
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(port, options.host ?? '127.0.0.1', () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  stops.unshift(
    () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  );
  // The provider posts account-status and message events to our inbound endpoint, with our secret.
  await registerProviderWebhooks(provider, `${baseUrl}/api/v1/webhooks/provider`, providerWebhookSecret);

  if (options.background !== false) {
    poller.start();
    stops.unshift(() => poller.stop());
    schedules.start();
    stops.unshift(() => schedules.stop());
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
    clock,
    settings,
    functions,
    provider,
    enrichment,
    runSchedules,
    async stop() {
      for (const stop of stops) await stop();
      db.destroy();
      sqs.destroy();
      // A refused call usually fails its request too, but a function may swallow the error (a
      // best-effort step): whoever stops the stack (a test's afterAll) hears of every one.
      const refused = functions.tableGrantViolations;
      if (refused.length > 0) throw new Error(`Table calls the deployed roles would refuse (${refused.length}):\n${[...new Set(refused)].join('\n')}`);
    },
  };
}
