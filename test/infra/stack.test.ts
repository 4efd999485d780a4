import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildSync } from 'esbuild';
import { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../shared/runtime/catalog';
import { DEFAULT_ALARM_THRESHOLDS, loadConfig } from '../../infra/config';
import { retryAfterSeconds, sessionUsageKeyValues } from '../../infra/constructs/gateway-settings';
import { FUNCTION_BUNDLE } from '../../infra/bundling';
import { QueueConsumer } from '../../infra/constructs/queue-consumer';
import { REPO_ROOT } from '../../infra/paths';
import { ScheduledJob } from '../../infra/constructs/scheduled-job';
import { OutreachStack } from '../../infra/stacks/outreach-stack';
import { GLOBAL_INDEXES, LOCAL_INDEXES, TABLE } from '../../shared/db/table-schema';
import { TABLE_SETTINGS } from '../../shared/config/settings';
import { type AuthMode, FUNCTION_GROUPS, type FunctionGroup, ROUTES, type RegisteredRoute, isRateLimited } from '../../shared/http/route-table';
import { defineRoute } from '../../shared/http/routes/define';
import {
  type CfnResource,
  actionsOf,
  dynamoAccess,
  flatten,
  logicalId,
  policyStatements,
  resourcesOf,
  resourcesOfType,
  testApp,
} from './template-helpers';

const GROUPS = Object.keys(FUNCTION_GROUPS) as FunctionGroup[];
const expectedAuthorizer = (auth: AuthMode) =>
  auth === 'none' ? undefined : auth === 'apiKey' ? 'ApiKeyAuthorizer' : 'CallerAuthorizer';

/** Full path of every API Gateway resource, by logical id. */
function resourcePaths(template: Template): Map<string, string> {
  const resources = new Map(resourcesOfType(template, 'AWS::ApiGateway::Resource'));
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const resource = resources.get(id);
    if (!resource) return ''; // the API's root resource
    const parent = resource.Properties?.ParentId;
    const parentPath = 'Ref' in parent ? pathOf(parent.Ref) : '';
    const full = `${parentPath}/${resource.Properties?.PathPart}`;
    paths.set(id, full);
    return full;
  };
  for (const id of resources.keys()) pathOf(id);
  return paths;
}

/** The Method resource for a route, found by path and HTTP method. */
function methodFor(template: Template, route: RegisteredRoute): CfnResource {
  const paths = resourcePaths(template);
  const matches = resourcesOfType(template, 'AWS::ApiGateway::Method').filter(
    ([, method]) => method.Properties?.HttpMethod === route.method && paths.get(method.Properties?.ResourceId.Ref) === route.path,
  );
  expect(matches, `${route.method} ${route.path}`).toHaveLength(1);
  return matches[0]?.[1] as CfnResource;
}

function authorizerNames(template: Template): Map<string, CfnResource> {
  return new Map(resourcesOfType(template, 'AWS::ApiGateway::Authorizer').map(([id, resource]) => [id, resource]));
}

/** Every route has exactly its method, authorizer, API-key requirement and integration. */
function expectRoutes(template: Template, routes: readonly RegisteredRoute[], stackName: string): void {
  const authorizers = authorizerNames(template);
  for (const route of routes) {
    const method = methodFor(template, route).Properties ?? {};
    const label = `${route.method} ${route.path}`;
    expect(method.ApiKeyRequired, label).toBe(isRateLimited(route.auth));
    const authorizer = expectedAuthorizer(route.auth);
    if (authorizer === undefined) {
      expect(method.AuthorizationType, label).toBe('NONE');
      expect(method.AuthorizerId, label).toBeUndefined();
    } else {
      expect(method.AuthorizationType, label).toBe('CUSTOM');
      expect(authorizers.get(method.AuthorizerId.Ref)?.Properties?.Name, label).toBe(authorizer);
    }
    expect(method.Integration.Type, label).toBe('AWS_PROXY');
    expect(method.Integration.IntegrationHttpMethod, label).toBe('POST');
    const functionName = `${stackName}-${route.group.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`;
    expect(flatten(method.Integration.Uri), label).toBe(
      `arn:\${AWS::Partition}:apigateway:\${AWS::Region}:lambda:path/2015-03-31/functions/arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${functionName}/invocations`,
    );
  }
  expect(resourcesOfType(template, 'AWS::ApiGateway::Method')).toHaveLength(routes.length);
  // Only the authorizers some route uses exist (CDK refuses to deploy an unattached one).
  const used = new Set(routes.map((route) => expectedAuthorizer(route.auth)).filter(Boolean));
  expect(new Set([...authorizers.values()].map((authorizer) => authorizer.Properties?.Name))).toEqual(used);
}

