import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { retryAfterSeconds, sessionUsageKeyValues } from '../../infra/constructs/gateway-settings';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { ROUTES } from '../../shared/http/route-table';
import {
  logicalId,
  resourcesOfType,
  useDefaultStack,
} from './template-helpers';
import { GROUPS, resourcePaths, expectRoutes } from './route-assertions';

/** The API of the stack of cdk.json's context: methods, authorizers, usage plans, gateway responses. Synthesized without bundling (stack.test.ts bundles). */
describe('OutreachStack API (cdk.json context, no bundling)', () => {
  const synthesized = useDefaultStack({ bundle: false });
  const { fnId, envOf } = synthesized;
  let stack: OutreachStack;
  let template: Template;

  beforeAll(() => {
    ({ stack, template } = synthesized);
  });

  describe('API', () => {
    it('takes API keys from the authorizer, not from a header', () => {
      template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
      template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    });

    it('has one method per route with its authorizer, API-key requirement and integration', () => {
      expectRoutes(template, ROUTES, stack.stackName);
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
        UsagePlanName: `${stack.stackName}-per-key`,
        Throttle: { RateLimit: 50 / 60, BurstLimit: 10 },
        ApiStages: [Match.objectLike({ ApiId: apiRef(), Stage: stageRef() })],
      });
    });

    it('has a sessions plan with a pool of deterministic usage keys', () => {
      const planId = logicalId(stack, stack.api.sessionsUsagePlan);
      template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        UsagePlanName: `${stack.stackName}-sessions`,
        Throttle: { RateLimit: 10, BurstLimit: 100 },
        ApiStages: [Match.objectLike({ ApiId: apiRef(), Stage: stageRef() })],
      });
      const keys = resourcesOfType(template, 'AWS::ApiGateway::ApiKey');
      expect(keys).toHaveLength(8);
      const values = keys.map(([, key]) => key.Properties?.Value as string);
      expect(values).toEqual(sessionUsageKeyValues(stack.stackName, 8));
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

});
