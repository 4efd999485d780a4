import { Duration, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../infra/config';
import { QueueConsumer } from '../../infra/constructs/queue-consumer';
import { OutreachStack } from '../../infra/stacks/outreach-stack';
import { FUNCTION_GROUPS } from '../../shared/http/route-table';
import { CAMPAIGN_SCHEDULING, ENRICHMENT, ENRICHMENT_SWEEPER, INBOUND_RETRY, OUTREACH, OUTREACH_SCHEDULER, QUEUES, SCHEDULES, WEBHOOK_DELIVERY } from '../../shared/runtime/catalog';
import { type CfnResource, type Json, logicalId, resourcesOfType, testApp } from './template-helpers';
import { FILLED_SUM, OPERATIONS, alarmsByName, probeViews, sharedSynth, synth } from './monitoring-helpers';

describe('OutreachStack monitoring (cdk.json context, no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;
  let alarms: Map<string, Json>;

  beforeAll(() => {
    ({ stack, template, resources, alarms } = sharedSynth());
  });

  const { ref, topicRef, alarm, consumer, functionKeys } = probeViews(() => ({ stack, alarms }));

  describe('the alarm topic', () => {
    it('is one SNS topic with no subscription when alarmEmail is unset', () => {
      template.resourceCountIs('AWS::SNS::Topic', 1);
      template.hasResourceProperties('AWS::SNS::Topic', { DisplayName: 'SharedProbe alarms' });
      template.resourceCountIs('AWS::SNS::Subscription', 0);
    });

    it("lets this account's alarms publish to it, over TLS only (its policy replaces SNS's default one)", () => {
      const policies = resourcesOfType(template, 'AWS::SNS::TopicPolicy');
      expect(policies).toHaveLength(1);
      const [, { Properties }] = policies[0] as [string, Json];
      expect(Properties.Topics).toEqual([topicRef()]);
      const account = { Ref: 'AWS::AccountId' };
      expect(Properties.PolicyDocument.Statement).toEqual([
        {
          Sid: 'AllowPublishThroughSSLOnly',
          Effect: 'Deny',
          Action: 'sns:Publish',
          Principal: '*',
          Resource: topicRef(),
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        },
        {
          Sid: 'AllowThisAccountsAlarmsToPublish',
          Effect: 'Allow',
          Action: 'sns:Publish',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Resource: topicRef(),
          Condition: {
            StringEquals: { 'aws:SourceAccount': account },
            ArnLike: { 'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', account, ':alarm:*']] } },
          },
        },
      ]);
    });

    it('is the action of every alarm, when it fires and when it recovers', () => {
      const all = resourcesOfType(template, 'AWS::CloudWatch::Alarm');
      // The dead-letter queues (one per queue and job), the queue ages, errors and throttles of each
      // function, API 5xx and p99, table throttles and system errors, the scheduler, the account
      // pauses, and each other job's silence (the enrichment sweeper).
      const functions = resourcesOfType(template, 'AWS::Lambda::Function').length;
      expect(functions).toBe(Object.keys(FUNCTION_GROUPS).length + 1 + QUEUES.length + SCHEDULES.length);
      expect(all).toHaveLength(QUEUES.length + SCHEDULES.length + QUEUES.length + 2 * functions + 6 + (SCHEDULES.length - 1));
      for (const [id, { Properties }] of all) {
        expect(Properties.AlarmActions, id).toEqual([topicRef()]);
        expect(Properties.OKActions, id).toEqual([topicRef()]);
        expect(Properties.AlarmName, id).toMatch(/^SharedProbe-[a-z0-9]+-/i);
      }
      expect(new Set(all.map(([, { Properties }]) => Properties.AlarmName)).size).toBe(all.length);
    });
  });

  it('alarms on any message in any dead-letter queue', () => {
    const dlqs = [
      ...QUEUES.map((queue) => [queue.name, consumer(queue.name).deadLetterQueue] as const),
      ...SCHEDULES.map((schedule) => [schedule.name, stack.scheduledJobs[schedule.name]?.deadLetterQueue] as const),
    ];
    // Every queue of the stack is a catalog queue or one of these dead-letter queues.
    expect(resourcesOfType(template, 'AWS::SQS::Queue')).toHaveLength(QUEUES.length + dlqs.length);
    for (const [name, dlq] of dlqs) {
      expect(alarm(`dlq-${name}`)).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Namespace: 'AWS/SQS',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, dlq as never), 'QueueName'] } }],
        Statistic: 'Maximum',
        Period: 300,
        Threshold: 1,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [topicRef()],
      });
    }
  });

  it.each([
    [WEBHOOK_DELIVERY.name, 30],
    [CAMPAIGN_SCHEDULING.name, 15],
    [OUTREACH.name, 15],
    [ENRICHMENT.name, 60],
    [INBOUND_RETRY.name, 60],
  ])('alarms when the oldest message of the %s queue waits over %i minutes', (name, minutes) => {
    expect(QUEUES.find((queue) => queue.name === name)?.oldestMessageAlarmMinutes).toBe(minutes);
    expect(alarm(`queue-age-${name}`)).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, consumer(name).queue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: minutes * 60,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on the errors (3 in 5 minutes) and throttles (any) of every function', () => {
    const keys = functionKeys();
    expect(new Set(keys.map(([, fn]) => logicalId(stack, fn as never)))).toEqual(
      new Set(resourcesOfType(template, 'AWS::Lambda::Function').map(([id]) => id)),
    );
    for (const [key, fn] of keys) {
      const dimensions = [{ Name: 'FunctionName', Value: { Ref: logicalId(stack, fn as never) } }];
      const common = { Namespace: 'AWS/Lambda', Dimensions: dimensions, Statistic: 'Sum', Period: 300, EvaluationPeriods: 1 };
      expect(alarm(`errors-${key}`), key).toMatchObject({
        ...common,
        MetricName: 'Errors',
        Threshold: 3,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(alarm(`throttles-${key}`), key).toMatchObject({
        ...common,
        MetricName: 'Throttles',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
    }
  });

  describe('API alarms', () => {
    const stageDimensions = () => [
      { Name: 'ApiName', Value: 'SharedProbe' },
      { Name: 'Stage', Value: ref(stack.api.api.deploymentStage) },
    ];

    it('names the API after the stack (the ApiName dimension of its metrics)', () => {
      expect(resources[logicalId(stack, stack.api.api)]?.Properties.Name).toBe('SharedProbe');
    });

    it('alarms when over 5% of at least 20 requests in 5 minutes answer 5xx', () => {
      expect(alarm('api-5xx-rate')).toEqual({
        AlarmName: 'SharedProbe-api-5xx-rate',
        AlarmDescription: expect.any(String),
        AlarmActions: [topicRef()],
        OKActions: [topicRef()],
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 5,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
        Metrics: [
          { Id: 'expr_1', Expression: 'IF(requests >= 20, 100 * FILL(errors, 0) / requests, 0)', Label: '5xx rate (%)', ReturnData: true },
          {
            Id: 'errors',
            MetricStat: { Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5XXError', Dimensions: stageDimensions() }, Period: 300, Stat: 'Sum' },
            ReturnData: false,
          },
          {
            Id: 'requests',
            MetricStat: { Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Count', Dimensions: stageDimensions() }, Period: 300, Stat: 'Sum' },
            ReturnData: false,
          },
        ],
      });
    });

    it('alarms when the p99 latency is over 5 s for 15 minutes, ignoring periods with too few requests', () => {
      expect(alarm('api-p99-latency')).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        Dimensions: stageDimensions(),
        ExtendedStatistic: 'p99',
        Period: 300,
        Threshold: 5000,
        EvaluationPeriods: 3,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluateLowSampleCountPercentile: 'ignore',
        TreatMissingData: 'notBreaching',
      });
    });
  });

  it.each([
    ['dynamodb-throttles', 'ThrottledRequests', 10, 'Throttled requests'],
    ['dynamodb-system-errors', 'SystemErrors', 5, 'System errors'],
  ])('alarms on the table: %s (%s of every operation the service calls, gaps filled) from %i in 5 minutes', (name, metric, threshold, label) => {
    const tableRef = { Ref: logicalId(stack, stack.table.table) };
    expect(alarm(name)).toMatchObject({
      Threshold: threshold,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      Metrics: [
        { Id: 'expr_1', Expression: FILLED_SUM, Label: label, ReturnData: true },
        ...OPERATIONS.map((operation) => ({
          Id: operation.toLowerCase(),
          MetricStat: {
            Metric: {
              Namespace: 'AWS/DynamoDB',
              MetricName: metric,
              Dimensions: [
                { Name: 'Operation', Value: operation },
                { Name: 'TableName', Value: tableRef },
              ],
            },
            Period: 300,
            Stat: 'Sum',
          },
          ReturnData: false,
        })),
      ],
    });
    // A metric math alarm takes at most 10 metrics.
    expect(alarm(name).Metrics.length - 1).toBeLessThanOrEqual(10);
  });

  it.each([
    ['the outreach scheduler was not invoked for 5 minutes', OUTREACH_SCHEDULER.name, 'scheduler-not-running', 300],
    ['the enrichment sweeper (every 5 minutes) missed three runs', ENRICHMENT_SWEEPER.name, 'enrichment-sweeper-not-running', 900],
  ])('alarms when %s (no data is no invocation)', (_, jobName, alarmName, period) => {
    const job = stack.scheduledJobs[jobName];
    if (!job) throw new Error(`no ${jobName}`);
    expect(alarm(alarmName)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: ref(job.function) }],
      Statistic: 'Sum',
      Period: period,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
  });

  it('counts the account pauses the sender logs, and alarms on one that waits for the provider', () => {
    const filters = resourcesOfType(template, 'AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties);
    const logGroup = { Ref: template.toJSON().Resources[logicalId(stack, consumer(OUTREACH.name).function)].Properties.LoggingConfig.LogGroup.Ref };
    expect(filters).toEqual([
      {
        LogGroupName: logGroup,
        FilterPattern: '{ $.event = "sender_account_paused" }',
        MetricTransformations: [{ MetricNamespace: 'SharedProbe', MetricName: 'SenderAccountPauses', MetricValue: '1' }],
      },
      {
        LogGroupName: logGroup,
        FilterPattern: '{ ($.event = "sender_account_paused") && ($.waitsForProvider IS TRUE) }',
        MetricTransformations: [{ MetricNamespace: 'SharedProbe', MetricName: 'SenderAccountPausesForProvider', MetricValue: '1' }],
      },
    ]);
    expect(alarm('sender-account-paused')).toMatchObject({
      Namespace: 'SharedProbe',
      MetricName: 'SenderAccountPausesForProvider',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('caps each queue consumer with its catalog maxConcurrency: webhooks 10, campaign-scheduling 5, outreach 5, enrichment 2, inbound-retry 2', () => {
    expect(Object.fromEntries(QUEUES.map((queue) => [queue.name, queue.maxConcurrency]))).toEqual({
      webhooks: 10,
      'campaign-scheduling': 5,
      outreach: 5,
      enrichment: 2,
      'inbound-retry': 2,
    });
    const mappings = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties);
    expect(mappings).toHaveLength(QUEUES.length);
    for (const queue of QUEUES) {
      const mapping = mappings.find((candidate) => candidate.EventSourceArn['Fn::GetAtt'][0] === logicalId(stack, consumer(queue.name).queue));
      expect(mapping?.ScalingConfig, queue.name).toEqual({ MaximumConcurrency: queue.maxConcurrency });
    }
  });

  it('reserves no concurrency by default', () => {
    for (const [id, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) expect(fn.Properties.ReservedConcurrentExecutions, id).toBeUndefined();
  });
});

describe('OutreachStack monitoring with context (alarmEmail, reservedConcurrency, thresholds; no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;

  beforeAll(() => {
    ({ stack, template } = synth('MonitoringContext', {
      alarmEmail: 'ops@example.com',
      reservedConcurrency: '{"authorizer": 50, "http:leadLists": 10, "queue:outreach": 5, "schedule:outreach-scheduler": 2}',
      alarmApiP99LatencyMs: '3000',
      alarmLambdaErrors: 5,
      alarmQueueAgeMinutes: { outreach: 30 },
    }));
  });

  it('subscribes alarmEmail to the alarm topic', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: logicalId(stack, stack.monitoring.topic) },
    });
  });

  it('reserves exactly the concurrency the context names', () => {
    const reserved = Object.fromEntries(
      resourcesOfType(template, 'AWS::Lambda::Function')
        .filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined)
        .map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions]),
    );
    expect(reserved).toEqual({
      [logicalId(stack, stack.authorizer)]: 50,
      [logicalId(stack, stack.functions.leadLists)]: 10,
      [logicalId(stack, (stack.queueConsumers.outreach as QueueConsumer).function)]: 5,
      [logicalId(stack, stack.scheduledJobs['outreach-scheduler']?.function as never)]: 2,
    });
  });

  it('takes the thresholds from the context', () => {
    const alarms = alarmsByName(template);
    expect(alarms.get('MonitoringContext-api-p99-latency')?.Threshold).toBe(3000);
    expect(alarms.get('MonitoringContext-errors-http-leadLists')?.Threshold).toBe(5);
    expect(alarms.get('MonitoringContext-queue-age-outreach')?.Threshold).toBe(30 * 60);
    // The others keep the catalog's.
    expect(alarms.get('MonitoringContext-queue-age-webhooks')?.Threshold).toBe(30 * 60);
    expect(alarms.get('MonitoringContext-queue-age-enrichment')?.Threshold).toBe(60 * 60);
  });
});

