import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { beforeAll, describe, expect, it } from 'vitest';
import { QueueConsumer } from '../../infra/constructs/queue-consumer';
import { ScheduledJob } from '../../infra/constructs/scheduled-job';
import { FUNCTION_GROUPS } from '../../shared/http/route-table';
import {
  actionsOf,
  logicalId,
  resourcesOf,
  resourcesOfType,
  testApp,
} from './template-helpers';

describe('QueueConsumer (throwaway stack)', () => {
  let stack: Stack;
  let template: Template;
  let consumer: QueueConsumer;
  let defaults: QueueConsumer;

  beforeAll(() => {
    stack = new Stack(testApp({ bundle: false }), 'QueueConsumerTest');
    consumer = new QueueConsumer(stack, 'Sender', {
      function: { entry: FUNCTION_GROUPS.health.entry, timeout: Duration.seconds(20) },
      maxReceiveCount: 3,
      batchSize: 5,
      maxBatchingWindow: Duration.seconds(2),
    });
    defaults = new QueueConsumer(stack, 'Defaults', { function: { entry: FUNCTION_GROUPS.health.entry } });
    template = Template.fromStack(stack);
  });

  it('sets the visibility timeout to 6x the function timeout and redrives to the DLQ', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 120,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack, consumer.deadLetterQueue), 'Arn'] }, maxReceiveCount: 3 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack, defaults.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: 14 * 24 * 3600 });
    expect(template.toJSON().Resources[logicalId(stack, consumer.function)].Properties.Timeout).toBe(20);
    expect(template.toJSON().Resources[logicalId(stack, defaults.function)].Properties.Timeout).toBe(30);
  });

  it('reports partial batch failures', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(stack, consumer.function) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack, consumer.queue), 'Arn'] },
      BatchSize: 5,
      MaximumBatchingWindowInSeconds: 2,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    for (const [, mapping] of resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')) {
      expect(mapping.Properties?.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    }
  });

  it('uses the service function defaults', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { Runtime: 'nodejs22.x', Architectures: ['arm64'] });
  });
});

describe('ScheduledJob (throwaway stack)', () => {
  let stack: Stack;
  let template: Template;
  let job: ScheduledJob;

  beforeAll(() => {
    stack = new Stack(testApp({ bundle: false }), 'ScheduledJobTest');
    job = new ScheduledJob(stack, 'Sweeper', {
      schedule: ScheduleExpression.rate(Duration.minutes(5)),
      function: { entry: FUNCTION_GROUPS.health.entry },
      retryAttempts: 3,
    });
    template = Template.fromStack(stack);
  });

  it('invokes the function on schedule, with retries and a dead-letter queue', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: Match.objectLike({
        Arn: { 'Fn::GetAtt': [logicalId(stack, job.function), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 300 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [logicalId(stack, job.deadLetterQueue), 'Arn'] } },
      }),
    });
  });

  it('leaves a failed or throttled run to the next tick: no Lambda retries, dropped after a minute', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(stack, job.function) },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
  });

  it("lets the scheduler's role invoke the function", () => {
    const invoke = resourcesOfType(template, 'AWS::IAM::Policy')
      .flatMap(([, policy]) => policy.Properties?.PolicyDocument.Statement)
      .filter((statement) => actionsOf(statement).includes('lambda:InvokeFunction'));
    expect(invoke.flatMap(resourcesOf)).toEqual([`\${${logicalId(stack, job.function)}.Arn}`, `\${${logicalId(stack, job.function)}.Arn}:*`]);
  });
});
