import { Duration } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { Schedule } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterAlarm } from './queue-consumer';
import { ServiceFunction, type ServiceFunctionProps } from './service-function';

export interface ScheduledJobProps {
  /** When to run, e.g. `ScheduleExpression.rate(Duration.minutes(1))`. */
  schedule: ScheduleExpression;
  function: ServiceFunctionProps;
  description?: string;
  /** Invocation retries EventBridge Scheduler makes before giving up. Default 2. */
  retryAttempts?: number;
  /** How long a missed invocation is still worth making. Default 5 minutes. */
  maxEventAge?: Duration;
}

/**
 * An EventBridge Scheduler schedule invoking a function. The scheduler invokes it asynchronously:
 * an invocation it cannot make (throttled, the function missing) is retried by the scheduler, and
 * one it gives up on lands in a dead-letter queue instead of vanishing. A run that fails inside the
 * function is not retried by Lambda (its asynchronous defaults would retry it twice, a minute and
 * three minutes later, beside the ticks that run meanwhile) and a run still queued after a minute
 * (throttled) is dropped: the next tick is the retry, over the same state, and the function's error
 * alarm tells. The job must tolerate a skipped or doubled run (the scheduler is at-least-once).
 */
export class ScheduledJob extends Construct {
  public readonly function: ServiceFunction;
  public readonly schedule: Schedule;
  public readonly deadLetterQueue: Queue;
  /** In alarm while an invocation the scheduler could not make waits in the dead-letter queue. */
  public readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ScheduledJobProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, 'Function', props.function);
    // Every job runs every few minutes over state that says what is left: its next tick retries.
    this.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.schedule = new Schedule(this, 'Schedule', {
      schedule: props.schedule,
      description: props.description,
      target: new LambdaInvoke(this.function, {
        retryAttempts: props.retryAttempts ?? 2,
        maxEventAge: props.maxEventAge ?? Duration.minutes(5),
        deadLetterQueue: this.deadLetterQueue,
      }),
    });
    this.deadLetterAlarm = deadLetterAlarm(this, this.deadLetterQueue, `Invocations of ${id} the scheduler could not make (the schedule's dead-letter queue)`);
  }
}