describe('monitoring settings the stack refuses', () => {
  const build = (context: Record<string, unknown>) => () => {
    const app = testApp({ bundle: false, context });
    new OutreachStack(app, 'Refused', { config: loadConfig(app.node) });
  };

  it('a reserved concurrency for a function the stack does not have', () => {
    expect(build({ reservedConcurrency: { 'http:nothing': 5 } })).toThrow('reservedConcurrency names functions the stack does not have: http:nothing');
  });

  it('a reserved concurrency below the queue consumer’s maxConcurrency (throttled receives would dead-letter messages)', () => {
    expect(build({ reservedConcurrency: { 'queue:webhooks': 5 } })).toThrow(
      "WebhooksQueue: reserved concurrency 5 is below the event source's maxConcurrency 10",
    );
    const stack = new Stack(testApp({ bundle: false }), 'ConsumerTest');
    expect(
      () =>
        new QueueConsumer(stack, 'Capped', {
          function: { entry: FUNCTION_GROUPS.health.entry, timeout: Duration.seconds(20), reservedConcurrentExecutions: 1 },
          maxConcurrency: 2,
        }),
    ).toThrow("Capped: reserved concurrency 1 is below the event source's maxConcurrency 2");
  });

  it('a queue age threshold for a queue the stack does not have', () => {
    expect(build({ alarmQueueAgeMinutes: { nothing: 5 } })).toThrow('alarmQueueAgeMinutes names queues the stack does not have: nothing');
  });
});