describe('OutreachStack (cdk.json context, real bundling)', () => {
  const app = testApp({ bundle: true });
  const config = loadConfig(app.node);
  let stack: OutreachStack;
  let template: Template;

  beforeAll(() => {
    stack = new OutreachStack(app, config.stackName, { config });
    // Template.fromStack also fails on a dependency cycle (CloudFormation would reject the stack).
    template = Template.fromStack(stack);
  });

  const fnId = (group: FunctionGroup) => logicalId(stack, stack.functions[group]);
  const roleId = (fn: { role?: { node: { defaultChild?: unknown } } }) => logicalId(stack, fn.role as { node: { defaultChild?: unknown } });
  const envOf = (id: string): Record<string, unknown> => template.toJSON().Resources[id].Properties.Environment.Variables;

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

  describe('API', () => {
    it('takes API keys from the authorizer, not from a header', () => {
      template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
      template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    });

    it('has one method per route with its authorizer, API-key requirement and integration', () => {
      expectRoutes(template, ROUTES, config.stackName);
    });

    it('turns {id} segments into path-parameter resources', () => {
      const paths = [...resourcePaths(template).values()];
      // Exactly the routes' paths and their parents, each once.
      const prefixes = ROUTES.flatMap((route) => route.path.split('/').slice(1).map((_, i, parts) => `/${parts.slice(0, i + 1).join('/')}`));
      expect([...paths].sort()).toEqual([...new Set(prefixes)].sort());
      const idPrefixes = ROUTES.flatMap((route) =>
        route.path.split('/').flatMap((segment, i, segments) => (segment === '{id}' ? [segments.slice(0, i + 1).join('/')] : [])),
      );
      expect(new Set(paths.filter((path) => path.endsWith('/{id}')))).toEqual(new Set(idPrefixes));
    });

    it('backs the caller authorizer with the authorizer function, without caching or identity sources', () => {
      template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
        Name: 'CallerAuthorizer',
        Type: 'REQUEST',
        AuthorizerResultTtlInSeconds: 0,
        IdentitySource: Match.absent(),
        AuthorizerUri: Match.objectLike({
          'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [logicalId(stack, stack.authorizer), 'Arn'] }])],
        }),
      });
    });

    it('lets API Gateway invoke every endpoint function', () => {
      const restApiId = logicalId(stack, stack.api.api);
      for (const group of GROUPS) {
        template.hasResourceProperties('AWS::Lambda::Permission', {
          Action: 'lambda:InvokeFunction',
          FunctionName: { 'Fn::GetAtt': [fnId(group), 'Arn'] },
          Principal: 'apigateway.amazonaws.com',
          SourceArn: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([{ Ref: restApiId }])] }),
        });
      }
    });

    it('deploys the configured stage', () => {
      template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'v1', TracingEnabled: true });
    });
  });

  describe('usage plans', () => {
    const stageRef = () => ({ Ref: logicalId(stack, stack.api.api.deploymentStage) });
    const apiRef = () => ({ Ref: logicalId(stack, stack.api.api) });

    it('limits every API key to rateLimitPerMinute with a burst of rateLimitBurst, attached to the stage', () => {
      template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        UsagePlanName: `${config.stackName}-per-key`,
        Throttle: { RateLimit: 50 / 60, BurstLimit: 10 },
        ApiStages: [Match.objectLike({ ApiId: apiRef(), Stage: stageRef() })],
      });
    });

    it('has a sessions plan with a pool of deterministic usage keys', () => {
      const planId = logicalId(stack, stack.api.sessionsUsagePlan);
      template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        UsagePlanName: `${config.stackName}-sessions`,
        Throttle: { RateLimit: 10, BurstLimit: 100 },
        ApiStages: [Match.objectLike({ ApiId: apiRef(), Stage: stageRef() })],
      });
      const keys = resourcesOfType(template, 'AWS::ApiGateway::ApiKey');
      expect(keys).toHaveLength(8);
      const values = keys.map(([, key]) => key.Properties?.Value as string);
      expect(values).toEqual(sessionUsageKeyValues(config.stackName, 8));
      expect(new Set(values).size).toBe(8);
      for (const value of values) expect(value).toMatch(/^[0-9a-f]{40}$/);
      for (const [, key] of keys) expect(key.Properties?.Enabled).toBe(true);

      const planKeys = resourcesOfType(template, 'AWS::ApiGateway::UsagePlanKey');
      expect(planKeys).toHaveLength(8);
      for (const [, planKey] of planKeys) {
        expect(planKey.Properties).toMatchObject({ KeyType: 'API_KEY', UsagePlanId: { Ref: planId } });
      }
      expect(new Set(planKeys.map(([, planKey]) => planKey.Properties?.KeyId.Ref))).toEqual(new Set(keys.map(([id]) => id)));
      // The authorizer hands out exactly these.
      expect(envOf(logicalId(stack, stack.authorizer)).SESSION_USAGE_KEYS).toBe(values.join(','));
    });

    it('seeds the session keys with the stack name', () => {
      // The first 40 hex digits of SHA-256("<stack name>:session-usage-key:<index>").
      expect(sessionUsageKeyValues('A', 3)).toEqual([
        'e9b06cbcbf3a7cad6fe63cbc4b9bb61eb2218579',
        '1bebe006428ab3168c97bcb44c0718239d69f6b4',
        '6f5dfa37ef64f54f8703f937611fad37b67f2fac',
      ]);
      expect(sessionUsageKeyValues('B', 3)).toEqual([
        'dca902c9cf4ad2817043df94f2c3e91ea198586f',
        'b9bdf19f1fb40475fb94470efbf6a3dca8ecaf6c',
        '33ab3c0d219d5d71df6c55a8b362e8e6c13f501d',
      ]);
    });
  });

  describe('gateway responses', () => {
    const retryAfter = `'${retryAfterSeconds(50)}'`;
    const missingKey = { error: 'Missing API key', message: 'Provide X-API-Key header' };
    const cases: { type: string; status?: string; body: string | object; headers?: Record<string, string> }[] = [
      { type: 'UNAUTHORIZED', status: '401', body: missingKey },
      { type: 'INVALID_API_KEY', status: '401', body: missingKey },
      {
        type: 'ACCESS_DENIED',
        status: '401',
        body: '{"error":"$context.authorizer.error","message":"$context.authorizer.message"}',
      },
      { type: 'THROTTLED', status: '429', body: { error: 'Rate limit exceeded' }, headers: { 'Retry-After': retryAfter } },
      { type: 'QUOTA_EXCEEDED', status: '429', body: { error: 'Rate limit exceeded' }, headers: { 'Retry-After': retryAfter } },
      { type: 'MISSING_AUTHENTICATION_TOKEN', status: '404', body: { error: 'Not found' } },
      { type: 'REQUEST_TOO_LARGE', status: '413', body: { error: 'Request body too large' } },
      { type: 'WAF_FILTERED', status: '403', body: { error: 'Request blocked' } },
      { type: 'DEFAULT_5XX', body: { error: 'Internal server error' } },
      { type: 'DEFAULT_4XX', body: '{"error":$context.error.messageString}' },
    ];

    it('Retry-After is the slowest refill of one request among the throttles, rounded up', () => {
      expect(retryAfter).toBe("'2'");
      expect(retryAfterSeconds(30)).toBe(2);
      expect(retryAfterSeconds(7)).toBe(9);
      // The sessions plan (10 rps) and the stage's method throttles (500 and 50 rps) refill faster.
      expect(retryAfterSeconds(50, [10, 500, 50])).toBe(2);
      // A method throttle slower than the per-key plan sets it: one request every 4 s.
      expect(retryAfterSeconds(50, [0.25])).toBe(4);
      expect(retryAfterSeconds(120, [1 / 3])).toBe(3);
    });

    it.each(cases)('$type answers $status with a JSON body', ({ type, status, body, headers = {} }) => {
      const responses = resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').filter(
        ([, response]) => response.Properties?.ResponseType === type,
      );
      expect(responses).toHaveLength(1);
      const properties = responses[0]?.[1].Properties ?? {};
      expect(properties.StatusCode).toBe(status);
      const mapping = properties.ResponseTemplates['application/json'];
      if (typeof body === 'string') expect(mapping).toBe(body);
      else expect(JSON.parse(mapping)).toEqual(body);
      const expectedHeaders = Object.fromEntries(
        Object.entries({ 'content-type': "'application/json'", 'cache-control': "'no-store'", 'x-content-type-options': "'nosniff'", ...headers }).map(([name, value]) => [
          `gatewayresponse.header.${name}`,
          value,
        ]),
      );
      expect(properties.ResponseParameters).toEqual(expectedHeaders);
    });

    it('has no other gateway responses', () => {
      template.resourceCountIs('AWS::ApiGateway::GatewayResponse', cases.length);
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

  it("lets the scheduler's role invoke the function", () => {
    const invoke = resourcesOfType(template, 'AWS::IAM::Policy')
      .flatMap(([, policy]) => policy.Properties?.PolicyDocument.Statement)
      .filter((statement) => actionsOf(statement).includes('lambda:InvokeFunction'));
    expect(invoke.flatMap(resourcesOf)).toEqual([`\${${logicalId(stack, job.function)}.Arn}`, `\${${logicalId(stack, job.function)}.Arn}:*`]);
  });
});
