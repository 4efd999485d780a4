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

/** What each endpoint group needs beyond its code. Keyed by group, so a new group must decide. */
const GROUP_NEEDS: Record<FunctionGroup, { table?: TableAccessLevel; sessionSecret?: boolean }> = {
  // Liveness only: no table, no secret, no queues.
  health: {},
  auth: { table: 'readWrite', sessionSecret: true },
  apiKeys: { table: 'readWrite', sessionSecret: true },
  leadLists: { table: 'readWrite' },
  prospects: { table: 'readWrite' },
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
      });
      if (needs.table) {
        fn.bindTable(table, needs.table);
        fn.addEnvironment('RUNTIME', 'aws');
        workers.push(fn);
      }
      if (needs.sessionSecret) fn.addEnvironment('SESSION_SECRET', sessionSecretValue);
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

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the API (paths start with /api/v1)' });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'The single DynamoDB table' });
    new CfnOutput(this, 'UsagePlanId', { value: this.api.usagePlan.usagePlanId, description: 'Per-API-key usage plan' });
    new CfnOutput(this, 'SessionsUsagePlanId', {
      value: this.api.sessionsUsagePlan.usagePlanId,
      description: 'Session pool usage plan',
    });
  }
}
