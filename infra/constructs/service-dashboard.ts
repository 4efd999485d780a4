import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  MathExpression,
  type Metric,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Operation, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import type { MonitoredFunction, MonitoredQueue } from './service-monitoring';
import type { ScheduledJob } from './scheduled-job';

export interface ServiceDashboardProps {
  /** The dashboard's name (the stack name). */
  readonly name: string;
  readonly api: RestApi;
  readonly table: Table;
  readonly tableOperations: readonly Operation[];
  readonly functions: readonly MonitoredFunction[];
  readonly queues: readonly MonitoredQueue[];
  readonly scheduledJobs: readonly { readonly name: string; readonly job: ScheduledJob }[];
  readonly accountPauses?: Metric | undefined;
  readonly accountPausesForProvider?: Metric | undefined;
  readonly alarms: readonly Alarm[];
}

/** Graphs show 1-minute points; the alarms look at 5-minute periods. */
const PERIOD = Duration.minutes(1);
const WIDTH = 8;
const HEIGHT = 6;

/** Widget titles, in order: the tests and docs/operations.md name them. */
export const DASHBOARD_WIDGETS = {
  alarms: 'Alarms',
  apiRequests: 'API requests',
  apiErrors: 'API errors (4xx, 5xx)',
  apiLatency: 'API latency (ms)',
  lambdaErrors: 'Function errors',
  lambdaThrottles: 'Function throttles',
  lambdaConcurrency: 'Function concurrency (max)',
  queueDepth: 'Queue depth (visible messages)',
  queueAge: 'Oldest message age (s)',
  deadLetters: 'Dead-letter queues (messages)',
  tableCapacity: 'DynamoDB consumed capacity (units per minute)',
  tableThrottles: 'DynamoDB throttled requests',
  tableErrors: 'DynamoDB system errors',
  schedules: 'Scheduled job invocations',
  accountPauses: 'Sender account pauses',
} as const;

/**
 * Sums per-operation DynamoDB metrics with each one's gaps filled with 0. DynamoDB publishes a
 * throttle or error metric only for an operation that had one, and metric math drops a timestamp
 * any operand lacks, so CDK's plain `a + b + ...` would miss a throttle of one operation while the
 * others are quiet.
 */
export function filledOperationSum(sum: IMetric, label: string, period: Duration): MathExpression {
  if (!(sum instanceof MathExpression)) throw new Error('Expected the per-operation sum of a DynamoDB table metric');
  return new MathExpression({
    expression: Object.keys(sum.usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics: sum.usingMetrics,
    period,
    label,
  });
}

/**
 * The service's CloudWatch dashboard: its alarms, then one row each for the API (requests, errors,
 * latency), the functions (errors, throttles, concurrency), the queues (depth, oldest message,
 * dead letters), the table (capacity, throttles, errors) and the engine (scheduled runs, account
 * pauses).
 */
export class ServiceDashboard extends Construct {
  public readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const stage = props.api.deploymentStage;
    const graph = (title: string, left: IMetric[], extra: Partial<ConstructorParameters<typeof GraphWidget>[0]> = {}): IWidget =>
      new GraphWidget({ title, left, width: WIDTH, height: HEIGHT, period: PERIOD, ...extra });
    const sum = { period: PERIOD, statistic: 'Sum' };
    const max = { period: PERIOD, statistic: 'Maximum' };
    const each = <T>(items: readonly T[], metric: (item: T) => IMetric) => items.map(metric);

    const apiRow = [
      graph(DASHBOARD_WIDGETS.apiRequests, [stage.metricCount({ ...sum, label: 'Requests' })]),
      graph(DASHBOARD_WIDGETS.apiErrors, [stage.metricClientError({ ...sum, label: '4xx' }), stage.metricServerError({ ...sum, label: '5xx' })]),
      graph(DASHBOARD_WIDGETS.apiLatency, [
        stage.metricLatency({ period: PERIOD, statistic: 'p50', label: 'p50' }),
        stage.metricLatency({ period: PERIOD, statistic: 'p99', label: 'p99' }),
        stage.metricIntegrationLatency({ period: PERIOD, statistic: 'p99', label: 'integration p99' }),
      ]),
    ];
    const functionRow = [
      graph(DASHBOARD_WIDGETS.lambdaErrors, each(props.functions, ({ key, fn }) => fn.metricErrors({ ...sum, label: key }))),
      graph(DASHBOARD_WIDGETS.lambdaThrottles, each(props.functions, ({ key, fn }) => fn.metricThrottles({ ...sum, label: key }))),
      graph(
        DASHBOARD_WIDGETS.lambdaConcurrency,
        each(props.functions, ({ key, fn }) => fn.metric('ConcurrentExecutions', { ...max, label: key })),
      ),
    ];
    const deadLetterQueues = [
      ...props.queues.map(({ name, consumer }) => ({ name, queue: consumer.deadLetterQueue })),
      ...props.scheduledJobs.map(({ name, job }) => ({ name, queue: job.deadLetterQueue })),
    ];
    const queueRow = [
      graph(
        DASHBOARD_WIDGETS.queueDepth,
        each(props.queues, ({ name, consumer }) => consumer.queue.metricApproximateNumberOfMessagesVisible({ ...max, label: name })),
      ),
      graph(
        DASHBOARD_WIDGETS.queueAge,
        each(props.queues, ({ name, consumer }) => consumer.queue.metricApproximateAgeOfOldestMessage({ ...max, label: name })),
      ),
      graph(
        DASHBOARD_WIDGETS.deadLetters,
        each(deadLetterQueues, ({ name, queue }) => queue.metricApproximateNumberOfMessagesVisible({ ...max, label: `${name}-dlq` })),
      ),
    ];
    const operations = { operations: [...props.tableOperations], period: PERIOD };
    const tableRow = [
      graph(DASHBOARD_WIDGETS.tableCapacity, [
        props.table.metricConsumedReadCapacityUnits({ ...sum, label: 'Read' }),
        props.table.metricConsumedWriteCapacityUnits({ ...sum, label: 'Write' }),
      ]),
      graph(DASHBOARD_WIDGETS.tableThrottles, [filledOperationSum(props.table.metricThrottledRequestsForOperations(operations), 'Throttled requests', PERIOD)]),
      graph(DASHBOARD_WIDGETS.tableErrors, [filledOperationSum(props.table.metricSystemErrorsForOperations(operations), 'System errors', PERIOD)]),
    ];
    const engineRow = [
      graph(
        DASHBOARD_WIDGETS.schedules,
        each(props.scheduledJobs, ({ name, job }) => job.function.metricInvocations({ ...sum, label: name })),
      ),
      ...(props.accountPauses && props.accountPausesForProvider
        ? [
            graph(DASHBOARD_WIDGETS.accountPauses, [
              props.accountPauses.with({ ...sum, label: 'All pauses (quota pauses too)' }),
              props.accountPausesForProvider.with({ ...sum, label: 'Waiting for the provider' }),
            ]),
          ]
        : []),
    ];

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.name,
      defaultInterval: Duration.hours(3),
      widgets: [
        [new AlarmStatusWidget({ title: DASHBOARD_WIDGETS.alarms, alarms: [...props.alarms], width: 3 * WIDTH, height: 8 })],
        apiRow,
        functionRow,
        queueRow,
        tableRow,
        engineRow,
      ],
    });
  }
}
