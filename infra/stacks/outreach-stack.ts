import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Tracing } from 'aws-cdk-lib/aws-lambda';
import { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { AUTHORIZER_ENTRY, FUNCTION_GROUPS, type FunctionGroup, ROUTES, type RouteDefinition } from '../../shared/http/route-table';
import { QUEUES, type QueueDefinition, SCHEDULES, type ScheduleDefinition } from '../../shared/runtime/catalog';
import type { OutreachConfig } from '../config';
import { PublicApi } from '../constructs/public-api';
import { QueueConsumer } from '../constructs/queue-consumer';
import { ScheduledJob } from '../constructs/scheduled-job';
import { ServiceFunction, type TableAccessLevel } from '../constructs/service-function';
import { SingleTable } from '../constructs/single-table';

export interface OutreachStackProps extends StackProps {
  config: OutreachConfig;
  /** The route table; `ROUTES` unless a test passes its own. */
  routes?: readonly RouteDefinition[];
  /** Queues and their consumers; `QUEUES` unless a test passes its own. */
  queues?: readonly QueueDefinition[];
  /** Scheduled jobs; `SCHEDULES` unless a test passes its own. */
  schedules?: readonly ScheduleDefinition[];
}

/** What a function needs beyond its code. */
interface Needs {
  table?: TableAccessLevel;
  sessionSecret?: boolean;
  /** PROVIDER_BASE_URL and PROVIDER_ACCESS_TOKEN: it calls the network/email provider. */
  provider?: boolean;
  /** PROVIDER_WEBHOOK_SECRET: it checks the provider's webhooks or signs hosted-connect state. */
  providerWebhookSecret?: boolean;
  /** WEBHOOK_SECRET_KEY: it reads or writes users' webhook signing secrets. */
  webhookSecretKey?: boolean;
  /** PUBLIC_API_URL: it hands the provider URLs of this API. */
  publicApiUrl?: boolean;
  /** DIRECTORY_BASE_URL, DIRECTORY_API_KEY and SEARCH_QUOTA_PER_MONTH: it searches the B2B directory. */
  directory?: boolean;
  /** MAX_LEADS_PER_LIST: it adds leads to lists. */
  leadLists?: boolean;
  /** Function timeout when the 10 s default is too short. */
  timeoutSeconds?: number;
}

/** What each endpoint group needs beyond its code. Keyed by group, so a new group must decide. */
const GROUP_NEEDS: Record<FunctionGroup, Needs> = {
  // Liveness only: no table, no secret, no queues.
  health: {},
  auth: { table: 'readWrite', sessionSecret: true },
  apiKeys: { table: 'readWrite', sessionSecret: true },
  // Imports of up to 1000 rows: within API Gateway's 29 s integration timeout.
  leadLists: { table: 'readWrite', leadLists: true, timeoutSeconds: 28 },
  // The directory call is bounded at 10 s; saving up to 100 results follows it.
  prospects: { table: 'readWrite', directory: true, leadLists: true, timeoutSeconds: 20 },
  // Provider calls are bounded at 8 s (PROVIDER_TIMEOUT_MS); the rest is a few table reads and writes.
  accounts: { table: 'readWrite', provider: true, providerWebhookSecret: true, publicApiUrl: true, timeoutSeconds: 12 },
  connections: { table: 'read', provider: true, timeoutSeconds: 12 },
  // The test send is bounded at 10 s (WEBHOOK_TIMEOUT_MS): its own timeout answer must come first.
  userWebhook: { table: 'readWrite', webhookSecretKey: true, timeoutSeconds: 15 },
  providerWebhooks: { table: 'readWrite', provider: true, providerWebhookSecret: true, timeoutSeconds: 12 },
};

/** What each queue's consumer needs beyond the table and the queue URLs, keyed by queue name. */
const QUEUE_NEEDS: Record<string, Needs> = {
  webhooks: { webhookSecretKey: true },
};

const pascal = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => `${part[0]?.toUpperCase()}${part.slice(1)}`)
    .join('');
const kebab = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/**
 * The whole service in one stack: the single table; one function per endpoint group of the route
 * table plus the authorizer; the public API with its usage plans; and the queues and scheduled
 * jobs of the runtime catalog.
 */
export class OutreachStack extends Stack {
  public readonly table: SingleTable;
  public readonly api: PublicApi;
  public readonly functions: Readonly<Record<FunctionGroup, ServiceFunction>>;
  public readonly authorizer: ServiceFunction;
  public readonly queueConsumers: Readonly<Record<string, QueueConsumer>>;
  public readonly scheduledJobs: Readonly<Record<string, ScheduledJob>>;

