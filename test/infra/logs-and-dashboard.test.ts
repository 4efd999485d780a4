import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_LOG_FIELDS } from '../../infra/constructs/gateway-settings';
import { DASHBOARD_WIDGETS } from '../../infra/constructs/service-dashboard';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { QUEUES, SCHEDULES } from '../../shared/runtime/catalog';
import { type CfnResource, type Json, flatten, logicalId, resourcesOfType } from './template-helpers';
import { FILLED_SUM, probeViews, sharedSynth } from './monitoring-helpers';

/** The stack's API Gateway logging, log groups and dashboard. Alarms: monitoring.test.ts. */
describe('OutreachStack logs and dashboard (cdk.json context, no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;
  let alarms: Map<string, Json>;

  beforeAll(() => {
    ({ stack, template, resources, alarms } = sharedSynth());
  });

  const { functionKeys } = probeViews(() => ({ stack, alarms }));

  describe('API Gateway logging', () => {
    const stage = () => resources[logicalId(stack, stack.api.api.deploymentStage)] as CfnResource;

    it('writes a JSON access log line per request to its own log group', () => {
      const setting = stage().Properties.AccessLogSetting;
      expect(flatten(setting.DestinationArn)).toBe(
        `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:\${${logicalId(stack, stack.api.accessLogGroup)}}`,
      );
      expect(JSON.parse(setting.Format)).toEqual({
        requestId: '$context.requestId',
        extendedRequestId: '$context.extendedRequestId',
        requestTime: '$context.requestTime',
        ip: '$context.identity.sourceIp',
        method: '$context.httpMethod',
        resourcePath: '$context.resourcePath',
        status: '$context.status',
        responseLength: '$context.responseLength',
        responseLatency: '$context.responseLatency',
        integrationLatency: '$context.integrationLatency',
        integrationStatus: '$context.integrationStatus',
        authorizerLatency: '$context.authorizer.latency',
        // What the authorizer puts in its context (shared/http/caller.ts toAuthorizerContext).
        workspaceId: '$context.authorizer.workspaceId',
        userId: '$context.authorizer.userId',
        apiKeyId: '$context.authorizer.apiKeyId',
        via: '$context.authorizer.via',
        usageKeyId: '$context.identity.apiKeyId',
        authorizerError: '$context.authorizer.error',
        errorType: '$context.error.responseType',
        errorMessage: '$context.error.message',
        xrayTraceId: '$context.xrayTraceId',
      });
      expect(JSON.parse(setting.Format)).toEqual(ACCESS_LOG_FIELDS);
      // Never the path itself (unsubscribe tokens), headers or bodies.
      expect(setting.Format).not.toMatch(/\$context\.path|userAgent|\$input|header/);
    });

    it('logs execution errors only, never request or response data, on the stage and on every method with settings of its own', () => {
      const settings = stage().Properties.MethodSettings as Json[];
      // The stage-wide setting first; the anonymous routes' throttles repeat it (a method's setting replaces the stage's).
      expect(settings[0]).toMatchObject({ ResourcePath: '/*', HttpMethod: '*', LoggingLevel: 'ERROR', DataTraceEnabled: false, MetricsEnabled: true });
      expect(settings).toHaveLength(6);
      for (const setting of settings) expect(setting).toMatchObject({ LoggingLevel: 'ERROR', DataTraceEnabled: false, MetricsEnabled: true });
    });

    it("sets the account's API Gateway CloudWatch role and keeps it when the stack goes", () => {
      const accounts = resourcesOfType(template, 'AWS::ApiGateway::Account');
      expect(accounts).toHaveLength(1);
      const [accountId, account] = accounts[0] as [string, CfnResource];
      const roleId = account.Properties.CloudWatchRoleArn['Fn::GetAtt'][0];
      expect(account.Properties.CloudWatchRoleArn).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
      expect(account.DeletionPolicy).toBe('Retain');
      const role = resources[roleId] as CfnResource;
      expect(role.DeletionPolicy).toBe('Retain');
      expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' } },
      ]);
      expect(role.Properties.ManagedPolicyArns.map(flatten)).toEqual([
        `arn:\${AWS::Partition}:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs`,
      ]);
      // The stage turns logging on only once the role is set and the execution log group exists.
      expect(stage().DependsOn).toEqual(expect.arrayContaining([accountId, logicalId(stack, stack.api.executionLogGroup)]));
    });

    it('creates the execution log group API Gateway would create without a retention period', () => {
      const group = resources[logicalId(stack, stack.api.executionLogGroup)] as CfnResource;
      expect(flatten(group.Properties.LogGroupName)).toBe(`API-Gateway-Execution-Logs_\${${logicalId(stack, stack.api.api)}}/v1`);
    });
  });

  it('keeps every log group for logRetentionDays (30), deleted with the stack', () => {
    const groups = resourcesOfType(template, 'AWS::Logs::LogGroup');
    // One per function, the access log and the execution log.
    expect(groups).toHaveLength(resourcesOfType(template, 'AWS::Lambda::Function').length + 2);
    for (const [id, group] of groups) {
      expect(group.Properties.RetentionInDays, id).toBe(30);
      expect(group.DeletionPolicy, id).toBe('Delete');
    }
  });

  describe('the dashboard', () => {
    const body = () => {
      const [[, dashboard]] = resourcesOfType(template, 'AWS::CloudWatch::Dashboard') as [[string, CfnResource]];
      expect(dashboard.Properties.DashboardName).toBe('SharedProbe');
      return JSON.parse(flatten(dashboard.Properties.DashboardBody));
    };
    const widget = (title: string) => {
      const found = body().widgets.find((candidate: Json) => candidate.properties.title === title);
      if (!found) throw new Error(`no widget ${title}`);
      return found.properties;
    };
    /** A graph's metrics as [namespace, metric name, label]. */
    const lines = (title: string) =>
      widget(title).metrics.map((metric: Json[]) => {
        const options = metric.at(-1) as Json;
        return typeof options === 'object' && 'expression' in options ? ['expression', options.expression, options.label] : [metric[0], metric[1], options.label];
      });

    it('is one dashboard with the alarms, then requests, errors, latency, functions, queues, dead letters, the table and the engine', () => {
      template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
      expect(body().widgets.map((candidate: Json) => candidate.properties.title)).toEqual(Object.values(DASHBOARD_WIDGETS));
    });

    it('shows the state of every alarm', () => {
      const arns = resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([id]) => `\${${id}.Arn}`);
      expect(widget(DASHBOARD_WIDGETS.alarms).alarms).toEqual(arns);
    });

    it('graphs the API: requests, 4xx and 5xx, latency', () => {
      expect(lines(DASHBOARD_WIDGETS.apiRequests)).toEqual([['AWS/ApiGateway', 'Count', 'Requests']]);
      expect(lines(DASHBOARD_WIDGETS.apiErrors)).toEqual([
        ['AWS/ApiGateway', '4XXError', '4xx'],
        ['AWS/ApiGateway', '5XXError', '5xx'],
      ]);
      expect(lines(DASHBOARD_WIDGETS.apiLatency)).toEqual([
        ['AWS/ApiGateway', 'Latency', 'p50'],
        ['AWS/ApiGateway', 'Latency', 'p99'],
        ['AWS/ApiGateway', 'IntegrationLatency', 'integration p99'],
      ]);
    });

    it('graphs every function, queue and dead-letter queue', () => {
      const keys = functionKeys().map(([key]) => key.replace(/^(http|queue|schedule)-/, '$1:'));
      expect(lines(DASHBOARD_WIDGETS.lambdaErrors)).toEqual(keys.map((key) => ['AWS/Lambda', 'Errors', key]));
      expect(lines(DASHBOARD_WIDGETS.lambdaThrottles)).toEqual(keys.map((key) => ['AWS/Lambda', 'Throttles', key]));
      expect(lines(DASHBOARD_WIDGETS.lambdaConcurrency)).toEqual(keys.map((key) => ['AWS/Lambda', 'ConcurrentExecutions', key]));
      expect(lines(DASHBOARD_WIDGETS.queueDepth)).toEqual(QUEUES.map((queue) => ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', queue.name]));
      expect(lines(DASHBOARD_WIDGETS.queueAge)).toEqual(QUEUES.map((queue) => ['AWS/SQS', 'ApproximateAgeOfOldestMessage', queue.name]));
      expect(lines(DASHBOARD_WIDGETS.deadLetters)).toEqual(
        [...QUEUES, ...SCHEDULES].map((owner) => ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', `${owner.name}-dlq`]),
      );
    });

    it('graphs the table: consumed capacity, throttles, system errors', () => {
      expect(lines(DASHBOARD_WIDGETS.tableCapacity)).toEqual([
        ['AWS/DynamoDB', 'ConsumedReadCapacityUnits', 'Read'],
        ['AWS/DynamoDB', 'ConsumedWriteCapacityUnits', 'Write'],
      ]);
      expect(lines(DASHBOARD_WIDGETS.tableThrottles)[0]).toEqual(['expression', FILLED_SUM, 'Throttled requests']);
      expect(lines(DASHBOARD_WIDGETS.tableErrors)[0]).toEqual(['expression', FILLED_SUM, 'System errors']);
    });

    it('graphs the scheduled runs and the account pauses', () => {
      expect(lines(DASHBOARD_WIDGETS.schedules)).toEqual(SCHEDULES.map((schedule) => ['AWS/Lambda', 'Invocations', schedule.name]));
      expect(lines(DASHBOARD_WIDGETS.accountPauses)).toEqual([
        ['SharedProbe', 'SenderAccountPauses', 'All pauses (quota pauses too)'],
        ['SharedProbe', 'SenderAccountPausesForProvider', 'Waiting for the provider'],
      ]);
    });
  });
});
