import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ServiceFunction, type ServiceFunctionProps } from './service-function';

export interface QueueConsumerProps {
  /** The consumer function; its timeout sets the queue's visibility timeout. */
  function: ServiceFunctionProps;
  /** Receives before a message moves to the dead-letter queue. Default 5. */
  maxReceiveCount?: number;
  /** Messages per invocation. Default 10. */
  batchSize?: number;
  /** How long Lambda gathers a batch. Default none. */
  maxBatchingWindow?: Duration;
  /**
   * Caps concurrent invocations from this queue (2..1000; CDK checks the range). Default none. A
   * reserved concurrency on the function below it is refused (see the constructor).
   */
  maxConcurrency?: number;
  /** How long an unprocessed message stays in the queue. Default 4 days (the SQS default). */
  retentionPeriod?: Duration;
}

/** Default consumer timeout when the function props do not give one. */
const DEFAULT_TIMEOUT = Duration.seconds(30);

/**
 * A queue, its dead-letter queue and the Lambda function that consumes it.
 *
 * - The event source reports partial batch failures: only the failed messages return to the
 *   queue, so the consumer must be idempotent per message (it is a project-wide rule anyway).
 * - The visibility timeout is 6x the function timeout, as AWS recommends for Lambda event sources,
 *   so a message is not redelivered while a slow or retried invocation still holds it.
 * - After `maxReceiveCount` receives a message moves to the dead-letter queue, kept for 14 days.
 * - `maxConcurrency` caps the consumer's concurrent invocations at the event source (the poller
 *   stops starting more), so nothing is throttled and no receive is wasted, unlike a reserved
 *   concurrency alone.
 */
export class QueueConsumer extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;
  public readonly function: ServiceFunction;
  /** In alarm while any message waits in the dead-letter queue: work that failed every retry. */
  public readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, id: string, props: QueueConsumerProps) {
    super(scope, id);
    const timeout = props.function.timeout ?? DEFAULT_TIMEOUT;
    const reserved = props.function.reservedConcurrentExecutions;
    if (reserved !== undefined && props.maxConcurrency !== undefined && reserved < props.maxConcurrency) {
      // The event source would start invocations the function cannot run: throttled receives count
      // towards maxReceiveCount and push good messages into the dead-letter queue.
      throw new Error(`${id}: reserved concurrency ${reserved} is below the event source's maxConcurrency ${props.maxConcurrency}`);
    }

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(timeout.toSeconds() * 6),
      retentionPeriod: props.retentionPeriod ?? Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 5 },
    });
    this.function = new ServiceFunction(this, 'Function', { ...props.function, timeout });
    this.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: props.batchSize ?? 10,
        maxBatchingWindow: props.maxBatchingWindow,
        maxConcurrency: props.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    this.deadLetterAlarm = deadLetterAlarm(this, this.deadLetterQueue, `Messages of ${id} failed every retry and wait in its dead-letter queue`);
  }
}

/**
 * An alarm on a dead-letter queue: a message there is work that failed silently (an action never
 * sent, a webhook never delivered), so one message is enough.
 */
export function deadLetterAlarm(scope: Construct, queue: Queue, description: string): Alarm {
  return new Alarm(scope, 'DeadLetterAlarm', {
    alarmDescription: description,
    metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
