import { type App, type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import type { SecretSettingName } from '../shared/config/secrets';
import type { FunctionGroup } from '../shared/http/route-table';
import type { OutreachStack } from './stacks/outreach-stack';

/**
 * cdk-nag's AwsSolutions and Serverless packs, run on every synthesis of the app (`cdk synth`,
 * `cdk deploy`) and by test/infra/rule-packs.test.ts: a finding that is not acknowledged below
 * fails the synthesis with the rule, the resource and how to acknowledge it.
 */
export function addRulePacks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
}

/** One acknowledged finding: the rule (with its finding, for rules that report several), where, and why. */
export interface RuleAcknowledgement {
  rule: string;
  /** The constructs it applies to (and their children). */
  scopes: readonly IConstruct[];
  reason: string;
}

/** Why a route has no authorizer, by the group of every `auth: 'none'` route (a new one must say). */
const ANONYMOUS_ROUTE_REASONS: Partial<Record<FunctionGroup, string>> = {
  health: 'The liveness probe answers without credentials and reads nothing.',
  auth: 'Signup and login are how a caller gets credentials; the WAF rule AnonymousPerIp, the stricter method throttle and the login throttle (docs/rate-limits.md) bound them.',
  unsubscribe:
    "The link in an email is opened by its recipient, who has no account: the token in the path is an HMAC of the workspace, campaign and prospect (UNSUBSCRIBE_SECRET), checked by the function; WAF's AnonymousPagesPerIp and a per-IP counter bound it.",
  providerWebhooks:
    "The provider calls these with the shared secret it was configured with (X-Webhook-Secret), compared in constant time by the function before anything is read; API Gateway cannot check a header against a secret without a Lambda authorizer, which would only move the same check.",
};

const ISSUED_ELSEWHERE =
  'Issued by the provider: only the provider can make a new value, so rotation is an operator putting it (docs/operations.md, "Secret rotation"), live within the five-minute cache, no deploy.';

/** Why no secret rotates automatically (AwsSolutions-SMG4), by secret setting (a new secret must say). */
const SECRET_ROTATION_REASONS: Readonly<Record<SecretSettingName, string>> = {
  sessionSecret:
    'Session tokens are HMACs of this key: rotating it ends every session. An operator rotates it on purpose by putting a new value (docs/operations.md, "Secret rotation"); a schedule would log everyone out.',
  providerAccessToken: ISSUED_ELSEWHERE,
  providerWebhookSecret:
    "The provider sends it with every webhook: a new value must be put at the provider and here together (docs/operations.md), which a rotation Lambda cannot do.",
  webhookSecretKey: "It seals users' webhook signing secrets stored in the table: a new value would leave every stored secret unreadable, so it is never rotated.",
  directoryApiKey: ISSUED_ELSEWHERE,
  unsubscribeSecret: 'It keys the unsubscribe links of emails already sent: a new value would break every one of them.',
  hunterApiKey: ISSUED_ELSEWHERE,
  prospeoApiKey: ISSUED_ELSEWHERE,
  lushaApiKey: ISSUED_ELSEWHERE,
};

/**
 * Every finding of the packs the stack keeps on purpose, with its reason (docs/infrastructure.md,
 * "Rule packs"). IAM findings name the exact finding (`AwsSolutions-IAM5[Resource::...]`), so a new
 * wildcard fails the synthesis until it is given a reason of its own.
 */
