import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../infra/config';
import { bodyLimitTiers, greaterThanPattern, isAnonymous, isProviderWebhook, pathPattern } from '../../infra/constructs/edge-routes';
import { OutreachStack } from '../../infra/stacks/outreach-stack';
import { tooManyPage } from '../../functions/http/unsubscribe/pages';
import { ROUTES } from '../../shared/http/route-table';
import { type CfnResource, type Json, flatten, logicalId, resourcesOfType, sharedStack, testApp } from './template-helpers';

const WEBHOOKS = '^(?:/v1)?(?:/api/v1/webhooks/provider|/api/v1/webhooks/provider/hosted-auth)/?$';
const ANONYMOUS_JSON = '^(?:/v1)?(?:/api/v1/auth/login|/api/v1/auth/signup)/?$';
const ANONYMOUS_PAGES = '^(?:/v1)?(?:/api/v1/unsubscribe/[^/]+)/?$';
const LARGER_THAN_256_KB =
  '^(?:/v1)?(?:/api/v1/public/campaigns/[^/]+/import|/api/v1/public/campaigns/[^/]+/steps|/api/v1/public/campaigns/[^/]+/steps/[^/]+|/api/v1/public/lead-lists/[^/]+/import|/api/v1/webhooks/provider)/?$';
const LARGER_THAN_640_KB = '^(?:/v1)?(?:/api/v1/public/campaigns/[^/]+/import|/api/v1/public/lead-lists/[^/]+/import|/api/v1/webhooks/provider)/?$';

const urlDecoded = (regexString: string) => ({
  RegexMatchStatement: { RegexString: regexString, FieldToMatch: { UriPath: {} }, TextTransformations: [{ Priority: 0, Type: 'URL_DECODE' }] },
});
const contentLengthOver = (limit: number) => ({
  RegexMatchStatement: {
    RegexString: greaterThanPattern(limit),
    FieldToMatch: { SingleHeader: { Name: 'content-length' } },
    TextTransformations: [{ Priority: 0, Type: 'NONE' }],
  },
});
const visibility = (name: string) => ({ CloudWatchMetricsEnabled: true, MetricName: `SharedProbe-${name}`, SampledRequestsEnabled: true });
const blockWith = (status: number, body: string, headers: { Name: string; Value: string }[] = []) => ({
  Block: { CustomResponse: { ResponseCode: status, CustomResponseBodyKey: body, ...(headers.length ? { ResponseHeaders: headers } : {}) } },
});

/** A route's path as a request names it: the stage in front, a value for each parameter. */
const requestPath = (path: string) => `/v1${path.replace(/\{[^}]+\}/g, 'abc123')}`;

