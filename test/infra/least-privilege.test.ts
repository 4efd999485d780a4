import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../infra/config';
import type { ServiceFunction } from '../../infra/constructs/service-function';
import { OutreachStack } from '../../infra/stacks/outreach-stack';
import { SECRET_SETTINGS, type SecretSettingName, secretArnVariable } from '../../shared/config/secrets';
import { SETTINGS, type SettingName } from '../../shared/config/settings';
import { AUTHORIZER, FUNCTION_GROUPS, type FunctionGroup } from '../../shared/http/route-table';
import { QUEUES, SCHEDULES } from '../../shared/runtime/catalog';
import { type CfnResource, actionsOf, dynamoAccess, flatten, logicalId, policyStatements, resourcesOf, resourcesOfType, sharedStack, testApp } from './template-helpers';

/**
 * Least privilege and data safety, as the template states them: each function's exact DynamoDB
 * actions, queue sends, secrets and API Gateway rights; no secret value anywhere in the template;
 * what survives the stack.
 */
describe('OutreachStack: least privilege and data safety (no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;

  beforeAll(() => {
    ({ stack, template } = sharedStack());
    resources = template.toJSON().Resources;
  });

  /** Every function of the stack by a readable name. */
  const everyFunction = (): Record<string, ServiceFunction> => ({
    ...Object.fromEntries((Object.keys(FUNCTION_GROUPS) as FunctionGroup[]).map((group) => [group, stack.functions[group]])),
    authorizer: stack.authorizer,
    ...Object.fromEntries(Object.entries(stack.queueConsumers).map(([name, queue]) => [`queue:${name}`, queue.function])),
    ...Object.fromEntries(Object.entries(stack.scheduledJobs).map(([name, scheduled]) => [`schedule:${name}`, scheduled.function])),
  });
  /** The settings a function declares, by the name everyFunction gives it. */
  const settingsOf = (name: string): readonly SettingName[] => {
    if (name === 'authorizer') return AUTHORIZER.settings;
    const [kind, catalogName] = name.split(':');
    if (kind === 'queue') return QUEUES.find((queue) => queue.name === catalogName)?.settings ?? [];
    if (kind === 'schedule') return SCHEDULES.find((schedule) => schedule.name === catalogName)?.settings ?? [];
    return FUNCTION_GROUPS[name as FunctionGroup].settings;
  };
  const roleOf = (fn: ServiceFunction) => logicalId(stack, fn.role as never);
  const tableId = () => logicalId(stack, stack.table.table);
  const envOf = (fn: ServiceFunction): Record<string, unknown> => resources[logicalId(stack, fn)]?.Properties.Environment?.Variables ?? {};

  describe('the table', () => {
    const READ = ['BatchGetItem', 'GetItem', 'Query'];
    const LEAD_WRITER = ['BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'];
    const EVERY_INDEX = ['gsi1', 'gsi2', 'lsi1', 'lsi2', 'lsi3', 'lsi4', 'lsi5'];

    it('gives each function exactly the item actions it uses on the table, and Query on the indexes only where it queries them', () => {
      const access = Object.fromEntries(
        Object.entries(everyFunction()).map(([name, fn]) => {
          const { table, indexes } = dynamoAccess(template, roleOf(fn), tableId());
          return [name, { table, indexes }];
        }),
      );
      const none: string[] = [];
      expect(access).toEqual({
        health: { table: none, indexes: none },
        auth: { table: ['DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], indexes: none },
        members: { table: ['BatchGetItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], indexes: EVERY_INDEX },
        apiKeys: { table: ['ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], indexes: none },
        accounts: { table: ['DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], indexes: EVERY_INDEX },
        connections: { table: ['GetItem', 'Query'], indexes: none },
        userWebhook: { table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'], indexes: none },
        providerWebhooks: { table: LEAD_WRITER, indexes: EVERY_INDEX },
        leadLists: { table: LEAD_WRITER, indexes: EVERY_INDEX },
        prospects: { table: LEAD_WRITER, indexes: EVERY_INDEX },
        campaigns: { table: ['BatchGetItem', 'ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], indexes: EVERY_INDEX },
        campaignProspects: { table: LEAD_WRITER, indexes: EVERY_INDEX },
        unsubscribe: { table: LEAD_WRITER, indexes: EVERY_INDEX },
        suppressions: { table: ['BatchGetItem', 'DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'], indexes: EVERY_INDEX },
        enrichment: { table: LEAD_WRITER, indexes: EVERY_INDEX },
        chats: { table: LEAD_WRITER, indexes: EVERY_INDEX },
        analytics: { table: ['BatchGetItem', 'Query'], indexes: EVERY_INDEX },
        authorizer: { table: ['GetItem'], indexes: none },
        'queue:webhooks': { table: ['GetItem', 'PutItem', 'UpdateItem'], indexes: none },
        // Query on the table: its lsi2 Queries ask DynamoDB to fetch the items (the LSIs hold keys only).
        'queue:campaign-scheduling': { table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'], indexes: EVERY_INDEX },
        'queue:outreach': { table: LEAD_WRITER, indexes: EVERY_INDEX },
        'queue:enrichment': { table: LEAD_WRITER, indexes: EVERY_INDEX },
        // Runs again what providerWebhooks runs.
        'queue:inbound-retry': { table: LEAD_WRITER, indexes: EVERY_INDEX },
        // Neither reads items by key: gsi2 only, so gsi1 (projected ALL) does not widen what they read.
        'schedule:outreach-scheduler': { table: ['UpdateItem'], indexes: ['gsi2'] },
        'schedule:enrichment-sweeper': { table: ['BatchWriteItem', 'DeleteItem', 'PutItem', 'Query', 'UpdateItem'], indexes: ['gsi2'] },
      });
      // The read-only functions write nothing.
      for (const name of ['connections', 'analytics'] as const) {
        expect(access[name]?.table.filter((action: string) => !READ.includes(action)), name).toEqual([]);
      }
    });

    it('lets the authorizer update only the last-use attributes of an item, and nothing else in the table', () => {
      const tableArn = `\${${tableId()}.Arn}`;
      expect(dynamoAccess(template, roleOf(stack.authorizer), tableId()).conditional).toEqual([
        {
          actions: ['dynamodb:UpdateItem'],
          resources: [tableArn],
          condition: {
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'prefix', 'lastUsed', 'lastUsedWrittenAt'] },
            StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
          },
        },
      ]);
      for (const [name, fn] of Object.entries(everyFunction())) {
        if (fn !== stack.authorizer) expect(dynamoAccess(template, roleOf(fn), tableId()).conditional, name).toEqual([]);
      }
    });

    it('grants no function Scan, DescribeTable, the stream actions, dynamodb:* or DynamoDB on any other resource', () => {
      const granted = new Set<string>();
      for (const [name, fn] of Object.entries(everyFunction())) {
        const access = dynamoAccess(template, roleOf(fn), tableId());
        expect(access.elsewhere, name).toEqual([]);
        for (const action of [...access.table, ...access.conditional.flatMap((statement) => statement.actions)]) granted.add(action.replace(/^dynamodb:/, ''));
      }
      expect([...granted].sort()).toEqual(['BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem']);
    });

    it('refuses a catalog function that reads the table without a declared grant', () => {
      const app = testApp({ bundle: false });
      const probe = {
        name: 'probe',
        consumerEntry: FUNCTION_GROUPS.health.entry,
        urlSetting: 'webhooksQueueUrl' as const,
        settings: ['tableName' as const],
        batchSize: 1,
        maxReceiveCount: 3,
        visibilityTimeoutSeconds: 60,
        maxConcurrency: 2,
        oldestMessageAlarmMinutes: 30,
      };
      expect(
        () => new OutreachStack(app, 'UngrantedProbe', { config: loadConfig(app.node), queues: [...QUEUES.filter((queue) => queue.name !== 'webhooks'), probe] }),
      ).toThrow('No table access declared for queue probe (infra/table-access.ts)');
    });

    it('keeps point-in-time recovery and deletion protection on the table, which outlives the stack', () => {
      const table = resources[tableId()];
      expect(table?.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(table?.Properties.DeletionProtectionEnabled).toBe(true);
      expect([table?.DeletionPolicy, table?.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    });
  });

  describe('queues', () => {
    it('lets exactly the functions that enqueue send to each queue, and nothing else send at all', () => {
      const senders = (queueName: string) => {
        const queueArn = `\${${logicalId(stack, stack.queueConsumers[queueName]?.queue as never)}.Arn}`;
        return Object.entries(everyFunction())
          .filter(([, fn]) =>
            policyStatements(template, roleOf(fn)).some((statement) => actionsOf(statement).includes('sqs:SendMessage') && resourcesOf(statement).includes(queueArn)),
          )
          .map(([name]) => name)
          .sort();
      };
      // userWebhook: an event whose delivery failed, sent again on request.
    expect(senders('webhooks')).toEqual(['enrichment', 'providerWebhooks', 'queue:enrichment', 'queue:inbound-retry', 'schedule:enrichment-sweeper', 'userWebhook']);
      // campaignProspects: a move that makes a COMPLETED campaign ACTIVE again schedules its waiting
      // prospects; the queue's own consumer sends each sweep's next page.
      expect(senders('campaign-scheduling')).toEqual(['accounts', 'campaignProspects', 'campaigns', 'leadLists', 'queue:campaign-scheduling']);
      expect(senders('outreach')).toEqual(['schedule:outreach-scheduler']);
      expect(senders('enrichment')).toEqual(['enrichment', 'schedule:enrichment-sweeper']);
      // Only the webhook's function hands events over; its consumer's failures come back by visibility, not by a send.
      expect(senders('inbound-retry')).toEqual(['providerWebhooks']);
      // No SendMessage on anything but the catalog's queues.
      const queueArns = new Set(Object.values(stack.queueConsumers).map((queue) => `\${${logicalId(stack, queue.queue)}.Arn}`));
      for (const [name, fn] of Object.entries(everyFunction())) {
        for (const statement of policyStatements(template, roleOf(fn)).filter((s) => actionsOf(s).includes('sqs:SendMessage'))) {
          for (const resource of resourcesOf(statement)) expect(queueArns.has(resource), `${name} ${resource}`).toBe(true);
        }
      }
    });
  });

  describe('secrets', () => {
    const secretArn = (name: SecretSettingName) => ({ Ref: logicalId(stack, stack.secrets.secrets[name]) });

    it('lets each function read exactly the secrets its settings declare, with GetSecretValue and nothing more', () => {
      const readers = (name: SecretSettingName) =>
        Object.entries(everyFunction())
          .filter(([, fn]) =>
            policyStatements(template, roleOf(fn)).some((statement) => resourcesOf(statement).includes(flatten(secretArn(name)))),
          )
          .map(([fnName]) => fnName)
          .sort();
      expect(Object.fromEntries(SECRET_SETTINGS.map((name) => [name, readers(name)]))).toEqual({
        sessionSecret: ['auth', 'authorizer'],
        directoryApiKey: ['prospects'],
        providerAccessToken: ['accounts', 'chats', 'connections', 'providerWebhooks', 'queue:inbound-retry', 'queue:outreach'],
        providerWebhookSecret: ['accounts', 'providerWebhooks', 'queue:inbound-retry'],
        unsubscribeSecret: ['queue:outreach', 'unsubscribe'],
        webhookSecretKey: ['queue:webhooks', 'userWebhook'],
        hunterApiKey: ['enrichment', 'queue:enrichment'],
        prospeoApiKey: ['enrichment', 'queue:enrichment'],
        lushaApiKey: ['enrichment', 'queue:enrichment'],
      });
      for (const [name, fn] of Object.entries(everyFunction())) {
        const secretActions = policyStatements(template, roleOf(fn)).flatMap(actionsOf).filter((action) => action.startsWith('secretsmanager:') || action.startsWith('kms:'));
        expect(new Set(secretActions), name).toEqual(new Set(secretActions.length ? ['secretsmanager:GetSecretValue'] : []));
      }
    });

    it('hands each function the ARN of each secret it declares in <VARIABLE>_ARN, never the variable itself', () => {
      for (const [name, fn] of Object.entries(everyFunction())) {
        const env = envOf(fn);
        const declared = settingsOf(name);
        for (const secret of SECRET_SETTINGS) {
          expect(env[SETTINGS[secret].env], `${name} ${secret}`).toBeUndefined();
          expect(env[secretArnVariable(secret)], `${name} ${secret}`).toEqual(declared.includes(secret) ? secretArn(secret) : undefined);
        }
      }
      expect(envOf(stack.functions.auth)).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        TABLE_NAME: { Ref: tableId() },
        RUNTIME: 'aws',
        SESSION_SECRET_ARN: secretArn('sessionSecret'),
      });
    });

    it('puts no secret value in the template: no dynamic reference, no secret string', () => {
      const text = JSON.stringify(template.toJSON());
      // Booleans, not the text: a failure must not print the whole template.
      expect(text.includes('{{resolve:secretsmanager')).toBe(false);
      expect(text.includes('"SecretString"')).toBe(false);
      for (const [id, secret] of resourcesOfType(template, 'AWS::SecretsManager::Secret')) {
        expect(secret.Properties.GenerateSecretString, id).toEqual({ ExcludePunctuation: true, PasswordLength: expect.any(Number) });
      }
    });

    it('retains every secret that stored data, sent links or an operator depend on; only the session key goes with the stack', () => {
      const policies = Object.fromEntries(
        SECRET_SETTINGS.map((name) => {
          const secret = resources[logicalId(stack, stack.secrets.secrets[name])];
          return [name, `${secret?.DeletionPolicy}/${secret?.UpdateReplacePolicy}`];
        }),
      );
      expect(policies).toEqual({
        sessionSecret: 'Delete/Delete',
        directoryApiKey: 'Retain/Retain',
        providerAccessToken: 'Retain/Retain',
        providerWebhookSecret: 'Retain/Retain',
        unsubscribeSecret: 'Retain/Retain',
        webhookSecretKey: 'Retain/Retain',
        hunterApiKey: 'Retain/Retain',
        prospeoApiKey: 'Retain/Retain',
        lushaApiKey: 'Retain/Retain',
      });
    });
  });

  describe('API Gateway keys and wildcards', () => {
    it('lets only the api-keys function create keys, in the per-key plan, and only it and members delete them', () => {
      const prefix = `arn:\${AWS::Partition}:apigateway:\${AWS::Region}::`;
      const plan = logicalId(stack, stack.api.usagePlan);
      const rights = Object.fromEntries(
        Object.entries(everyFunction())
          .map(([name, fn]): [string, string[]] => [
            name,
            policyStatements(template, roleOf(fn))
              .filter((statement) => actionsOf(statement).some((action) => action.startsWith('apigateway:')))
              .flatMap((statement) => actionsOf(statement).flatMap((action) => resourcesOf(statement).map((resource) => `${action} ${resource}`))),
          ])
          .filter(([, granted]) => granted.length > 0),
      );
      expect(rights).toEqual({
        apiKeys: [`apigateway:POST ${prefix}/apikeys`, `apigateway:POST ${prefix}/usageplans/\${${plan}}/keys`, `apigateway:DELETE ${prefix}/apikeys/*`],
        members: [`apigateway:DELETE ${prefix}/apikeys/*`],
      });
    });

    it('uses a wildcard resource only where AWS requires one', () => {
      // X-Ray takes no resource but `*`; a key's id is made by API Gateway, so deleting keys cannot
      // name them in advance (infra/constructs/public-api.ts). Nothing else.
      const wildcards = new Set<string>();
      for (const fn of Object.values(everyFunction())) {
        for (const statement of policyStatements(template, roleOf(fn))) {
          for (const resource of resourcesOf(statement).filter((r) => r.includes('*'))) wildcards.add(`${actionsOf(statement).join(',')} ${resource}`);
        }
      }
      expect([...wildcards].sort()).toEqual([
        `apigateway:DELETE arn:\${AWS::Partition}:apigateway:\${AWS::Region}::/apikeys/*`,
        'xray:PutTelemetryRecords,xray:PutTraceSegments *',
      ]);
    });

    it('gives the api-keys function time for three key calls with every retry (27 s)', () => {
      expect(resources[logicalId(stack, stack.functions.apiKeys)]?.Properties.Timeout).toBe(27);
      // Removing a member deletes their gateway keys with the same retries.
      expect(resources[logicalId(stack, stack.functions.members)]?.Properties.Timeout).toBe(27);
    });
  });
});
