import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceFunction } from '../../infra/constructs/service-function';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { ENRICHMENT, ENRICHMENT_SWEEPER } from '../../shared/runtime/catalog';
import { type CfnResource, actionsOf, dynamoAccess, logicalId, policyStatements, resourcesOf, resourcesOfType, sharedStack } from './template-helpers';

/** Enrichment in the stack: the enrichment function, the queue and its worker, the sweeper, the providers' secrets. */
describe('OutreachStack: enrichment (no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;

  beforeAll(() => {
    ({ stack, template } = sharedStack());
    resources = template.toJSON().Resources;
  });

  const worker = () => {
    const consumer = stack.queueConsumers[ENRICHMENT.name];
    if (!consumer) throw new Error('no enrichment queue');
    return consumer;
  };
  const sweeper = () => {
    const job = stack.scheduledJobs[ENRICHMENT_SWEEPER.name];
    if (!job) throw new Error('no enrichment sweeper');
    return job;
  };
  const webhooksQueue = () => {
    const consumer = stack.queueConsumers.webhooks;
    if (!consumer) throw new Error('no webhooks queue');
    return consumer.queue;
  };
  const envOf = (fn: { node: { defaultChild?: unknown } }): Record<string, unknown> => resources[logicalId(stack, fn)]?.Properties.Environment.Variables ?? {};
  const queueActions = (fnRole: unknown, queue: { node: { defaultChild?: unknown } }) =>
    policyStatements(template, logicalId(stack, fnRole as never))
      .filter((statement) => resourcesOf(statement).includes(`\${${logicalId(stack, queue)}.Arn}`))
      .flatMap(actionsOf)
      .sort();
  const SEND = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];
  const secretId = (env: string) => {
    const found = resourcesOfType(template, 'AWS::SecretsManager::Secret').find(([, secret]) => String(secret.Properties.Description).includes(`(${env})`));
    if (!found) throw new Error(`no secret ${env}`);
    return found[0];
  };

  it('consumes the enrichment queue 10 chunks at a time with partial batch failures, a 120 s worker and a dead-letter queue after 5 receives', () => {
    const consumer = worker();
    const queueId = logicalId(stack, consumer.queue);
    expect(resources[queueId]?.Properties).toMatchObject({
      VisibilityTimeout: 720,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack, consumer.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 },
    });
    const mappings = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties);
    expect(mappings.filter((mapping) => mapping.EventSourceArn['Fn::GetAtt'][0] === queueId)).toEqual([
      {
        FunctionName: { Ref: logicalId(stack, consumer.function) },
        EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        // The minimum: the enrichment providers' rate limits and the job item (a hot key).
        ScalingConfig: { MaximumConcurrency: 2 },
      },
    ]);
    expect(resources[logicalId(stack, consumer.function)]?.Properties.Timeout).toBe(120);
  });

  it('alarms when an enrichment chunk or a sweeper run lands in a dead-letter queue', () => {
    for (const [alarm, dlq] of [
      [worker().deadLetterAlarm, worker().deadLetterQueue],
      [sweeper().deadLetterAlarm, sweeper().deadLetterQueue],
    ] as const) {
      expect(resources[logicalId(stack, alarm)]?.Properties).toMatchObject({
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

  it('runs the sweeper every 5 minutes through EventBridge Scheduler, with retries and a dead-letter queue', () => {
    const job = sweeper();
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Target: Match.objectLike({
        Arn: { 'Fn::GetAtt': [logicalId(stack, job.function), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [logicalId(stack, job.deadLetterQueue), 'Arn'] } },
      }),
    });
    expect(resources[logicalId(stack, job.function)]?.Properties.Timeout).toBe(60);
  });

  it('keeps the three provider keys in Secrets Manager, readable only by the enrichment function and the worker', () => {
    const generated = { ExcludePunctuation: true, PasswordLength: 32 };
    for (const env of ['HUNTER_API_KEY', 'PROSPEO_API_KEY', 'LUSHA_API_KEY']) {
      expect(resources[secretId(env)]?.Properties.GenerateSecretString, env).toEqual(generated);
      expect(resources[secretId(env)]?.Properties.SecretString, env).toBeUndefined();
      // The ARN, never the value: the functions read the key at runtime (shared/config/secrets.ts).
      const holders = resourcesOfType(template, 'AWS::Lambda::Function')
        .filter(([, fn]) => fn.Properties.Environment?.Variables?.[`${env}_ARN`] !== undefined)
        .map(([id]) => id)
        .sort();
      expect(holders, env).toEqual([logicalId(stack, stack.functions.enrichment), logicalId(stack, worker().function)].sort());
      for (const fn of [stack.functions.enrichment, worker().function]) {
        expect(envOf(fn)[`${env}_ARN`], env).toEqual({ Ref: secretId(env) });
        const reads = policyStatements(template, logicalId(stack, fn.role as never)).filter((statement) => resourcesOf(statement).includes(`\${${secretId(env)}}`));
        expect(reads.flatMap(actionsOf), env).toEqual(['secretsmanager:GetSecretValue']);
      }
    }
  });

  it('gives the enrichment function exactly its settings: no key to open webhook secrets with', () => {
    expect(Object.keys(envOf(stack.functions.enrichment)).sort()).toEqual([
      'ENRICHMENT_QUEUE_URL',
      'HUNTER_API_KEY_ARN',
      'LUSHA_API_KEY_ARN',
      'MAX_LEADS_PER_LIST',
      'NODE_OPTIONS',
      'PROSPEO_API_KEY_ARN',
      'RUNTIME',
      'TABLE_NAME',
      'WEBHOOKS_QUEUE_URL',
    ]);
    expect(envOf(stack.functions.enrichment).ENRICHMENT_QUEUE_URL).toEqual({ Ref: logicalId(stack, worker().queue) });
    expect(Object.keys(envOf(worker().function)).sort()).toEqual([
      'HUNTER_API_KEY_ARN',
      'LUSHA_API_KEY_ARN',
      'MAX_LEADS_PER_LIST',
      'NODE_OPTIONS',
      'PROSPEO_API_KEY_ARN',
      'RUNTIME',
      'TABLE_NAME',
      'WEBHOOKS_QUEUE_URL',
    ]);
    expect(Object.keys(envOf(sweeper().function)).sort()).toEqual(['ENRICHMENT_QUEUE_URL', 'NODE_OPTIONS', 'RUNTIME', 'TABLE_NAME', 'WEBHOOKS_QUEUE_URL']);
  });

  it('lets the enrichment function and the sweeper send chunks, and all three send completion events, nothing else', () => {
    const chunks = worker().queue;
    expect(queueActions(stack.functions.enrichment.role, chunks)).toEqual(SEND);
    expect(queueActions(sweeper().function.role, chunks)).toEqual(SEND);
    expect(queueActions(stack.functions.enrichment.role, webhooksQueue())).toEqual(SEND);
    expect(queueActions(worker().function.role, webhooksQueue())).toEqual(SEND);
    // The worker only consumes its queue (the event source's receive and delete), never sends to it.
    expect(queueActions(worker().function.role, chunks).includes('sqs:SendMessage')).toBe(false);
    // The sweeper completes a job whose last chunk was applied before a crash, and notifies.
    expect(queueActions(sweeper().function.role, webhooksQueue())).toEqual(SEND);
    for (const fn of Object.values(stack.functions)) {
      if (fn === stack.functions.enrichment) continue;
      expect(queueActions(fn.role, chunks), fn.node.id).toEqual([]);
    }
  });

  it('gives the enrichment function and the worker every item action (they write leads), the sweeper only what it uses', () => {
    const access = (fn: ServiceFunction) =>
      dynamoAccess(template, logicalId(stack, fn.role as never), logicalId(stack, stack.table.table)).table;
    const leadWriter = ['BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'];
    expect(access(stack.functions.enrichment)).toEqual(leadWriter);
    expect(access(worker().function)).toEqual(leadWriter);
    // Running jobs (gsi2), the chunks a job lacks (batch), its chunks, touch and complete.
    expect(access(sweeper().function)).toEqual(['BatchWriteItem', 'DeleteItem', 'PutItem', 'Query', 'UpdateItem']);
  });
});
