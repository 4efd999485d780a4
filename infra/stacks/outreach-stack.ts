import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { RecursiveLoop, Tracing } from 'aws-cdk-lib/aws-lambda';
import { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import { isSecretSetting } from '../../shared/config/secrets';
import { type SettingName, SETTINGS, toEnvironment } from '../../shared/config/settings';
import { AUTHORIZER, FUNCTION_GROUPS, type FunctionGroup, ROUTES, type RegisteredRoute, functionTimeoutSeconds } from '../../shared/http/route-table';
import { OUTREACH, OUTREACH_SCHEDULER, QUEUES, type QueueDefinition, SCHEDULES, type ScheduleDefinition, consumerTimeoutSeconds } from '../../shared/runtime/catalog';
import type { OutreachConfig } from '../config';
import { PublicApi } from '../constructs/public-api';
import { QueueConsumer } from '../constructs/queue-consumer';
import { ScheduledJob } from '../constructs/scheduled-job';
import { ServiceFunction } from '../constructs/service-function';
import { type MonitoredFunction, ServiceMonitoring } from '../constructs/service-monitoring';
import { ServiceSecrets } from '../constructs/service-secrets';
import { SingleTable } from '../constructs/single-table';
import { WebFirewall } from '../constructs/web-firewall';
import { acknowledgeRuleFindings } from '../rule-packs';
import { AUTHORIZER_TABLE_GRANT, GROUP_TABLE_GRANTS, QUEUE_TABLE_GRANTS, SCHEDULE_TABLE_GRANTS, type TableGrant } from '../table-access';

export interface OutreachStackProps extends StackProps {
  config: OutreachConfig;
  /** The route table; `ROUTES` unless a test passes its own. */
  routes?: readonly RegisteredRoute[];
  /** Queues and their consumers; `QUEUES` unless a test passes its own. */
  queues?: readonly QueueDefinition[];
  /** Scheduled jobs; `SCHEDULES` unless a test passes its own. */
  schedules?: readonly ScheduleDefinition[];
}

/** A catalog function's table access by its name; one that reads the table must have one. */
function tableGrantOf(kind: string, definition: { name: string; settings: readonly SettingName[] }, grants: Readonly<Record<string, TableGrant>>) {
  const grant = grants[definition.name];
  if (!grant && definition.settings.includes('tableName')) throw new Error(`No table access declared for ${kind} ${definition.name} (infra/table-access.ts)`);
  return grant;
}

const pascal = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => `${part[0]?.toUpperCase()}${part.slice(1)}`)
    .join('');
const kebab = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/**
 * The whole service in one stack: the single table; one function per endpoint group of the route
 * table plus the authorizer; the public API with its usage plans and logs; the queues and scheduled
 * jobs of the runtime catalog; and their monitoring (alarms, their topic, the dashboard).
 */
export class OutreachStack extends Stack {
  public readonly table: SingleTable;
  public readonly api: PublicApi;
  public readonly functions: Readonly<Record<FunctionGroup, ServiceFunction>>;
  public readonly authorizer: ServiceFunction;
  public readonly queueConsumers: Readonly<Record<string, QueueConsumer>>;
  public readonly scheduledJobs: Readonly<Record<string, ScheduledJob>>;
  public readonly firewall: WebFirewall;
  /** The alarms, their topic and the dashboard. */
  public readonly monitoring: ServiceMonitoring;
  /** The Secrets Manager secret of each secret setting. */
  public readonly secrets: ServiceSecrets;