  constructor(scope: Construct, id: string, props: OutreachStackProps) {
    super(scope, id, props);
    const { config } = props;

    this.table = new SingleTable(this, 'Data');
    const { table } = this.table;

    const sessionSecret = new Secret(this, 'SessionSecret', {
      description: 'HMAC key of the session tokens (SESSION_SECRET)',
      generateSecretString: { excludePunctuation: true, passwordLength: 64 },
    });
    // unsafeUnwrap() yields a CloudFormation dynamic reference ({{resolve:secretsmanager:...}}),
    // not the secret itself: CloudFormation resolves it at deploy time, so the value never appears
    // in the template or the cloud assembly, and no function calls Secrets Manager on a cold start.
    // It is visible in the functions' configuration, as any environment variable is.
    const sessionSecretValue = sessionSecret.secretValue.unsafeUnwrap();

    // The provider's access token is the operator's to set: the stack creates the secret with a
    // placeholder; put the real token in it and deploy again (dynamic references resolve at deploy).
    const providerAccessToken = new Secret(this, 'ProviderAccessToken', {
      description: 'Access token of the network/email provider (PROVIDER_ACCESS_TOKEN); replace the placeholder, then deploy',
      generateSecretString: { excludePunctuation: true, passwordLength: 32 },
    });
    const providerWebhookSecret = new Secret(this, 'ProviderWebhookSecret', {
      description: 'Shared secret the provider sends in X-Webhook-Secret; also keys hosted-connect state (PROVIDER_WEBHOOK_SECRET)',
      generateSecretString: { excludePunctuation: true, passwordLength: 64 },
    });
    const webhookSecretKey = new Secret(this, 'WebhookSecretKey', {
      description: "Key material sealing users' webhook signing secrets in the table (WEBHOOK_SECRET_KEY)",
      generateSecretString: { excludePunctuation: true, passwordLength: 64 },
    });
    // Like the provider token: created with a placeholder for the operator to replace.
    const directoryApiKey = new Secret(this, 'DirectoryApiKey', {
      description: 'API key of the B2B directory behind prospect search (DIRECTORY_API_KEY); replace the placeholder, then deploy',
      generateSecretString: { excludePunctuation: true, passwordLength: 32 },
    });
    const applyNeeds = (fn: ServiceFunction, needs: Needs) => {
      if (needs.directory) {
        fn.addEnvironment('DIRECTORY_BASE_URL', config.directoryBaseUrl);
        fn.addEnvironment('DIRECTORY_API_KEY', directoryApiKey.secretValue.unsafeUnwrap());
        fn.addEnvironment('SEARCH_QUOTA_PER_MONTH', String(config.searchQuotaPerMonth));
      }
      if (needs.leadLists) fn.addEnvironment('MAX_LEADS_PER_LIST', String(config.maxLeadsPerList));
      if (needs.sessionSecret) fn.addEnvironment('SESSION_SECRET', sessionSecretValue);
      if (needs.provider) {
        fn.addEnvironment('PROVIDER_BASE_URL', config.providerBaseUrl);
        fn.addEnvironment('PROVIDER_ACCESS_TOKEN', providerAccessToken.secretValue.unsafeUnwrap());
      }
      if (needs.providerWebhookSecret) fn.addEnvironment('PROVIDER_WEBHOOK_SECRET', providerWebhookSecret.secretValue.unsafeUnwrap());
      if (needs.webhookSecretKey) fn.addEnvironment('WEBHOOK_SECRET_KEY', webhookSecretKey.secretValue.unsafeUnwrap());
    };

    const common = {
      logRetention: config.logRetention,
      tracing: config.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
    };
    /** Functions that do work (everything but health and the authorizer): they may enqueue. */
    const workers: ServiceFunction[] = [];

    // One function per endpoint group, straight from the route table.
    const functions = {} as Record<FunctionGroup, ServiceFunction>;
    for (const [group, entry] of Object.entries(FUNCTION_GROUPS) as [FunctionGroup, string][]) {
      const needs = GROUP_NEEDS[group];
      const fn = new ServiceFunction(this, `${pascal(group)}Function`, {
        ...common,
        entry,
        // Fixed so the API can address it without a reference (see PublicApi.integrationFor).
        functionName: `${this.stackName}-${kebab(group)}`,
        description: `HTTP endpoint group: ${group}`,
        ...(needs.timeoutSeconds ? { timeout: Duration.seconds(needs.timeoutSeconds) } : {}),
      });
      if (needs.table) {
        fn.bindTable(table, needs.table);
        fn.addEnvironment('RUNTIME', 'aws');
        workers.push(fn);
      }
      applyNeeds(fn, needs);
      functions[group] = fn;
    }
    this.functions = functions;

    this.authorizer = new ServiceFunction(this, 'AuthorizerFunction', {
      ...common,
      entry: AUTHORIZER_ENTRY,
      description: 'Lambda REQUEST authorizer: API keys and sessions',
      environment: { RUNTIME: 'aws', SESSION_SECRET: sessionSecretValue },
    });
    // readWrite: it records an API key's last use (at most once a minute per key).
    this.authorizer.bindTable(table, 'readWrite');

    // Queues and their consumers, from the runtime catalog (the local runtime reads the same list).
    const queueConsumers: Record<string, QueueConsumer> = {};
    const queueUrlEnv: { urlEnv: string; consumer: QueueConsumer }[] = [];
    for (const definition of props.queues ?? QUEUES) {
      const consumer = new QueueConsumer(this, `${pascal(definition.name)}Queue`, {
        function: {
          ...common,
          entry: definition.consumerEntry,
          description: `Consumer of the ${definition.name} queue`,
          environment: { RUNTIME: 'aws' },
          // The queue's visibility timeout is 6x this, so at most the catalog's value.
          timeout: Duration.seconds(Math.max(1, Math.floor(definition.visibilityTimeoutSeconds / 6))),
        },
        batchSize: definition.batchSize,
        maxReceiveCount: definition.maxReceiveCount,
      });
      consumer.function.bindTable(table, 'readWrite');
      applyNeeds(consumer.function, QUEUE_NEEDS[definition.name] ?? {});
      workers.push(consumer.function);
      queueConsumers[definition.name] = consumer;
      queueUrlEnv.push({ urlEnv: definition.urlEnv, consumer });
    }
    this.queueConsumers = queueConsumers;

    const scheduledJobs: Record<string, ScheduledJob> = {};
    for (const definition of props.schedules ?? SCHEDULES) {
      const job = new ScheduledJob(this, `${pascal(definition.name)}Job`, {
        schedule: ScheduleExpression.rate(Duration.minutes(definition.everyMinutes)),
        description: `Scheduled job ${definition.name}, every ${definition.everyMinutes} min`,
        function: {
          ...common,
          entry: definition.entry,
          description: `Scheduled job ${definition.name}`,
          environment: { RUNTIME: 'aws' },
          timeout: Duration.minutes(1),
        },
      });
      job.function.bindTable(table, 'readWrite');
      workers.push(job.function);
      scheduledJobs[definition.name] = job;
    }
    this.scheduledJobs = scheduledJobs;

    // Producers: the catalog does not say who sends where, so every worker learns every queue's
    // URL (as in the local runtime) and may send to it; sending is all it may do.
    for (const { urlEnv, consumer } of queueUrlEnv) {
      for (const fn of workers) {
        fn.addEnvironment(urlEnv, consumer.queue.queueUrl);
        consumer.queue.grantSendMessages(fn);
      }
    }

    this.api = new PublicApi(this, 'PublicApi', {
      routes: props.routes ?? ROUTES,
      handlers: functions,
      authorizerHandler: this.authorizer,
      stageName: config.stageName,
      rateLimitPerMinute: config.rateLimitPerMinute,
      sessionUsageKeyCount: config.sessionUsageKeyCount,
      sessionRateLimitPerSecond: config.sessionRateLimitPerSecond,
      sessionBurstLimit: config.sessionBurstLimit,
      usageKeySeed: this.stackName,
      tracing: config.tracing,
    });
    this.api.grantUsageKeyManagement(functions.apiKeys);
    this.authorizer.addEnvironment('SESSION_USAGE_KEYS', this.api.sessionUsageKeys.join(','));
    // Built from the API's id and the configured stage name (not api.url, which would make the
    // function depend on the stage, and the stage on the functions).
    const publicApiUrl = `https://${this.api.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}/${config.stageName}`;
    for (const [group, needs] of Object.entries(GROUP_NEEDS) as [FunctionGroup, Needs][]) {
      if (needs.publicApiUrl) functions[group].addEnvironment('PUBLIC_API_URL', publicApiUrl);
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the API (paths start with /api/v1)' });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'The single DynamoDB table' });
    new CfnOutput(this, 'UsagePlanId', { value: this.api.usagePlan.usagePlanId, description: 'Per-API-key usage plan' });
    new CfnOutput(this, 'SessionsUsagePlanId', {
      value: this.api.sessionsUsagePlan.usagePlanId,
      description: 'Session pool usage plan',
    });
  }
}