describe('edge: WAF web ACL, stage throttles and the per-key plan (cdk.json context, no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let acl: Record<string, Json>;
  const ruleNamed = (name: string): Json => (acl.Rules as Json[]).find((rule) => rule.Name === name);

  beforeAll(() => {
    ({ stack, template } = sharedStack());
    const acls = resourcesOfType(template, 'AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    acl = (acls[0] as [string, CfnResource])[1].Properties;
  });

  describe('route classes, from the route table', () => {
    it('takes signup, login and the unsubscribe link as the anonymous routes, and the provider webhooks apart', () => {
      expect(ROUTES.filter(isAnonymous).map((route) => `${route.method} ${route.path}`)).toEqual([
        'POST /api/v1/auth/signup',
        'POST /api/v1/auth/login',
        'GET /api/v1/unsubscribe/{token}',
        'HEAD /api/v1/unsubscribe/{token}',
        'POST /api/v1/unsubscribe/{token}',
      ]);
      expect(ROUTES.filter(isProviderWebhook).map((route) => `${route.method} ${route.path}`)).toEqual([
        'POST /api/v1/webhooks/provider',
        'POST /api/v1/webhooks/provider/hosted-auth',
      ]);
    });

    it('matches exactly the paths of its routes, with or without the stage and a trailing slash', () => {
      const webhooks = new RegExp(pathPattern(ROUTES.filter(isProviderWebhook).map((route) => route.path), 'v1'));
      for (const route of ROUTES) {
        const path = requestPath(route.path);
        expect(webhooks.test(path), path).toBe(isProviderWebhook(route));
        expect(webhooks.test(`${path}/`), `${path}/`).toBe(isProviderWebhook(route));
        expect(webhooks.test(path.slice('/v1'.length)), path).toBe(isProviderWebhook(route));
      }
      expect(webhooks.test('/other/api/v1/webhooks/provider')).toBe(false);
      expect(webhooks.test('/v1/api/v1/webhooks/provider/x')).toBe(false);
      expect(webhooks.test('/v1/api/v1/webhooks/providerx')).toBe(false);
      const pages = new RegExp(ANONYMOUS_PAGES);
      expect(pages.test('/v1/api/v1/unsubscribe/u1.abc.def')).toBe(true);
      expect(pages.test('/v1/api/v1/unsubscribe/a/b')).toBe(false);
      expect(pages.test('/v1/api/v1/unsubscribe/')).toBe(false);
    });

    it('writes "greater than" as a regex that agrees with the numbers', () => {
      for (const limit of [0, 7, 9, 10, 99, 100, 8192, 262_144, 655_360, 4_194_304, 9_999_999]) {
        const over = new RegExp(greaterThanPattern(limit));
        const samples = [0, 1, limit - 1, limit, limit + 1, limit + 9, limit * 10, limit * 10 + 1, 10 ** String(limit).length, 2 ** 40];
        for (let step = 0; step < 500; step += 1) samples.push(Math.floor(((step * 7919) % 10_007) * (limit / 5_000 + 1)));
        for (const value of samples.filter((sample) => sample >= 0)) expect(over.test(String(value)), `${value} > ${limit}`).toBe(value > limit);
        expect(over.test(`000${limit + 1}`), 'leading zeros').toBe(true);
        expect(over.test(''), 'empty').toBe(false);
        expect(over.test(`${limit + 1}x`), 'trailing text').toBe(false);
      }
      expect(greaterThanPattern(4_194_304)).toBe(
        '^0*(?:[1-9][0-9]{7,}|[5-9][0-9]{6}|4[2-9][0-9]{5}|419[5-9][0-9]{3}|4194[4-9][0-9]{2}|41943[1-9][0-9]|419430[5-9])$',
      );
    });

    it('has a body-size tier per route limit from 256 KB up, each with the paths that accept more', () => {
      expect(bodyLimitTiers(ROUTES)).toEqual([
        {
          limit: 262_144,
          largerPaths: [
            '/api/v1/public/campaigns/{id}/import',
            '/api/v1/public/campaigns/{id}/steps',
            '/api/v1/public/campaigns/{id}/steps/{step_id}',
            '/api/v1/public/lead-lists/{id}/import',
            '/api/v1/webhooks/provider',
          ],
        },
        { limit: 655_360, largerPaths: ['/api/v1/public/campaigns/{id}/import', '/api/v1/public/lead-lists/{id}/import', '/api/v1/webhooks/provider'] },
        { limit: 4_194_304, largerPaths: [] },
      ]);
    });
  });

  describe('web ACL', () => {
    it('is a regional web ACL that allows by default, with metrics, the 16 KB body inspection and our error bodies', () => {
      expect(acl.Name).toBe('SharedProbe-api');
      expect(acl.Scope).toBe('REGIONAL');
      expect(acl.DefaultAction).toEqual({ Allow: {} });
      expect(acl.VisibilityConfig).toEqual(visibility('WebAcl'));
      expect(acl.AssociationConfig).toEqual({ RequestBody: { API_GATEWAY: { DefaultSizeInspectionLimit: 'KB_16' } } });
      expect(acl.CustomResponseBodies).toEqual({
        RateLimited: { ContentType: 'APPLICATION_JSON', Content: '{"error":"Rate limit exceeded"}' },
        RateLimitedPage: { ContentType: 'TEXT_HTML', Content: tooManyPage(90) },
        TooLarge: { ContentType: 'APPLICATION_JSON', Content: '{"error":"Request body too large"}' },
      });
      expect((acl.Rules as Json[]).map((rule) => [rule.Priority, rule.Name])).toEqual([
        [0, 'PerIp'],
        [1, 'AnonymousPerIp'],
        [2, 'AnonymousPagesPerIp'],
        [3, 'BodyTooLarge'],
        [4, 'CommonRuleSet'],
      ]);
      for (const rule of acl.Rules as Json[]) expect(rule.VisibilityConfig, rule.Name).toEqual(visibility(rule.Name));
    });

    it('limits each IP address to 2,000 requests in 5 minutes on every route but the provider webhooks: 429 with Retry-After 330', () => {
      expect(ruleNamed('PerIp')).toEqual({
        Name: 'PerIp',
        Priority: 0,
        Action: blockWith(429, 'RateLimited', [{ Name: 'Retry-After', Value: '330' }]),
        Statement: {
          RateBasedStatement: { Limit: 2000, EvaluationWindowSec: 300, AggregateKeyType: 'IP', ScopeDownStatement: { NotStatement: { Statement: urlDecoded(WEBHOOKS) } } },
        },
        VisibilityConfig: visibility('PerIp'),
      });
    });

    it('limits each IP address to 20 requests a minute on signup and login (JSON 429) and on the unsubscribe link (the 429 page), Retry-After 90', () => {
      const anonymous = (name: string, priority: number, pattern: string, body: string) => ({
        Name: name,
        Priority: priority,
        Action: blockWith(429, body, [{ Name: 'Retry-After', Value: '90' }]),
        Statement: { RateBasedStatement: { Limit: 20, EvaluationWindowSec: 60, AggregateKeyType: 'IP', ScopeDownStatement: urlDecoded(pattern) } },
        VisibilityConfig: visibility(name),
      });
      expect(ruleNamed('AnonymousPerIp')).toEqual(anonymous('AnonymousPerIp', 1, ANONYMOUS_JSON, 'RateLimited'));
      expect(ruleNamed('AnonymousPagesPerIp')).toEqual(anonymous('AnonymousPagesPerIp', 2, ANONYMOUS_PAGES, 'RateLimitedPage'));
    });

    it('refuses a declared body over its route limit (256 KB, 640 KB for steps, 4 MB for imports and the provider webhook) with 413', () => {
      expect(ruleNamed('BodyTooLarge')).toEqual({
        Name: 'BodyTooLarge',
        Priority: 3,
        Action: blockWith(413, 'TooLarge'),
        Statement: {
          OrStatement: {
            Statements: [
              { AndStatement: { Statements: [contentLengthOver(262_144), { NotStatement: { Statement: urlDecoded(LARGER_THAN_256_KB) } }] } },
              { AndStatement: { Statements: [contentLengthOver(655_360), { NotStatement: { Statement: urlDecoded(LARGER_THAN_640_KB) } }] } },
              contentLengthOver(4_194_304),
            ],
          },
        },
        VisibilityConfig: visibility('BodyTooLarge'),
      });
    });

    it("runs AWS's common rule set with the 8 KB body and body XSS rules counted, not over the provider webhooks", () => {
      expect(ruleNamed('CommonRuleSet')).toEqual({
        Name: 'CommonRuleSet',
        Priority: 4,
        OverrideAction: { None: {} },
        Statement: {
          ManagedRuleGroupStatement: {
            VendorName: 'AWS',
            Name: 'AWSManagedRulesCommonRuleSet',
            RuleActionOverrides: [
              { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
              { Name: 'CrossSiteScripting_BODY', ActionToUse: { Count: {} } },
              { Name: 'SizeRestrictions_QUERYSTRING', ActionToUse: { Count: {} } },
            ],
            ScopeDownStatement: { NotStatement: { Statement: urlDecoded(WEBHOOKS) } },
          },
        },
        VisibilityConfig: visibility('CommonRuleSet'),
      });
    });

    it('is associated with the API stage', () => {
      const associations = resourcesOfType(template, 'AWS::WAFv2::WebACLAssociation');
      expect(associations).toHaveLength(1);
      const properties = (associations[0] as [string, CfnResource])[1].Properties;
      const stageId = logicalId(stack, stack.api.api.deploymentStage);
      const apiId = logicalId(stack, stack.api.api);
      expect(flatten(properties.ResourceArn)).toBe(`arn:\${AWS::Partition}:apigateway:\${AWS::Region}::/restapis/\${${apiId}}/stages/\${${stageId}}`);
      expect(properties.WebACLArn).toEqual({ 'Fn::GetAtt': [stack.getLogicalId(stack.firewall.webAcl), 'Arn'] });
    });
  });

  describe('stage and usage plan', () => {
    it('throttles every method at 500 rps (burst 1,000) and the anonymous routes at 50 rps (burst 100), all callers together', () => {
      const stages = resourcesOfType(template, 'AWS::ApiGateway::Stage');
      expect(stages).toHaveLength(1);
      const settings = (stages[0] as [string, CfnResource])[1].Properties.MethodSettings;
      const anonymous = (resourcePath: string, httpMethod: string) => ({
        HttpMethod: httpMethod,
        ResourcePath: resourcePath,
        MetricsEnabled: true,
        DataTraceEnabled: false,
        LoggingLevel: 'ERROR',
        ThrottlingRateLimit: 50,
        ThrottlingBurstLimit: 100,
      });
      expect(settings).toEqual([
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          MetricsEnabled: true,
          DataTraceEnabled: false,
          LoggingLevel: 'ERROR',
          ThrottlingRateLimit: 500,
          ThrottlingBurstLimit: 1000,
        },
        anonymous('/~1api~1v1~1auth~1signup', 'POST'),
        anonymous('/~1api~1v1~1auth~1login', 'POST'),
        anonymous('/~1api~1v1~1unsubscribe~1{token}', 'GET'),
        anonymous('/~1api~1v1~1unsubscribe~1{token}', 'HEAD'),
        anonymous('/~1api~1v1~1unsubscribe~1{token}', 'POST'),
      ]);
    });

    it('gives each API key 50 a minute (0.8333 rps) with a burst of 10: at most 60 in any minute', () => {
      const plan = resourcesOfType(template, 'AWS::ApiGateway::UsagePlan').find(([, resource]) => resource.Properties.UsagePlanName === 'SharedProbe-per-key');
      expect(plan?.[1].Properties.Throttle).toEqual({ RateLimit: 50 / 60, BurstLimit: 10 });
      expect(50 / 60).toBeCloseTo(0.8333, 4);
    });

    it("answers API Gateway's own 429s with Retry-After 2: the per-key plan's 1.2 s refill, the slowest of the throttles, rounded up", () => {
      for (const type of ['THROTTLED', 'QUOTA_EXCEEDED']) {
        const response = resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').find(([, resource]) => resource.Properties.ResponseType === type);
        expect(response?.[1].Properties.ResponseParameters['gatewayresponse.header.Retry-After'], type).toBe("'2'");
      }
    });

    it("renders a block by the managed rules (WAF_FILTERED) as 403 with a JSON error", () => {
      const response = resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').find(([, resource]) => resource.Properties.ResponseType === 'WAF_FILTERED');
      expect(response?.[1].Properties.StatusCode).toBe('403');
      expect(JSON.parse(response?.[1].Properties.ResponseTemplates['application/json'])).toEqual({ error: 'Request blocked' });
    });
  });

  describe('context', () => {
    it('takes every limit from CDK context, the Retry-After following the per-key rate', () => {
      const tuned = testApp({
        bundle: false,
        context: {
          rateLimitPerMinute: '20',
          rateLimitBurst: '4',
          wafIpLimitPer5Minutes: '3000',
          wafAnonymousIpLimitPerMinute: '12',
          stageRateLimit: '200',
          stageBurstLimit: '400',
          anonymousRateLimit: '5',
          anonymousBurstLimit: '10',
        },
      });
      const tunedConfig = loadConfig(tuned.node);
      expect([tunedConfig.rateLimitBurst, tunedConfig.edge]).toEqual([
        4,
        { wafIpLimitPer5Minutes: 3000, wafAnonymousIpLimitPerMinute: 12, stageRateLimit: 200, stageBurstLimit: 400, anonymousRateLimit: 5, anonymousBurstLimit: 10 },
      ]);
      const tunedTemplate = Template.fromStack(new OutreachStack(tuned, 'EdgeTuned', { config: tunedConfig }));
      const [, webAcl] = resourcesOfType(tunedTemplate, 'AWS::WAFv2::WebACL')[0] as [string, CfnResource];
      const limits = Object.fromEntries((webAcl.Properties.Rules as Json[]).flatMap((rule) => (rule.Statement.RateBasedStatement ? [[rule.Name, rule.Statement.RateBasedStatement.Limit]] : [])));
      expect(limits).toEqual({ PerIp: 3000, AnonymousPerIp: 12, AnonymousPagesPerIp: 12 });
      const [, stage] = resourcesOfType(tunedTemplate, 'AWS::ApiGateway::Stage')[0] as [string, CfnResource];
      expect(stage.Properties.MethodSettings.map((setting: Json) => [setting.ThrottlingRateLimit, setting.ThrottlingBurstLimit])).toEqual([
        [200, 400],
        [5, 10],
        [5, 10],
        [5, 10],
        [5, 10],
        [5, 10],
      ]);
      const plan = resourcesOfType(tunedTemplate, 'AWS::ApiGateway::UsagePlan').find(([, resource]) => resource.Properties.UsagePlanName === 'EdgeTuned-per-key');
      expect(plan?.[1].Properties.Throttle).toEqual({ RateLimit: 20 / 60, BurstLimit: 4 });
      const throttled = resourcesOfType(tunedTemplate, 'AWS::ApiGateway::GatewayResponse').find(([, resource]) => resource.Properties.ResponseType === 'THROTTLED');
      // One token every 3 s at 20 a minute.
      expect(throttled?.[1].Properties.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'3'");
    });

    it.each([
      [{ wafAnonymousIpLimitPerMinute: 5 }, 'Invalid CDK context wafAnonymousIpLimitPerMinute: expected an integer of at least 10, got 5'],
      [{ wafIpLimitPer5Minutes: 'many' }, 'Invalid CDK context wafIpLimitPer5Minutes: expected an integer of at least 10, got "many"'],
      [{ stageBurstLimit: 1.5 }, 'Invalid CDK context stageBurstLimit: expected an integer of at least 1, got 1.5'],
      [{ anonymousRateLimit: 0 }, 'Invalid CDK context anonymousRateLimit: expected a number of at least 0.01, got 0'],
      [{ rateLimitBurst: 0 }, 'Invalid CDK context rateLimitBurst: 0 must be at least 1'],
    ])('refuses %j', (context, message) => {
      expect(() => loadConfig({ tryGetContext: (key) => (context as Record<string, unknown>)[key] })).toThrow(message);
    });
  });
});
