import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { maxAttemptsFor, RETRY_DELAYS_SECONDS } from '../../shared/domain/webhooks/delivery';
import { FUNCTION_GROUPS, type FunctionGroup, ROUTES } from '../../shared/http/route-table';
import { QUEUES } from '../../shared/runtime/catalog';
import { type CfnResource, actionsOf, flatten, logicalId, policyStatements, resourcesOf, resourcesOfType, sharedStack } from './template-helpers';

/** The provider integration, sender accounts, connection status and user webhooks in the stack. */
describe('OutreachStack: provider and webhook wiring (no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;

  beforeAll(() => {
    ({ stack, template } = sharedStack());
    resources = template.toJSON().Resources;
  });

  const webhooks = () => {
    const consumer = stack.queueConsumers.webhooks;
    if (!consumer) throw new Error('no webhooks queue consumer');
    return consumer;
  };
  const envOf = (id: string): Record<string, unknown> => resources[id]?.Properties.Environment.Variables ?? {};
  const fnEnv = (group: FunctionGroup) => envOf(logicalId(stack, stack.functions[group]));
  const secretId = (description: string) => {
    const found = resourcesOfType(template, 'AWS::SecretsManager::Secret').find(([, secret]) =>
      String(secret.Properties.Description).includes(description),
    );
    if (!found) throw new Error(`no secret ${description}`);
    return found[0];
  };
  /** What a function holds of a secret: its ARN (a Ref), read at runtime. */
  const secretArn = (env: string) => ({ Ref: secretId(env) });

  it('creates the webhooks queue from the catalog, with its dead-letter queue after every attempt', () => {
    const definition = QUEUES.find((queue) => queue.name === 'webhooks');
    // Every one of the 8 attempts, plus 2 duplicate receives.
    expect(maxAttemptsFor(RETRY_DELAYS_SECONDS) + 2).toBe(10);
    expect(definition).toEqual({
      name: 'webhooks',
      consumerEntry: 'functions/queues/webhook-delivery/lambda.ts',
      urlSetting: 'webhooksQueueUrl',
      settings: [
        'tableName',
        'dynamodbEndpoint',
        'trackCapacity',
        'runtime',
        'awsRegion',
        'webhookSecretKey',
        'webhookAllowLoopback',
        'webhookTimeoutMs',
        'webhookRetrySchedule',
        'sqsEndpoint',
        'webhooksQueueUrl',
      ],
      batchSize: 10,
      maxReceiveCount: 10,
      visibilityTimeoutSeconds: 180,
      maxConcurrency: 10,
      oldestMessageAlarmMinutes: 30,
    });
    const queue = resources[logicalId(stack, webhooks().queue)];
    expect(queue?.Properties).toEqual({
      VisibilityTimeout: 180,
      MessageRetentionPeriod: 4 * 86_400,
      RedrivePolicy: { maxReceiveCount: 10, deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack, webhooks().deadLetterQueue), 'Arn'] } },
      SqsManagedSseEnabled: true,
    });
    // Queue retention (4 days) outlasts the retry window (about 30 h, at most 35.5 h with jitter).
    const windowSeconds = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + Math.min(43_200, delay * 1.2), 0);
    expect(windowSeconds).toBe(119_232); // 33.1 h, against a retention of 96 h
    expect(queue?.Properties.MessageRetentionPeriod).toBe(345_600);
    expect(resources[logicalId(stack, webhooks().deadLetterQueue)]?.Properties).toEqual({ MessageRetentionPeriod: 14 * 86_400, SqsManagedSseEnabled: true });
  });

  it('consumes it with partial batch responses and may change message visibility (the backoff)', () => {
    const consumerId = logicalId(stack, webhooks().function);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: consumerId },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack, webhooks().queue), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const mappings = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties);
    expect(mappings.filter((mapping) => mapping.FunctionName.Ref === consumerId)).toEqual([
      {
        FunctionName: { Ref: consumerId },
        EventSourceArn: { 'Fn::GetAtt': [logicalId(stack, webhooks().queue), 'Arn'] },
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        // At most 100 deliveries in flight.
        ScalingConfig: { MaximumConcurrency: 10 },
      },
    ]);
    expect(resources[consumerId]?.Properties.Timeout).toBe(30);
    const roleId = logicalId(stack, webhooks().function.role as never);
    const queueArn = `\${${logicalId(stack, webhooks().queue)}.Arn}`;
    const onQueue = policyStatements(template, roleId).filter((statement) => resourcesOf(statement).includes(queueArn));
    expect(onQueue.flatMap(actionsOf)).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ]);
    // It reads the queue URL to delay redeliveries, and may not send new messages.
    expect(envOf(consumerId)).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      RUNTIME: 'aws',
      TABLE_NAME: { Ref: logicalId(stack, stack.table.table) },
      WEBHOOK_SECRET_KEY_ARN: { Ref: secretId('WEBHOOK_SECRET_KEY') },
      WEBHOOKS_QUEUE_URL: { Ref: logicalId(stack, webhooks().queue) },
    });
  });

  it('gives the provider settings to the functions that call the provider, from Secrets Manager', () => {
    for (const group of ['accounts', 'connections', 'providerWebhooks', 'chats'] as const) {
      const env = fnEnv(group);
      expect(env.PROVIDER_BASE_URL, group).toBe('https://api1.unipile.com:13111');
      expect(env.PROVIDER_ACCESS_TOKEN_ARN, group).toEqual(secretArn('PROVIDER_ACCESS_TOKEN'));
    }
    for (const group of ['accounts', 'providerWebhooks'] as const) {
      expect(fnEnv(group).PROVIDER_WEBHOOK_SECRET_ARN, group).toEqual(secretArn('PROVIDER_WEBHOOK_SECRET'));
    }
    expect(fnEnv('userWebhook').WEBHOOK_SECRET_KEY_ARN).toEqual(secretArn('WEBHOOK_SECRET_KEY'));
    // The hosted-connect page notifies this API: its URL is built from the API id and the stage.
    expect(flatten(fnEnv('accounts').PUBLIC_API_URL)).toBe(
      `https://\${${logicalId(stack, stack.api.api)}}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}/v1`,
    );
  });

  it('lets the provider webhooks stop sequences on replies: the table to write, the lead-list bound, the webhooks queue to publish on', () => {
    const env = fnEnv('providerWebhooks');
    expect(env.MAX_LEADS_PER_LIST).toBe('100000');
    expect(env.WEBHOOKS_QUEUE_URL).toEqual({ Ref: logicalId(stack, webhooks().queue) });
    const actions = policyStatements(template, logicalId(stack, stack.functions.providerWebhooks.role as never)).flatMap(actionsOf);
    // A transaction needs the actions of its parts (there is no IAM action of its own).
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:ConditionCheckItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query', 'sqs:SendMessage']));
  });

  it('gives the functions time for their own bounds to answer first (provider 8 s, webhook 10 s)', () => {
    const timeout = (group: FunctionGroup) => resources[logicalId(stack, stack.functions[group])]?.Properties.Timeout;
    for (const group of ['accounts', 'connections', 'providerWebhooks'] as const) expect(timeout(group), group).toBe(12);
    expect(timeout('userWebhook')).toBe(15);
    // A manual message may take two provider calls (profile lookup, then the new chat), then, its
    // answer lost, a look in the chat in the time left (under API Gateway's 29 s).
    expect(timeout('chats')).toBe(28);
  });

  it('keeps each secret to the functions that need it', () => {
    const holders = (name: string) =>
      resourcesOfType(template, 'AWS::Lambda::Function')
        .filter(([, fn]) => fn.Properties.Environment?.Variables?.[`${name}_ARN`] !== undefined)
        .map(([id]) => id)
        .sort();
    const ids = (groups: FunctionGroup[]) => groups.map((group) => logicalId(stack, stack.functions[group]));
    const sender = logicalId(stack, (stack.queueConsumers.outreach ?? webhooks()).function);
    // The inbound-retry consumer runs again what the provider-webhooks function runs, with its settings.
    const inboundRetry = logicalId(stack, (stack.queueConsumers['inbound-retry'] ?? webhooks()).function);
    expect(holders('PROVIDER_ACCESS_TOKEN')).toEqual([...ids(['accounts', 'connections', 'providerWebhooks', 'chats']), sender, inboundRetry].sort());
    expect(holders('PROVIDER_WEBHOOK_SECRET')).toEqual([...ids(['accounts', 'providerWebhooks']), inboundRetry].sort());
    expect(holders('WEBHOOK_SECRET_KEY')).toEqual([...ids(['userWebhook']), logicalId(stack, webhooks().function)].sort());
    // Only ARNs reach the functions; the values stay in Secrets Manager, never in the template.
    const generated = (length: number) => ({ ExcludePunctuation: true, PasswordLength: length });
    expect(
      Object.fromEntries(resourcesOfType(template, 'AWS::SecretsManager::Secret').map(([id, secret]) => [id, secret.Properties.GenerateSecretString])),
    ).toEqual({
      [secretId('SESSION_SECRET')]: generated(64),
      [secretId('PROVIDER_ACCESS_TOKEN')]: generated(32),
      [secretId('PROVIDER_WEBHOOK_SECRET')]: generated(64),
      [secretId('WEBHOOK_SECRET_KEY')]: generated(64),
      [secretId('DIRECTORY_API_KEY')]: generated(32),
      [secretId('UNSUBSCRIBE_SECRET')]: generated(64),
      [secretId('HUNTER_API_KEY')]: generated(32),
      [secretId('PROSPEO_API_KEY')]: generated(32),
      [secretId('LUSHA_API_KEY')]: generated(32),
    });
    for (const secret of resourcesOfType(template, 'AWS::SecretsManager::Secret')) {
      expect(secret[1].Properties.SecretString, secret[0]).toBeUndefined();
    }
  });

  it('lets only the functions that publish replies or send a failed event again send to the webhooks queue', () => {
    const queueArn = `\${${logicalId(stack, webhooks().queue)}.Arn}`;
    const sends = (group: keyof typeof stack.functions) =>
      policyStatements(template, logicalId(stack, stack.functions[group].role as never))
        .filter((statement) => resourcesOf(statement).includes(queueArn))
        .flatMap(actionsOf);
    for (const group of ['providerWebhooks', 'userWebhook'] as const) {
      expect(sends(group), group).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
      expect(fnEnv(group).WEBHOOKS_QUEUE_URL, group).toEqual({ Ref: logicalId(stack, webhooks().queue) });
    }
    for (const group of ['accounts', 'auth', 'members', 'apiKeys', 'leadLists', 'prospects', 'connections', 'health', 'campaigns', 'campaignProspects', 'chats'] as const) {
      expect(sends(group), group).toEqual([]);
      expect(fnEnv(group).WEBHOOKS_QUEUE_URL, group).toBeUndefined();
    }
  });

  it('routes the provider webhooks without an authorizer or API key, and the rest with theirs', () => {
    const ours = ROUTES.filter((route) => ['accounts', 'connections', 'userWebhook', 'providerWebhooks'].includes(route.group));
    expect(ours.map((route) => `${route.method} ${route.path} ${route.auth}`)).toEqual([
      'GET /api/v1/public/accounts apiKey',
      'POST /api/v1/public/accounts apiKey',
      'POST /api/v1/public/accounts/connect-link apiKey',
      'PATCH /api/v1/public/accounts/{id} apiKey',
      'DELETE /api/v1/public/accounts/{id} apiKey',
      'GET /api/v1/public/prospects/{prospect_id}/connection-status apiKey',
      'GET /api/v1/prospects/{prospect_id}/connection-status session',
      'GET /api/v1/user/webhook apiKeyOrSession',
      'PUT /api/v1/user/webhook apiKeyOrSession',
      'POST /api/v1/user/webhook/test session',
      'POST /api/v1/user/webhook/secret/rotate apiKeyOrSession',
      'GET /api/v1/user/webhook/deliveries apiKeyOrSession',
      'POST /api/v1/user/webhook/deliveries/{event_id}/redeliver apiKeyOrSession',
      'POST /api/v1/webhooks/provider none',
      'POST /api/v1/webhooks/provider/hosted-auth none',
    ]);
    expect(Object.keys(FUNCTION_GROUPS).sort()).toEqual([
      'accounts',
      'analytics',
      'apiKeys',
      'auth',
      'campaignProspects',
      'campaigns',
      'chats',
      'connections',
      'enrichment',
      'health',
      'leadLists',
      'members',
      'prospects',
      'providerWebhooks',
      'suppressions',
      'unsubscribe',
      'userWebhook',
    ]);
    const methods = resourcesOfType(template, 'AWS::ApiGateway::Method');
    const inbound = methods.filter(([, method]) => flatten(method.Properties.Integration?.Uri).includes(`function:${stack.stackName}-provider-webhooks/`));
    expect(inbound.map(([, method]) => `${method.Properties.HttpMethod} ${resources[method.Properties.ResourceId.Ref]?.Properties.PathPart}`)).toEqual([
      'POST provider',
      'POST hosted-auth',
    ]);
    for (const [, method] of inbound) expect(method.Properties).toMatchObject({ AuthorizationType: 'NONE', ApiKeyRequired: false });
    const connections = methods.filter(([, method]) => flatten(method.Properties.Integration?.Uri).includes(`function:${stack.stackName}-connections/`));
    // Both counted: the API-key route by the key's plan, the session one by the sessions plan (since 2026-11-29).
    expect(connections.map(([, method]) => method.Properties.ApiKeyRequired)).toEqual([true, true]);
  });
});
