import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { OUTREACH, OUTREACH_SCHEDULER } from '../../shared/runtime/catalog';
import { type CfnResource, actionsOf, logicalId, policyStatements, resourcesOf, resourcesOfType, sharedStack } from './template-helpers';

/** The outreach engine in the stack: the schedule, the scheduler, the outreach queue and the sender. */
describe('OutreachStack: the outreach engine (no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;

  beforeAll(() => {
    ({ stack, template } = sharedStack());
    resources = template.toJSON().Resources;
  });

  const sender = () => {
    const consumer = stack.queueConsumers[OUTREACH.name];
    if (!consumer) throw new Error('no outreach queue');
    return consumer;
  };
  const scheduler = () => {
    const job = stack.scheduledJobs[OUTREACH_SCHEDULER.name];
    if (!job) throw new Error('no outreach scheduler');
    return job;
  };
  const queueActions = (fnRole: unknown, queueId: string) =>
    policyStatements(template, logicalId(stack, fnRole as never))
      .filter((statement) => resourcesOf(statement).includes(`\${${queueId}.Arn}`))
      .flatMap(actionsOf)
      .sort();

  it('runs the scheduler every minute through EventBridge Scheduler, with retries and a dead-letter queue', () => {
    const job = scheduler();
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Target: Match.objectLike({
        Arn: { 'Fn::GetAtt': [logicalId(stack, job.function), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [logicalId(stack, job.deadLetterQueue), 'Arn'] } },
      }),
    });
    expect(resources[logicalId(stack, job.function)]?.Properties.Timeout).toBe(60);
  });

  it('gives the scheduler the table and the outreach queue, and lets it only send there', () => {
    const job = scheduler();
    const queueId = logicalId(stack, sender().queue);
    expect(resources[logicalId(stack, job.function)]?.Properties.Environment.Variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: { Ref: logicalId(stack, stack.table.table) },
      RUNTIME: 'aws',
      OUTREACH_QUEUE_URL: { Ref: queueId },
    });
    expect(queueActions(job.function.role, queueId)).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    // Nobody else sends due actions.
    for (const fn of [...Object.values(stack.functions), sender().function]) {
      expect(queueActions(fn.role, queueId).includes('sqs:SendMessage'), fn.node.id).toBe(false);
    }
  });

  it('consumes the outreach queue 5 messages at a time with partial batch failures, a 120 s sender and a dead-letter queue after 5 receives', () => {
    const consumer = sender();
    const queueId = logicalId(stack, consumer.queue);
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 720,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack, consumer.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 },
    });
    const mappings = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties);
    expect(mappings.filter((mapping) => mapping.EventSourceArn['Fn::GetAtt'][0] === queueId)).toEqual([
      {
        FunctionName: { Ref: logicalId(stack, consumer.function) },
        EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
        BatchSize: 5,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        // At most 5 batches at once (catalog: provider calls in flight, the list digest hot key).
        ScalingConfig: { MaximumConcurrency: 5 },
      },
    ]);
    expect(resources[logicalId(stack, consumer.function)]?.Properties.Timeout).toBe(120);
  });

  it('gives the sender the table, the provider and the unsubscribe links (public URL and key), and no queue to send to', () => {
    const variables = resources[logicalId(stack, sender().function)]?.Properties.Environment.Variables;
    expect(Object.keys(variables).sort()).toEqual([
      'MAX_LEADS_PER_LIST',
      'NODE_OPTIONS',
      'PROVIDER_ACCESS_TOKEN_ARN',
      'PROVIDER_BASE_URL',
      'PUBLIC_API_URL',
      'RUNTIME',
      'TABLE_NAME',
      'UNSUBSCRIBE_SECRET_ARN',
    ]);
    const sends = policyStatements(template, logicalId(stack, sender().function.role as never)).flatMap(actionsOf);
    expect(sends.filter((action) => action.startsWith('sqs:Send'))).toEqual([]);
  });

  it('alarms when a due action or a scheduler run lands in a dead-letter queue', () => {
    for (const [owner, dlq] of [
      [sender().deadLetterAlarm, sender().deadLetterQueue],
      [scheduler().deadLetterAlarm, scheduler().deadLetterQueue],
    ] as const) {
      expect(resources[logicalId(stack, owner)]?.Properties).toMatchObject({
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        EvaluationPeriods: 1,
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        TreatMissingData: 'notBreaching',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, dlq), 'QueueName'] } }],
      });
    }
  });
});
