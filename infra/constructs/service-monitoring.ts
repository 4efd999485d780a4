import { Aws, Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, type CfnAlarm, ComparisonOperator, type IMetric, MathExpression, type Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { ACCOUNT_PAUSE_LOG } from '../../shared/runtime/account-pauses';
import type { AlarmThresholds } from '../config';
import type { QueueConsumer } from './queue-consumer';
import type { ScheduledJob } from './scheduled-job';
import { ServiceDashboard, filledOperationSum } from './service-dashboard';

/** Every alarm looks at 5-minute periods (the p99 latency alarm at three of them in a row). */
export const ALARM_PERIOD = Duration.minutes(5);

/** Periods in a row the API's p99 latency must be over its threshold. */
export const LATENCY_EVALUATION_PERIODS = 3;

/**
 * The table operations the service calls (functions and `npm run migrate`, which scans). A metric
 * math alarm takes at most 10 metrics and CDK knows 14 operations, so the table alarms sum
 * these only. A repository that starts using another operation adds it here.
 */
export const TABLE_OPERATIONS: readonly Operation[] = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.SCAN,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/** A function to watch: `key` names it in alarms, e.g. `http:leadLists`, `queue:outreach`, `authorizer`. */
export interface MonitoredFunction {
  readonly key: string;
  readonly fn: IFunction;
}

export interface MonitoredQueue {
  /** The catalog name, e.g. `outreach`. */
  readonly name: string;
  readonly consumer: QueueConsumer;
  /** The catalog's default; `thresholds.queueAgeMinutes[name]` overrides it. */
  readonly oldestMessageAlarmMinutes: number;
}

export interface ServiceMonitoringProps {
  /** Prefix of every alarm name and of the dashboard's name (the stack name). */
  readonly name: string;
  /** Subscribed to the alarm topic by email when set. */
  readonly alarmEmail?: string | undefined;
  readonly thresholds: AlarmThresholds;
  readonly functions: readonly MonitoredFunction[];
  readonly queues: readonly MonitoredQueue[];
  /** `everyMinutes`: how often it runs; a job other than `scheduler` that missed three runs alarms. */
  readonly scheduledJobs: readonly { readonly name: string; readonly job: ScheduledJob; readonly everyMinutes?: number }[];
  /** The job whose silence alarms (the outreach scheduler), when the stack has it. */
  readonly scheduler?: ScheduledJob | undefined;
  readonly api: RestApi;
  readonly table: Table;
  /** The sender's log group, whose account-pause lines become a metric; none: no pause alarm. */
  readonly accountPauseLogGroup?: ILogGroup | undefined;
}

/** `queue:outreach` → `queue-outreach`, `http:leadLists` → `http-leadLists` (alarm names). */
const slug = (key: string): string => key.replace(/[^A-Za-z0-9-]+/g, '-');
/** `queue:outreach` → `QueueOutreach` (construct ids). */
const pascal = (key: string): string =>
  key
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => `${part[0]?.toUpperCase()}${part.slice(1)}`)
    .join('');

/**
 * The service's alarms, their SNS topic and the dashboard (docs/operations.md#alarms).
 *
 * - One topic; every alarm notifies it when it fires and when it recovers. With `alarmEmail` the
 *   address is subscribed (SNS mails a confirmation link first); without it the topic has no
 *   subscriber until an operator adds one.
 * - Alarms: the dead-letter queues' (created by their constructs, given the topic here), the age
 *   of each queue's oldest message, each function's errors and throttles, the API's 5xx rate and
 *   p99 latency, the table's throttled requests and system errors, the outreach scheduler not
 *   running, and sender accounts paused until the provider reports them active.
 */