  constructor(scope: Construct, id: string, props: OutreachStackProps) {
    super(scope, id, props);
    const { config } = props;

    this.table = new SingleTable(this, 'Data', { localIndexProjection: config.localIndexProjection });
    const { table } = this.table;

    // Every secret setting's Secrets Manager secret; functions get ARNs, never values (see ServiceSecrets).
    const secrets = new ServiceSecrets(this);
    this.secrets = secrets;
    // Values of the settings the stack decides; every other setting takes its declared default.
    // Each function gets exactly the settings its registration declares (see `configure`).
    const settingValues: Partial<Record<SettingName, unknown>> = {
      tableName: table.tableName,
      runtime: 'aws',
      maxLeadsPerList: config.maxLeadsPerList,
      searchQuotaPerMonth: config.searchQuotaPerMonth,
      directoryBaseUrl: config.directoryBaseUrl,
      providerBaseUrl: config.providerBaseUrl,
    };
    // Environments are written once every value is known (queue URLs, the usage plan, the API's URL).
    const configured: { fn: ServiceFunction; settings: readonly SettingName[] }[] = [];
    const configure = (fn: ServiceFunction, settings: readonly SettingName[]) => configured.push({ fn, settings });

    const common = {
      logRetention: config.logRetention,
      tracing: config.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
    };
    // Every function with its key (`authorizer`, `http:<group>`, `queue:<name>`, `schedule:<name>`):
    // the key names its alarms and its entry in the reservedConcurrency context key.
    const monitored: MonitoredFunction[] = [];
    const reserved = (key: string) => {
      const value = config.reservedConcurrency[key];
      return value === undefined ? {} : { reservedConcurrentExecutions: value };
    };

    // One function per endpoint group, straight from the route table.
    const functions = {} as Record<FunctionGroup, ServiceFunction>;
    for (const group of Object.keys(FUNCTION_GROUPS) as FunctionGroup[]) {
      const definition: { entry: string; settings: readonly SettingName[] } = FUNCTION_GROUPS[group];
      const fn = new ServiceFunction(this, `${pascal(group)}Function`, {
        ...common,
        entry: definition.entry,
        // Fixed so the API can address it without a reference (see PublicApi.integrationFor).
        functionName: `${this.stackName}-${kebab(group)}`,
        description: `HTTP endpoint group: ${group}`,
        timeout: Duration.seconds(functionTimeoutSeconds(group)),
        ...reserved(`http:${group}`),
      });
      monitored.push({ key: `http:${group}`, fn });
      const grant = GROUP_TABLE_GRANTS[group];
      if (grant) fn.grantTable(this.table, grant);
      configure(fn, definition.settings);
      functions[group] = fn;
    }
    this.functions = functions;

    this.authorizer = new ServiceFunction(this, 'AuthorizerFunction', {
      ...common,
      entry: AUTHORIZER.entry,
      description: 'Lambda REQUEST authorizer: API keys and sessions',
      ...reserved('authorizer'),
    });
    monitored.push({ key: 'authorizer', fn: this.authorizer });
    // Reads only, but for an API key's last use on that record's own attributes (see AUTHORIZER_TABLE_GRANT).
    this.authorizer.grantTable(this.table, AUTHORIZER_TABLE_GRANT);
    configure(this.authorizer, AUTHORIZER.settings);

    // Queues and their consumers, from the runtime catalog (the local runtime reads the same list).
    const queueConsumers: Record<string, QueueConsumer> = {};
    const queueUrls: { urlSetting: SettingName; consumer: QueueConsumer; sendsToItself: boolean }[] = [];
    for (const definition of props.queues ?? QUEUES) {
      const consumer = new QueueConsumer(this, `${pascal(definition.name)}Queue`, {
        function: {
          ...common,
          entry: definition.consumerEntry,
          description: `Consumer of the ${definition.name} queue`,
          // The queue's visibility timeout is 6x this, so at most the catalog's value.
          timeout: Duration.seconds(consumerTimeoutSeconds(definition)),
          ...reserved(`queue:${definition.name}`),
          // A consumer whose pages send the next page to its own queue is a loop by design: Lambda's
          // recursion detection (on by default, Terminate) would stop the chain at its 17th
          // invocation, so a campaign of more than 3,200 waiting prospects was never all scheduled.
          // Each page moves on (its prospects leave the waiting index, or the cursor advances) and
          // a page that fails ends in the DLQ, so the chain ends.
          ...(definition.sendsToItself === true ? { recursiveLoop: RecursiveLoop.ALLOW } : {}),
        },
        batchSize: definition.batchSize,
        maxReceiveCount: definition.maxReceiveCount,
        // Why each number: the catalog entry (and docs/operations.md).
        maxConcurrency: definition.maxConcurrency,
      });
      monitored.push({ key: `queue:${definition.name}`, fn: consumer.function });
      const grant = tableGrantOf('queue', definition, QUEUE_TABLE_GRANTS);
      if (grant) consumer.function.grantTable(this.table, grant);
      configure(consumer.function, definition.settings);
      queueConsumers[definition.name] = consumer;
      queueUrls.push({ urlSetting: definition.urlSetting, consumer, sendsToItself: definition.sendsToItself === true });
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
          timeout: Duration.minutes(1),
          ...reserved(`schedule:${definition.name}`),
        },
      });
      monitored.push({ key: `schedule:${definition.name}`, fn: job.function });
      const grant = tableGrantOf('scheduled job', definition, SCHEDULE_TABLE_GRANTS);
      if (grant) job.function.grantTable(this.table, grant);
      configure(job.function, definition.settings);
      scheduledJobs[definition.name] = job;
    }
    this.scheduledJobs = scheduledJobs;
    const unknown = Object.keys(config.reservedConcurrency).filter((key) => !monitored.some((entry) => entry.key === key));
    if (unknown.length > 0) throw new Error(`reservedConcurrency names functions the stack does not have: ${unknown.join(', ')}`);

    // Producers: a function that declares a queue's URL setting may send to that queue, and only send.
    for (const { urlSetting, consumer, sendsToItself } of queueUrls) {
      settingValues[urlSetting] = consumer.queue.queueUrl;
      // The queue's own consumer reads the URL to delay redeliveries (its event source grants that),
      // and sends only when its definition says so (campaign-scheduling: each page sends the next).
      for (const { fn, settings } of configured) {
        if (settings.includes(urlSetting) && (fn !== consumer.function || sendsToItself)) consumer.queue.grantSendMessages(fn);
      }
    }

    this.api = new PublicApi(this, 'PublicApi', {
      routes: props.routes ?? ROUTES,
      handlers: functions,
      authorizerHandler: this.authorizer,
      stageName: config.stageName,
      rateLimitPerMinute: config.rateLimitPerMinute,
      rateLimitBurst: config.rateLimitBurst,
      stageThrottle: { rateLimit: config.edge.stageRateLimit, burstLimit: config.edge.stageBurstLimit },
      anonymousThrottle: { rateLimit: config.edge.anonymousRateLimit, burstLimit: config.edge.anonymousBurstLimit },
      sessionUsageKeyCount: config.sessionUsageKeyCount,
      sessionRateLimitPerSecond: config.sessionRateLimitPerSecond,
      sessionBurstLimit: config.sessionBurstLimit,
      usageKeySeed: this.stackName,
      tracing: config.tracing,
      restApiName: this.stackName,
      logRetention: config.logRetention,
    });
    // Abuse protection in front of the stage (docs/operations.md, "Abuse protection").
    this.firewall = new WebFirewall(this, 'WebFirewall', {
      routes: props.routes ?? ROUTES,
      stage: this.api.api.deploymentStage,
      stageName: config.stageName,
      namePrefix: this.stackName,
      config: config.edge,
    });
    this.api.grantUsageKeyManagement(functions.apiKeys);
    // Removing a member revokes their keys: it deletes gateway keys, it never creates one.
    this.api.grantUsageKeyRetirement(functions.members);
    settingValues.usagePlanId = this.api.usagePlan.usagePlanId;
    settingValues.sessionUsageKeys = this.api.sessionUsageKeys;
    // Built from the API's id and the configured stage name (not api.url, which would make the
    // function depend on the stage, and the stage on the functions).
    settingValues.publicApiUrl = `https://${this.api.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}/${config.stageName}`;

    // Each function's environment: exactly its declared settings. A required one the stack does not
    // provide fails `cdk synth`, not a cold start.
    for (const { fn, settings } of configured) {
      const plain = settings.filter((name) => !isSecretSetting(name));
      for (const [name, value] of Object.entries(toEnvironment(plain, settingValues))) fn.addEnvironment(name, value);
      for (const name of settings.filter(isSecretSetting)) secrets.giveTo(fn, name);
      const missing = plain.filter((name) => SETTINGS[name].required === true && settingValues[name] === undefined);
      if (missing.length > 0) throw new Error(`${fn.node.id} declares settings the stack does not provide: ${missing.join(', ')}`);
    }

    const queueDefinitions = props.queues ?? QUEUES;
    this.monitoring = new ServiceMonitoring(this, 'Monitoring', {
      name: this.stackName,
      alarmEmail: config.alarmEmail,
      thresholds: config.alarmThresholds,
      functions: monitored,
      queues: queueDefinitions.map((definition) => ({
        name: definition.name,
        consumer: queueConsumers[definition.name] as QueueConsumer,
        oldestMessageAlarmMinutes: definition.oldestMessageAlarmMinutes,
      })),
      scheduledJobs: Object.entries(scheduledJobs).map(([name, job]) => ({ name, job, everyMinutes: (props.schedules ?? SCHEDULES).find((definition) => definition.name === name)?.everyMinutes })),
      // Alarmed once the outreach schedule exists.
      scheduler: scheduledJobs[OUTREACH_SCHEDULER.name],
      api: this.api.api,
      table,
      accountPauseLogGroup: queueConsumers[OUTREACH.name]?.function.logGroup,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the API (paths start with /api/v1)' });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'The single DynamoDB table' });
    new CfnOutput(this, 'UsagePlanId', { value: this.api.usagePlan.usagePlanId, description: 'Per-API-key usage plan' });
    new CfnOutput(this, 'SessionsUsagePlanId', {
      value: this.api.sessionsUsagePlan.usagePlanId,
      description: 'Session pool usage plan',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.monitoring.topic.topicArn,
      description: 'SNS topic of every alarm (subscribe more endpoints to it; docs/operations.md)',
    });

    // The rule packs' findings kept on purpose, each with its reason (the packs run in infra/app.ts).
    acknowledgeRuleFindings(this);
  }
}