export function ruleAcknowledgements(stack: OutreachStack): RuleAcknowledgement[] {
  const functions = [
    ...Object.values(stack.functions),
    stack.authorizer,
    ...Object.values(stack.queueConsumers).map((consumer) => consumer.function),
    ...Object.values(stack.scheduledJobs).map((job) => job.function),
  ];
  const anonymous = stack.api.methods.filter(({ route }) => route.auth === 'none');
  const missing = anonymous.filter(({ route }) => ANONYMOUS_ROUTE_REASONS[route.group] === undefined);
  if (missing.length > 0) {
    throw new Error(`Routes without credentials need a reason in infra/rule-packs.ts: ${missing.map(({ route }) => `${route.method} ${route.path}`).join(', ')}`);
  }
  return [
    {
      rule: 'AwsSolutions-COG4',
      scopes: [stack.api.api],
      reason:
        'The service authenticates its own API keys and sessions (a Lambda REQUEST authorizer on every credentialed route, docs/api.md); customers are API-key HTTP clients, not Cognito users.',
    },
    ...anonymous.map(({ route, method }) => ({
      rule: 'AwsSolutions-APIG4',
      scopes: [method],
      reason: `${route.method} ${route.path}: ${ANONYMOUS_ROUTE_REASONS[route.group]}`,
    })),
    {
      rule: 'AwsSolutions-APIG2',
      scopes: [stack.api.api],
      reason:
        "Every route validates its path, query and body in its function against the route table's schemas (the same schemas as openapi.json), answering the spec's exact 400 texts; API Gateway's request validator would answer first with its own texts.",
    },
    ...(Object.entries(stack.secrets.secrets) as [SecretSettingName, Secret][]).map(([name, secret]) => ({
      rule: 'AwsSolutions-SMG4',
      scopes: [secret],
      reason: SECRET_ROTATION_REASONS[name],
    })),
    {
      rule: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/apikeys/*]',
      scopes: [stack.functions.apiKeys, stack.functions.members].flatMap(withRole),
      reason:
        'API Gateway keys are created at runtime and their ids are not known at deploy time; API Gateway authorizes key management by resource path, so a key is /apikeys/<id>. The functions only delete keys there (and the api-keys function creates them); attaching is limited to the usage plan (/usageplans/<plan>/keys).',
    },
    {
      rule: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      scopes: [stack.api.api],
      reason:
        "The account-level role API Gateway writes every REST API's logs through (AWS::ApiGateway::Account); AWS's managed policy is the documented one, since API Gateway names its log groups itself.",
    },
    ...functions.flatMap((fn) => [
      {
        rule: 'AwsSolutions-L1',
        scopes: [fn],
        reason: 'nodejs22.x is the runtime the project targets and tests (shared DESIGN.md); moving to a newer one is a deliberate change with its own test run.',
      },
      {
        rule: 'Serverless-LambdaLatestVersion',
        scopes: [fn],
        reason: 'nodejs22.x is the runtime the project targets and tests (shared DESIGN.md); moving to a newer one is a deliberate change with its own test run.',
      },
      {
        rule: 'Serverless-LambdaDLQ',
        scopes: [fn],
        reason:
          "API Gateway calls synchronously and queue consumers are fed by SQS queues with their own dead-letter queues. The scheduled jobs are invoked asynchronously by EventBridge Scheduler, whose dead-letter queue takes the invocations it could not make; a run that fails is not retried by Lambda and is dropped, on purpose (its EventInvokeConfig: no retries, a minute's age): the next tick (1 or 5 minutes) runs the job again over the same state in the table, and the function's error alarm fires after 3 failures in 5 minutes.",
      },
      {
        rule: 'AwsSolutions-IAM5[Resource::*]',
        scopes: withRole(fn),
        reason: 'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions (AWS requires "*").',
      },
    ]),
    {
      rule: 'Serverless-SNSRedrivePolicy',
      scopes: [stack.monitoring.topic],
      reason:
        "The alarm topic's one subscription is the operator's email (alarmEmail). SNS retries an email delivery by its own policy; a dead-letter queue would keep alarm notifications nobody reads, while the alarms stay in ALARM in CloudWatch and on the dashboard.",
    },
    ...Object.values(stack.queueConsumers).flatMap((consumer) => [
      {
        rule: 'Serverless-SQSRedrivePolicy',
        scopes: [consumer.deadLetterQueue],
        reason: 'This is the dead-letter queue of its queue; its messages are read by an operator and redriven (docs/operations.md, "DLQ redrive").',
      },
      {
        rule: 'Serverless-LambdaEventSourceMappingDestination',
        scopes: [consumer.function],
        reason:
          "An SQS event source has no on-failure destination (those are for streams and Kafka): a message failing maxReceiveCount times moves to the queue's dead-letter queue, which alarms.",
      },
    ]),
    ...Object.values(stack.scheduledJobs).flatMap((job) => [
      {
        rule: 'Serverless-SQSRedrivePolicy',
        scopes: [job.deadLetterQueue],
        reason: "This is EventBridge Scheduler's dead-letter queue for the job's failed invocations; it alarms and is read and purged by an operator.",
      },
      {
        rule: `AwsSolutions-IAM5[Resource::<${Stack.of(job).getLogicalId(job.function.node.defaultChild as CfnElement)}.Arn>:*]`,
        // On the stack: CDK's scheduler targets share one role per account and region, created at the stack's root.
        scopes: [Stack.of(job)],
        reason: "The schedules' role may invoke the job's function and its versions (CDK's grantInvoke), and nothing else.",
      },
      {
        rule: 'Serverless-LambdaAsyncFailureDestination',
        scopes: [job.function],
        reason:
          "A run that fails or waits past a minute is dropped on purpose: the next tick (1 or 5 minutes) runs the job again over the same state in the table, so a failure destination would keep events nobody needs to replay; the function's error alarm tells of failures, and the schedule's dead-letter queue of invocations the scheduler could not make.",
      },
      {
        rule: 'AwsSolutions-SQS3',
        scopes: [job.deadLetterQueue],
        reason: "This is EventBridge Scheduler's dead-letter queue (set on the schedule's target, not as an SQS redrive policy, which the rule looks for).",
      },
    ]),
  ];
}

/** A function and its execution role (a sibling construct: its policies are findings of their own). */
const withRole = (fn: IFunction): IConstruct[] => (fn.role ? [fn, fn.role] : [fn]);

/** Records every acknowledgement on its constructs. */
export function acknowledgeRuleFindings(stack: OutreachStack): void {
  for (const { rule, scopes, reason } of ruleAcknowledgements(stack)) {
    for (const scope of scopes) Validations.of(scope).acknowledge({ id: rule, reason });
  }
}