export class ServiceMonitoring extends Construct {
  public readonly topic: Topic;
  /** Every alarm of the service, the dead-letter alarms included. */
  public readonly alarms: Alarm[] = [];
  public readonly deadLetterAlarms: Alarm[] = [];
  public readonly queueAgeAlarms: Record<string, Alarm> = {};
  public readonly functionErrorAlarms: Record<string, Alarm> = {};
  public readonly functionThrottleAlarms: Record<string, Alarm> = {};
  public readonly api5xxAlarm: Alarm;
  public readonly apiLatencyAlarm: Alarm;
  public readonly tableThrottleAlarm: Alarm;
  public readonly tableSystemErrorAlarm: Alarm;
  public readonly schedulerAlarm: Alarm | undefined;
  /** The other scheduled jobs not invoked for three of their periods, by job name. */
  public readonly jobSilenceAlarms: Record<string, Alarm> = {};
  public readonly accountPauseAlarm: Alarm | undefined;
  /** Every pause the engine logs (quota pauses too), for the dashboard. */
  public readonly accountPauses: Metric | undefined;
  /** Pauses waiting for the provider (what the pause alarm counts). */
  public readonly accountPausesForProvider: Metric | undefined;
  public readonly dashboard: ServiceDashboard;

  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: ServiceMonitoringProps) {
    super(scope, id);
    const { name, thresholds } = props;

    this.topic = new Topic(this, 'AlarmTopic', { displayName: `${name} alarms`, enforceSSL: true });
    // enforceSSL writes a topic policy, and a topic policy replaces SNS's default one, which is what
    // let the account's alarms publish: without this statement every alarm action is refused
    // ("... is not authorized to perform: SNS:Publish") and only the alarm's history says so.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisAccountsAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.action = new SnsAction(this.topic);

    // Any message in any dead-letter queue (the alarms exist with their queues; named here).
    const deadLetter = (alarm: Alarm, owner: string) => {
      (alarm.node.defaultChild as CfnAlarm).alarmName = `${name}-dlq-${slug(owner)}`;
      this.deadLetterAlarms.push(this.notify(alarm));
    };
    for (const queue of props.queues) deadLetter(queue.consumer.deadLetterAlarm, queue.name);
    for (const { name: jobName, job } of props.scheduledJobs) deadLetter(job.deadLetterAlarm, jobName);

    for (const queue of props.queues) {
      const minutes = thresholds.queueAgeMinutes[queue.name] ?? queue.oldestMessageAlarmMinutes;
      this.queueAgeAlarms[queue.name] = this.alarm(`QueueAge${pascal(queue.name)}`, {
        alarmName: `${name}-queue-age-${slug(queue.name)}`,
        alarmDescription: `The oldest message of the ${queue.name} queue has waited over ${minutes} minutes: its consumer is failing, throttled or far behind (docs/operations.md#alarms).`,
        metric: queue.consumer.queue.metricApproximateAgeOfOldestMessage({ period: ALARM_PERIOD, statistic: 'Maximum' }),
        threshold: minutes * 60,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }
    const queueNames = new Set(props.queues.map((queue) => queue.name));
    const unknownQueues = Object.keys(thresholds.queueAgeMinutes).filter((queue) => !queueNames.has(queue));
    if (unknownQueues.length > 0) throw new Error(`alarmQueueAgeMinutes names queues the stack does not have: ${unknownQueues.join(', ')}`);

    for (const { key, fn } of props.functions) {
      this.functionErrorAlarms[key] = this.alarm(`Errors${pascal(key)}`, {
        alarmName: `${name}-errors-${slug(key)}`,
        alarmDescription: `Function ${key} failed ${thresholds.lambdaErrors} or more times in 5 minutes (crashes, timeouts, unhandled errors; see its log group).`,
        metric: fn.metricErrors({ period: ALARM_PERIOD, statistic: 'Sum' }),
        threshold: thresholds.lambdaErrors,
      });
      this.functionThrottleAlarms[key] = this.alarm(`Throttles${pascal(key)}`, {
        alarmName: `${name}-throttles-${slug(key)}`,
        alarmDescription: `Function ${key} was throttled ${thresholds.lambdaThrottles} or more times in 5 minutes: the account's (or its reserved) concurrency is used up.`,
        metric: fn.metricThrottles({ period: ALARM_PERIOD, statistic: 'Sum' }),
        threshold: thresholds.lambdaThrottles,
      });
    }

    // The stage's metrics (dimensions ApiName and Stage).
    const stage = props.api.deploymentStage;
    const api5xxRate = new MathExpression({
      expression: `IF(requests >= ${thresholds.api5xxMinRequests}, 100 * FILL(errors, 0) / requests, 0)`,
      usingMetrics: {
        errors: stage.metricServerError({ period: ALARM_PERIOD, statistic: 'Sum' }),
        requests: stage.metricCount({ period: ALARM_PERIOD, statistic: 'Sum' }),
      },
      period: ALARM_PERIOD,
      label: '5xx rate (%)',
    });
    this.api5xxAlarm = this.alarm('Api5xxRate', {
      alarmName: `${name}-api-5xx-rate`,
      alarmDescription: `Over ${thresholds.api5xxPercent}% of API requests answered 5xx in 5 minutes (counted from ${thresholds.api5xxMinRequests} requests).`,
      metric: api5xxRate,
      threshold: thresholds.api5xxPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    this.apiLatencyAlarm = this.alarm('ApiP99Latency', {
      alarmName: `${name}-api-p99-latency`,
      alarmDescription: `The API's p99 latency was over ${thresholds.apiP99LatencyMs} ms for ${LATENCY_EVALUATION_PERIODS * 5} minutes.`,
      metric: stage.metricLatency({ period: ALARM_PERIOD, statistic: 'p99' }),
      threshold: thresholds.apiP99LatencyMs,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: LATENCY_EVALUATION_PERIODS,
      // Too few requests for a meaningful p99 (quiet hours): the alarm keeps its state.
      evaluateLowSampleCountPercentile: 'ignore',
    });

    const operations = { operations: [...TABLE_OPERATIONS], period: ALARM_PERIOD };
    this.tableThrottleAlarm = this.alarm('TableThrottles', {
      alarmName: `${name}-dynamodb-throttles`,
      alarmDescription: `${thresholds.dynamoThrottledRequests} or more table requests were throttled in 5 minutes (a hot key, or a burst past the on-demand headroom).`,
      metric: filledOperationSum(props.table.metricThrottledRequestsForOperations(operations), 'Throttled requests', ALARM_PERIOD),
      threshold: thresholds.dynamoThrottledRequests,
    });
    this.tableSystemErrorAlarm = this.alarm('TableSystemErrors', {
      alarmName: `${name}-dynamodb-system-errors`,
      alarmDescription: `DynamoDB answered ${thresholds.dynamoSystemErrors} or more requests with an internal error in 5 minutes.`,
      metric: filledOperationSum(props.table.metricSystemErrorsForOperations(operations), 'System errors', ALARM_PERIOD),
      threshold: thresholds.dynamoSystemErrors,
    });

    // A job whose schedule stopped fails silently: fewer than one invocation in `minutes` alarms.
    const notInvoked = (id: string, alarmName: string, job: ScheduledJob, minutes: number, description: string) =>
      this.alarm(id, {
        alarmName,
        alarmDescription: `${description} Is its schedule enabled?`,
        metric: job.function.metricInvocations({ period: Duration.minutes(minutes), statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        // No data is no invocation.
        treatMissingData: TreatMissingData.BREACHING,
      });
    if (props.scheduler) {
      const minutes = thresholds.schedulerSilentMinutes;
      this.schedulerAlarm = notInvoked(
        'SchedulerNotRunning',
        `${name}-scheduler-not-running`,
        props.scheduler,
        minutes,
        `The outreach scheduler was not invoked for ${minutes} minutes (it runs every minute): no due action is sent.`,
      );
    }
    // The other jobs (the enrichment sweeper: the recovery path of lost and dead-lettered chunks): three missed runs.
    for (const { name: jobName, job, everyMinutes } of props.scheduledJobs) {
      if (job === props.scheduler || everyMinutes === undefined) continue;
      const minutes = Math.max(5, everyMinutes * 3);
      this.jobSilenceAlarms[jobName] = notInvoked(
        `NotRunning${pascal(jobName)}`,
        `${name}-${slug(jobName)}-not-running`,
        job,
        minutes,
        `The scheduled job ${jobName} was not invoked for ${minutes} minutes (it runs every ${everyMinutes}): what it recovers waits.`,
      );
    }

    if (props.accountPauseLogGroup) {
      const event = FilterPattern.stringValue('$.event', '=', ACCOUNT_PAUSE_LOG.event);
      const filter = (filterId: string, metricName: string, pattern: ReturnType<typeof FilterPattern.all>) =>
        new MetricFilter(this, filterId, {
          logGroup: props.accountPauseLogGroup as ILogGroup,
          filterPattern: pattern,
          metricNamespace: name,
          metricName,
          metricValue: '1',
        }).metric({ period: ALARM_PERIOD, statistic: 'Sum' });
      this.accountPauses = filter('AccountPauses', 'SenderAccountPauses', FilterPattern.all(event));
      this.accountPausesForProvider = filter(
        'AccountPausesForProvider',
        'SenderAccountPausesForProvider',
        FilterPattern.all(event, FilterPattern.booleanValue('$.waitsForProvider', true)),
      );
      this.accountPauseAlarm = this.alarm('SenderAccountPaused', {
        alarmName: `${name}-sender-account-paused`,
        alarmDescription:
          'The engine paused a sender account until the provider reports it active (disconnected, credentials, restricted): its campaigns stop sending through it until someone reconnects it. The sender log line has the workspace and account.',
        metric: this.accountPausesForProvider,
        threshold: thresholds.accountPauses,
      });
    }

    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      name,
      api: props.api,
      table: props.table,
      tableOperations: TABLE_OPERATIONS,
      functions: props.functions,
      queues: props.queues,
      scheduledJobs: props.scheduledJobs,
      accountPauses: this.accountPauses,
      accountPausesForProvider: this.accountPausesForProvider,
      alarms: this.alarms,
    });
  }

  /** The alarm notifies the topic when it fires and when it recovers. */
  private notify(alarm: Alarm): Alarm {
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }

  /** An alarm over one 5-minute period, `>=` its threshold, quiet without data, unless told otherwise. */
  private alarm(
    id: string,
    props: {
      alarmName: string;
      alarmDescription: string;
      metric: IMetric;
      threshold: number;
      comparisonOperator?: ComparisonOperator;
      evaluationPeriods?: number;
      treatMissingData?: TreatMissingData;
      evaluateLowSampleCountPercentile?: string;
    },
  ): Alarm {
    return this.notify(
      new Alarm(this, id, {
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        ...props,
      }),
    );
  }
}
