import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { tooManyPage } from '../../functions/http/unsubscribe/pages';
import { GATEWAY_ANSWERS } from '../../shared/http/gateway-responses';
import type { RegisteredRoute } from '../../shared/http/route-table';
import type { EdgeConfig } from '../edge-config';
import { bodyLimitTiers, greaterThanPattern, isAnonymous, isProviderWebhook, pathPattern } from './edge-routes';

/**
 * How long after the traffic of an address falls below a rate-based rule's limit WAF still blocks
 * it: AWS documents the detection delay as "usually below 30 seconds" (rate-based rule caveats).
 */
export const WAF_DETECTION_DELAY_SECONDS = 30;

/** The evaluation windows of the two rate-based rules (WAF allows 60, 120, 300 and 600 s). */
export const PER_IP_WINDOW_SECONDS = 300;
export const ANONYMOUS_WINDOW_SECONDS = 60;

/**
 * Retry-After of a rate-based block: an address that stops at once is under the limit a full
 * window later, and WAF notices within its detection delay. Never shorter than the real wait as
 * far as WAF's documented delay holds.
 */
export const wafRetryAfterSeconds = (windowSeconds: number): number => windowSeconds + WAF_DETECTION_DELAY_SECONDS;

/**
 * WAF sends a body of at most this many bytes of a request to API Gateway to its rules: the 16 KB
 * default, stated so the template says it (more costs extra and no rule here needs it).
 */
export const BODY_INSPECTION_LIMIT = 'KB_16';

/** The common rule set's rules that would block legitimate traffic: counted (visible in metrics), not enforced. */
export const COUNTED_MANAGED_RULES = [
  // Bodies over 8 KB: imports (up to 4 MB), bulk adds and long HTML email steps. The routes' own body limits hold.
  'SizeRestrictions_BODY',
  // HTML in bodies: email steps are HTML by design, and never rendered by this API.
  'CrossSiteScripting_BODY',
  // Query strings over 2,048 bytes: list-leads and the enrichment count take up to 50 filters of 200
  // characters, analytics any number of repeated ids. The handlers bound every parameter themselves.
  'SizeRestrictions_QUERYSTRING',
] as const;

export interface WebFirewallProps {
  /** The route table (normally `ROUTES`): the anonymous and webhook paths and the body limits come from it. */
  routes: readonly RegisteredRoute[];
  /** The stage the web ACL protects. */
  stage: Stage;
  stageName: string;
  /** Prefixes the web ACL's and its metrics' names (the stack name). */
  namePrefix: string;
  config: EdgeConfig;
}

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

/** The URI path against a regex, percent-decoded first (API Gateway routes the decoded path). */
const pathMatches = (regexString: string): CfnWebACL.StatementProperty => ({
  regexMatchStatement: { regexString, fieldToMatch: { uriPath: {} }, textTransformations: [{ priority: 0, type: 'URL_DECODE' }] },
});

const not = (statement: CfnWebACL.StatementProperty): CfnWebACL.StatementProperty => ({ notStatement: { statement } });

