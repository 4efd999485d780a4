import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../shared/runtime/catalog';
import { loadConfig } from '../../infra/config';
import type { QueueConsumer } from '../../infra/constructs/queue-consumer';
import { OutreachStack } from '../../infra/stacks/outreach-stack';
import { TABLE_SETTINGS } from '../../shared/config/settings';
import { FUNCTION_GROUPS, ROUTES } from '../../shared/http/route-table';
import { defineRoute } from '../../shared/http/routes/define';
import {
  actionsOf,
  flatten,
  logicalId,
  policyStatements,
  resourcesOf,
  resourcesOfType,
  testApp,
} from './template-helpers';
import { expectRoutes } from './route-assertions';

describe('OutreachStack with an API-key-only route, a queue and a schedule (no bundling)', () => {
  const probe = defineRoute('health', { method: 'GET', path: '/probe/{id}', auth: 'apiKey', summary: 'probe', responses: {} });
  const routes = [...ROUTES, probe];
  let stack: OutreachStack;
  let template: Template;

  beforeAll(() => {
    const app = testApp({ bundle: false });
    const config = loadConfig(app.node);
    stack = new OutreachStack(app, 'Probe', {
      config,
      routes,
      queues: [
        // The catalog's own queues stay (their producers require their URLs); one throwaway queue is added.
        ...QUEUES.filter((queue) => queue.urlSetting !== 'webhooksQueueUrl'),
        {
          name: 'probe',
          consumerEntry: FUNCTION_GROUPS.health.entry,
          // A throwaway queue borrows a real URL setting: whoever declares it may send to the queue.
          urlSetting: 'webhooksQueueUrl',
          // No table: a catalog function that reads the table needs its grant in infra/table-access.ts.
          settings: [],
          batchSize: 5,
          maxReceiveCount: 4,
          visibilityTimeoutSeconds: 180,
          maxConcurrency: 3,
          oldestMessageAlarmMinutes: 20,
        },
      ],
      schedules: [
        { name: 'outreach-scheduler', entry: FUNCTION_GROUPS.health.entry, settings: [...TABLE_SETTINGS, 'webhooksQueueUrl'], everyMinutes: 1 },
      ],
    });
    template = Template.fromStack(stack);
  });

  it('routes apiKey routes through the ApiKeyAuthorizer', () => {
    expectRoutes(template, routes, 'Probe');
  });

  it('has both authorizers, uncached, with their identity sources', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Name: 'ApiKeyAuthorizer',
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: 'method.request.header.X-API-Key',
    });
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Name: 'CallerAuthorizer',
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: Match.absent(),
    });
    // Both are the one authorizer function.
    const uris = resourcesOfType(template, 'AWS::ApiGateway::Authorizer').map(([, authorizer]) => flatten(authorizer.Properties?.AuthorizerUri));
    expect(new Set(uris).size).toBe(1);
    const functionArn = { 'Fn::GetAtt': [logicalId(stack, stack.authorizer), 'Arn'] };
    const arnPart = (index: number) => ({ 'Fn::Select': [index, { 'Fn::Split': [':', functionArn] }] });
    expect(resourcesOfType(template, 'AWS::ApiGateway::Authorizer').map(([, authorizer]) => authorizer.Properties?.AuthorizerUri)).toEqual(
      Array(2).fill({ 'Fn::Join': ['', ['arn:', arnPart(1), ':apigateway:', arnPart(3), ':lambda:path/2015-03-31/functions/', functionArn, '/invocations']] }),
    );
  });

  it('creates the catalog queue with its consumer, and lets exactly the functions that declare its URL setting send to it', () => {
    const consumer = stack.queueConsumers.probe;
    if (!consumer) throw new Error('no consumer');
    const queueId = logicalId(stack, consumer.queue);
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack, consumer.deadLetterQueue), 'Arn'] }, maxReceiveCount: 4 },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
    });
    const queueArn = `\${${queueId}.Arn}`;
    const sendsTo = (fn: QueueConsumer['function']) =>
      policyStatements(template, logicalId(stack, fn.role as never))
        .filter((statement) => resourcesOf(statement).includes(queueArn))
        .flatMap(actionsOf)
        .includes('sqs:SendMessage');
    const envOf = (fn: QueueConsumer['function']) => template.toJSON().Resources[logicalId(stack, fn)].Properties.Environment.Variables;
    const producers = [stack.functions.providerWebhooks, stack.scheduledJobs['outreach-scheduler']?.function as QueueConsumer['function']];
    for (const fn of producers) {
      expect(envOf(fn).WEBHOOKS_QUEUE_URL, fn.node.id).toEqual({ Ref: queueId });
      expect(sendsTo(fn), fn.node.id).toBe(true);
    }
    const others = [stack.functions.health, stack.functions.auth, stack.functions.apiKeys, stack.functions.accounts, stack.authorizer, consumer.function];
    for (const fn of others) {
      expect(envOf(fn).WEBHOOKS_QUEUE_URL, fn.node.id).toBeUndefined();
      expect(sendsTo(fn), fn.node.id).toBe(false);
    }
  });

  it('creates the catalog schedule', () => {
    const job = stack.scheduledJobs['outreach-scheduler'];
    if (!job) throw new Error('no job');
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack, job.function), 'Arn'] } }),
    });
  });
});
