import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Template } from 'aws-cdk-lib/assertions';
import { buildSync } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ALARM_THRESHOLDS } from '../../infra/config';
import { sessionUsageKeyValues } from '../../infra/constructs/gateway-settings';
import { FUNCTION_BUNDLE } from '../../infra/bundling';
import type { QueueConsumer } from '../../infra/constructs/queue-consumer';
import { REPO_ROOT } from '../../infra/paths';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { GLOBAL_INDEXES, LOCAL_INDEXES, TABLE } from '../../shared/db/table-schema';
import {
  type CfnResource,
  actionsOf,
  dynamoAccess,
  flatten,
  logicalId,
  policyStatements,
  resourcesOf,
  resourcesOfType,
  useDefaultStack,
} from './template-helpers';
import { GROUPS } from './route-assertions';

describe('OutreachStack (cdk.json context, real bundling)', () => {
  const synthesized = useDefaultStack({ bundle: true });
  const { app, config, fnId, envOf } = synthesized;
  let stack: OutreachStack;
  let template: Template;

  beforeAll(() => {
    ({ stack, template } = synthesized);
  });

  const roleId = (fn: { role?: { node: { defaultChild?: unknown } } }) => logicalId(stack, fn.role as { node: { defaultChild?: unknown } });

  it('reads the settings the brief asks for from cdk.json', () => {
    expect(config).toEqual({
      stackName: 'OutreachService',
      stageName: 'v1',
      rateLimitPerMinute: 50,
      rateLimitBurst: 10,
      sessionUsageKeyCount: 8,
      sessionRateLimitPerSecond: 10,
      sessionBurstLimit: 100,
      logRetention: 30,
      tracing: true,
      providerBaseUrl: 'https://api1.unipile.com:13111',
      directoryBaseUrl: 'https://directory.invalid',
      searchQuotaPerMonth: 1000,
      maxLeadsPerList: 100_000,
      edge: {
        wafIpLimitPer5Minutes: 2000,
        wafAnonymousIpLimitPerMinute: 20,
        stageRateLimit: 500,
        stageBurstLimit: 1000,
        anonymousRateLimit: 50,
        anonymousBurstLimit: 100,
      },
      alarmThresholds: DEFAULT_ALARM_THRESHOLDS,
      reservedConcurrency: {},
      localIndexProjection: 'KEYS_ONLY',
    });
  });

  describe('table', () => {
    it('is the single table of the schema', () => {
      template.resourceCountIs('AWS::DynamoDB::Table', 1);
      const [[, table]] = resourcesOfType(template, 'AWS::DynamoDB::Table') as [[string, CfnResource]];
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      const properties = table.Properties ?? {};
      expect(properties.KeySchema).toEqual([
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ]);
      expect(properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(properties.TimeToLiveSpecification).toEqual({ AttributeName: TABLE.timeToLive, Enabled: true });
      expect(properties.DeletionProtectionEnabled).toBe(true);
      expect(properties.GlobalSecondaryIndexes).toEqual(
        GLOBAL_INDEXES.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      );
      expect(properties.LocalSecondaryIndexes).toEqual(
        LOCAL_INDEXES.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          // Keys only: a write that moves no sort key touches the table alone (docs/data-model.md).
          Projection: { ProjectionType: 'KEYS_ONLY' },
        })),
      );
      const attributes = [
        TABLE.partitionKey,
        TABLE.sortKey,
        ...GLOBAL_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
        ...LOCAL_INDEXES.map((index) => index.sortKey),
      ];
      expect(new Set(properties.AttributeDefinitions)).toEqual(
        new Set(attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' }))),
      );
    });
  });

  describe('functions', () => {
    it('has one function per endpoint group, the authorizer and the queue and schedule workers, all Node.js 22 on ARM64', () => {
      const functions = resourcesOfType(template, 'AWS::Lambda::Function');
      const workers = [...Object.values(stack.queueConsumers), ...Object.values(stack.scheduledJobs)].map((owner) =>
        logicalId(stack, owner.function),
      );
      expect(functions).toHaveLength(GROUPS.length + 1 + workers.length);
      expect(new Set(functions.map(([id]) => id))).toEqual(new Set([...GROUPS.map(fnId), logicalId(stack, stack.authorizer), ...workers]));
      for (const [id, fn] of functions) {
        expect(fn.Properties, id).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
          TracingConfig: { Mode: 'Active' },
        });
        expect(fn.Properties?.Environment.Variables.NODE_OPTIONS, id).toBe('--enable-source-maps');
        // An explicit log group with a retention period.
        const logGroupId = fn.Properties?.LoggingConfig.LogGroup.Ref;
        expect(template.toJSON().Resources[logGroupId]?.Properties.RetentionInDays, id).toBe(30);
      }
    });

    it('bundles each function as minified CommonJS with a source map and the AWS SDK left out', () => {
      for (const [id, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
        const hash = String(fn.Properties?.Code.S3Key).replace(/\.zip$/, '');
        const dir = path.join(app.outdir, `asset.${hash}`);
        const code = readFileSync(path.join(dir, 'index.js'), 'utf8');
        expect(code, id).not.toMatch(/^import /m);
        expect(existsSync(path.join(dir, 'index.js.map')), id).toBe(true);
        // Minified: a handful of lines (template literals in dependencies keep their line breaks).
        expect(code.split('\n').length, id).toBeLessThan(100);
        if (id !== fnId('health')) expect(code, id).toMatch(/require\("@aws-sdk\//);
        // Issue 2's ceiling: the provider SDK is in its layer, not in the bundle.
        expect(statSync(path.join(dir, 'index.js')).size / 1024, id).toBeLessThan(500);
      }
    });

    it('ships the provider SDK in one layer that every function has and the provider callers require', () => {
      const layers = resourcesOfType(template, 'AWS::Lambda::LayerVersion');
      expect(layers.map(([, layer]) => [layer.Properties.CompatibleRuntimes, layer.Properties.CompatibleArchitectures])).toEqual([
        [['nodejs22.x'], ['arm64']],
      ]);
      const [[layerId, layer]] = layers as [[string, CfnResource]];
      const functions = resourcesOfType(template, 'AWS::Lambda::Function');
      expect(functions.length).toBe(25);
      for (const [id, fn] of functions) expect(fn.Properties.Layers, id).toEqual([{ Ref: layerId }]);

      const bundleOf = (fn: { node: { defaultChild?: unknown } }) => {
        const resource = template.toJSON().Resources[logicalId(stack, fn)] as CfnResource;
        return readFileSync(path.join(app.outdir, `asset.${String(resource.Properties.Code.S3Key).replace(/\.zip$/, '')}`, 'index.js'), 'utf8');
      };
      const outreach = stack.queueConsumers.outreach?.function as QueueConsumer['function'];
      for (const fn of [stack.functions.providerWebhooks, stack.functions.chats, stack.functions.accounts, outreach]) {
        // A require (Lambda resolves it through NODE_PATH), never an import() (which ignores NODE_PATH).
        const mentions = bundleOf(fn).match(/(require|import)\("unipile-node-sdk"\)/g);
        expect(mentions, fn.node.id).toEqual(['require("unipile-node-sdk")']);
      }

      // The layer's module, resolved as Lambda resolves /opt/nodejs/node_modules (NODE_PATH), from
      // outside the repository: it holds the SDK with its dependencies and exports what the adapter uses.
      const layerDir = path.join(app.outdir, `asset.${String(layer.Properties.Content.S3Key).replace(/\.zip$/, '')}`);
      const exported = execFileSync(
        process.execPath,
        ['-e', "const sdk = require('unipile-node-sdk'); console.log(['UnipileClient', 'UnipileError', 'UnsuccessfulRequestError'].map((name) => typeof sdk[name]).join())"],
        { cwd: tmpdir(), env: { ...process.env, NODE_PATH: path.join(layerDir, 'nodejs', 'node_modules') }, encoding: 'utf8' },
      );
      expect(exported.trim()).toBe('function,function,function');
    });

    it('calls the provider through the layer from a bundle built as the functions are', async () => {
      // The provider adapter bundled with the functions' settings, run from outside the repository
      // with only the layer to find the SDK in, against a provider that answers 404 with its error
      // body: the SDK loads from the layer and its error class is recognised by the adapter.
      const layer = resourcesOfType(template, 'AWS::Lambda::LayerVersion')[0]?.[1] as CfnResource;
      const layerDir = path.join(app.outdir, `asset.${String(layer.Properties.Content.S3Key).replace(/\.zip$/, '')}`);
      const work = mkdtempSync(path.join(tmpdir(), 'provider-layer-'));
      const entry = path.join(work, 'entry.ts');
      writeFileSync(
        entry,
        [
          `import { UnipileProvider } from ${JSON.stringify(path.join(REPO_ROOT, 'shared/providers/unipile-provider.ts'))};`,
          'const provider = new UnipileProvider({ baseUrl: process.argv[2] as string, accessToken: "token", timeoutMs: 5000 });',
          'provider.getProfile({ accountId: "acc", identifier: "someone" }).then(',
          '  () => console.log("answered"),',
          '  (error) => console.log([error.name, error.kind, error.status, error.type].join(" ")),',
          ');',
        ].join('\n'),
      );
      buildSync({
        entryPoints: [entry],
        outfile: path.join(work, 'index.js'),
        ...FUNCTION_BUNDLE,
        logLevel: 'silent',
      });
      const paths: string[] = [];
      const server = createServer((request, response) => {
        paths.push(String(request.url));
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: 404, type: 'errors/resource_not_found', title: 'Resource not found.' }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const { stdout } = await promisify(execFile)(process.execPath, [path.join(work, 'index.js'), `http://127.0.0.1:${port}`], {
          cwd: work,
          env: { ...process.env, NODE_PATH: path.join(layerDir, 'nodejs', 'node_modules') },
        });
        expect(stdout.trim()).toBe('ProviderFailure http 404 errors/resource_not_found');
        expect(paths).toEqual(['/api/v1/users/someone?account_id=acc']);
      } finally {
        server.close();
        rmSync(work, { recursive: true, force: true });
      }
    });

    it('gives each endpoint function its configuration', () => {
      const tableRef = { Ref: logicalId(stack, stack.table.table) };
      // A secret reaches a function as its ARN, read at runtime (shared/config/secrets.ts).
      const sessionSecretArn = { Ref: logicalId(stack, stack.secrets.secrets.sessionSecret) };

      expect(envOf(fnId('health'))).toEqual({ NODE_OPTIONS: '--enable-source-maps' });
      const usagePlanRef = { Ref: logicalId(stack, stack.api.usagePlan) };
      // Each function gets exactly the settings it declares: api-keys never sees sessions, and
      // neither needs the webhooks queue.
      expect(envOf(fnId('auth'))).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        TABLE_NAME: tableRef,
        RUNTIME: 'aws',
        SESSION_SECRET_ARN: sessionSecretArn,
      });
      expect(envOf(fnId('apiKeys'))).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        TABLE_NAME: tableRef,
        RUNTIME: 'aws',
        USAGE_PLAN_ID: usagePlanRef,
      });
      // Members revoke keys (they retire gateway keys) but never create any: no usage plan.
      expect(envOf(fnId('members'))).toEqual({ NODE_OPTIONS: '--enable-source-maps', TABLE_NAME: tableRef, RUNTIME: 'aws' });
      expect(envOf(logicalId(stack, stack.authorizer))).toEqual({
        NODE_OPTIONS: '--enable-source-maps',
        TABLE_NAME: tableRef,
        RUNTIME: 'aws',
        SESSION_SECRET_ARN: sessionSecretArn,
        SESSION_USAGE_KEYS: sessionUsageKeyValues('OutreachService', 8).join(','),
      });
      expect(envOf(fnId('apiKeys')).USAGE_PLAN_ID).toEqual({ Ref: logicalId(stack, stack.api.usagePlan) });
      template.hasResourceProperties('AWS::SecretsManager::Secret', {
        GenerateSecretString: { ExcludePunctuation: true, PasswordLength: 64 },
      });
    });

    it('grants table access only where needed, item actions only (test/infra/least-privilege.test.ts has every function)', () => {
      const access = (fn: { role?: { node: { defaultChild?: unknown } } }) => dynamoAccess(template, roleId(fn), logicalId(stack, stack.table.table));
      expect(access(stack.functions.health)).toEqual({ table: [], indexes: [], conditional: [], elsewhere: [] });
      expect(access(stack.functions.auth).table).toEqual(['DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem']);
      expect(access(stack.functions.apiKeys).table).toEqual(['ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem']);
      expect(access(stack.authorizer).table).toEqual(['GetItem']);
    });

    it('gives the api-keys function 27 s: three API Gateway key calls with their retries', () => {
      expect(template.toJSON().Resources[fnId('apiKeys')].Properties.Timeout).toBe(27);
    });

    it('gives the suppressions function 28 s: a bulk add of 1,000 values, as imports have', () => {
      expect(template.toJSON().Resources[fnId('suppressions')].Properties.Timeout).toBe(28);
    });

    it('lets the api-keys function manage gateway keys of the per-key plan only', () => {
      const planId = logicalId(stack, stack.api.usagePlan);
      const statements = policyStatements(template, roleId(stack.functions.apiKeys)).filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('apigateway:')),
      );
      const prefix = `arn:\${AWS::Partition}:apigateway:\${AWS::Region}::`;
      expect(statements.map((statement) => ({ actions: actionsOf(statement), resources: resourcesOf(statement), effect: statement.Effect }))).toEqual([
        { actions: ['apigateway:POST'], resources: [`${prefix}/apikeys`, `${prefix}/usageplans/\${${planId}}/keys`], effect: 'Allow' },
        { actions: ['apigateway:DELETE'], resources: [`${prefix}/apikeys/*`], effect: 'Allow' },
      ]);
      for (const fn of [stack.functions.auth, stack.functions.health, stack.authorizer]) {
        expect(policyStatements(template, roleId(fn)).flatMap(actionsOf).filter((action) => action.startsWith('apigateway:'))).toEqual([]);
      }
    });

    it('lets the members function delete gateway keys (revoking a removed member’s keys) and not create any', () => {
      const statements = policyStatements(template, roleId(stack.functions.members)).filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('apigateway:')),
      );
      const prefix = `arn:\${AWS::Partition}:apigateway:\${AWS::Region}::`;
      expect(statements.map((statement) => ({ actions: actionsOf(statement), resources: resourcesOf(statement), effect: statement.Effect }))).toEqual([
        { actions: ['apigateway:DELETE'], resources: [`${prefix}/apikeys/*`], effect: 'Allow' },
      ]);
    });
  });

  it('outputs the API URL, table name, usage plan ids and alarm topic', () => {
    const outputs = template.toJSON().Outputs;
    // CDK's own endpoint output of the RestApi, and ours.
    expect(Object.keys(outputs).sort()).toEqual([
      'AlarmTopicArn',
      'ApiUrl',
      expect.stringMatching(/^PublicApiEndpoint[0-9A-F]{8}$/),
      'SessionsUsagePlanId',
      'TableName',
      'UsagePlanId',
    ]);
    expect(outputs.AlarmTopicArn.Value).toEqual({ Ref: logicalId(stack, stack.monitoring.topic) });
    expect(outputs.TableName.Value).toEqual({ Ref: logicalId(stack, stack.table.table) });
    expect(outputs.UsagePlanId.Value).toEqual({ Ref: logicalId(stack, stack.api.usagePlan) });
    expect(flatten(outputs.ApiUrl.Value)).toBe(
      `https://\${${logicalId(stack, stack.api.api)}}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}/\${${logicalId(stack, stack.api.api.deploymentStage)}}/`,
    );
  });
});