/** `Content-Length` above `limit` bytes (WAF sees 16 KB of a body at most, so the declared length is what can be measured). */
const contentLengthOver = (limit: number): CfnWebACL.StatementProperty => ({
  regexMatchStatement: {
    regexString: greaterThanPattern(limit),
    fieldToMatch: { singleHeader: { Name: 'content-length' } },
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
});

const block = (status: number, bodyKey: string, headers: Record<string, string> = {}): CfnWebACL.RuleActionProperty => ({
  block: {
    customResponse: {
      responseCode: status,
      customResponseBodyKey: bodyKey,
      ...(Object.keys(headers).length > 0 ? { responseHeaders: Object.entries(headers).map(([name, value]) => ({ name, value })) } : {}),
    },
  },
});

/**
 * The regional WAF web ACL of the API's stage:
 *
 * 1. `PerIp`: a rate-based rule per client IP over every route but the provider's webhooks (they
 *    come from a few provider addresses and are dropped after a few retries; they carry a secret).
 * 2. `AnonymousPerIp` / `AnonymousPagesPerIp`: a stricter per-IP rule over the anonymous routes,
 *    JSON routes answered with the JSON 429, page routes (the unsubscribe link) with the 429 page.
 * 3. `BodyTooLarge`: a declared Content-Length above the route's body limit, for the limits from
 *    256 KB up, refused with the 413 the route itself would give (before any function runs).
 * 4. `CommonRuleSet`: AWS's managed common rule set, with the rules in COUNTED_MANAGED_RULES
 *    counted; not over the provider's webhooks (an inbound email quoted in a webhook must arrive).
 *
 * Rate-limited requests answer 429 `{"error":"Rate limit exceeded"}` with a Retry-After of the
 * rule's window plus WAF's detection delay. Every rule has CloudWatch metrics and sampled requests.
 */
export class WebFirewall extends Construct {
  public readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: WebFirewallProps) {
    super(scope, id);
    const { routes, stageName, namePrefix, config } = props;
    const metric = (name: string) => `${namePrefix}-${name}`;
    const webhooks = pathPattern(routes.filter(isProviderWebhook).map((route) => route.path), stageName);
    const notWebhooks = not(pathMatches(webhooks));

    const perIpRetryAfter = String(wafRetryAfterSeconds(PER_IP_WINDOW_SECONDS));
    const anonymousRetryAfter = String(wafRetryAfterSeconds(ANONYMOUS_WINDOW_SECONDS));
    const rules: CfnWebACL.RuleProperty[] = [
      {
        name: 'PerIp',
        priority: 0,
        action: block(429, 'RateLimited', { 'Retry-After': perIpRetryAfter }),
        statement: {
          rateBasedStatement: {
            limit: config.wafIpLimitPer5Minutes,
            evaluationWindowSec: PER_IP_WINDOW_SECONDS,
            aggregateKeyType: 'IP',
            scopeDownStatement: notWebhooks,
          },
        },
        visibilityConfig: visibility(metric('PerIp')),
      },
    ];

    const anonymous = routes.filter(isAnonymous);
    const anonymousRule = (name: string, paths: string[], bodyKey: string) =>
      rules.push({
        name,
        priority: rules.length,
        action: block(429, bodyKey, { 'Retry-After': anonymousRetryAfter }),
        statement: {
          rateBasedStatement: {
            limit: config.wafAnonymousIpLimitPerMinute,
            evaluationWindowSec: ANONYMOUS_WINDOW_SECONDS,
            aggregateKeyType: 'IP',
            scopeDownStatement: pathMatches(pathPattern(paths, stageName)),
          },
        },
        visibilityConfig: visibility(metric(name)),
      });
    const pages = anonymous.filter((route) => route.produces === 'html').map((route) => route.path);
    const jsonRoutes = anonymous.filter((route) => route.produces !== 'html').map((route) => route.path);
    if (jsonRoutes.length > 0) anonymousRule('AnonymousPerIp', jsonRoutes, 'RateLimited');
    if (pages.length > 0) anonymousRule('AnonymousPagesPerIp', pages, 'RateLimitedPage');

    const tiers = bodyLimitTiers(routes).map(({ limit, largerPaths }) =>
      largerPaths.length === 0
        ? contentLengthOver(limit)
        : { andStatement: { statements: [contentLengthOver(limit), not(pathMatches(pathPattern(largerPaths, stageName)))] } },
    );
    rules.push({
      name: 'BodyTooLarge',
      priority: rules.length,
      action: block(413, 'TooLarge'),
      statement: tiers.length === 1 ? (tiers[0] as CfnWebACL.StatementProperty) : { orStatement: { statements: tiers } },
      visibilityConfig: visibility(metric('BodyTooLarge')),
    });

    rules.push({
      name: 'CommonRuleSet',
      priority: rules.length,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name: 'AWSManagedRulesCommonRuleSet',
          ruleActionOverrides: COUNTED_MANAGED_RULES.map((name) => ({ name, actionToUse: { count: {} } })),
          scopeDownStatement: notWebhooks,
        },
      },
      visibilityConfig: visibility(metric('CommonRuleSet')),
    });

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `${namePrefix}-api`,
      description: 'Rate limits per IP address, body limits and the AWS common rule set of the public API, see docs/operations.md',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(metric('WebAcl')),
      associationConfig: { requestBody: { API_GATEWAY: { defaultSizeInspectionLimit: BODY_INSPECTION_LIMIT } } },
      // The same bodies the gateway and the functions answer with.
      customResponseBodies: {
        RateLimited: { contentType: 'APPLICATION_JSON', content: JSON.stringify(GATEWAY_ANSWERS.rateLimited.body) },
        RateLimitedPage: { contentType: 'TEXT_HTML', content: tooManyPage(wafRetryAfterSeconds(ANONYMOUS_WINDOW_SECONDS)) },
        TooLarge: { contentType: 'APPLICATION_JSON', content: JSON.stringify(GATEWAY_ANSWERS.tooLarge.body) },
      },
      rules,
    });

    new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
