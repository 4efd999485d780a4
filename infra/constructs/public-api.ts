import { ArnFormat, Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKey,
  ApiKeySourceType,
  AuthorizationType,
  type CfnAuthorizer,
  EndpointType,
  IdentitySource,
  Integration,
  IntegrationType,
  type IResource,
  LogGroupLogDestination,
  type Method,
  type MethodDeploymentOptions,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type AuthMode, type FunctionGroup, type RegisteredRoute, isRateLimited } from '../../shared/http/route-table';
import { ACCESS_DENIED, DEFAULT_4XX_TEMPLATE, GATEWAY_ANSWERS, GATEWAY_HEADERS, type GatewayAnswer } from '../../shared/http/gateway-responses';
import { isAnonymous } from './edge-routes';
import { ACCESS_LOG_FIELDS, type Throttle, retryAfterSeconds, sessionUsageKeyValues } from './gateway-settings';
import type { ServiceFunction } from './service-function';

/** Construct ids of the gateway responses, kept as they were first deployed. */
const RESPONSE_IDS: Record<string, string> = {
  UNAUTHORIZED: 'Unauthorized',
  INVALID_API_KEY: 'InvalidApiKey',
  THROTTLED: 'Throttled',
  QUOTA_EXCEEDED: 'QuotaExceeded',
  MISSING_AUTHENTICATION_TOKEN: 'MissingAuthenticationToken',
  REQUEST_TOO_LARGE: 'RequestTooLarge',
  WAF_FILTERED: 'WafFiltered',
  DEFAULT_5XX: 'Default5xx',
};

export interface PublicApiProps {
  /** The route table (normally `ROUTES`): every route becomes one method. */
  routes: readonly RegisteredRoute[];
  /** One function per endpoint group. Each needs a fixed name (see `integrationFor`). */
  handlers: Readonly<Record<FunctionGroup, ServiceFunction>>;
  /** The REQUEST authorizer function behind both authorizers. */
  authorizerHandler: IFunction;
  stageName: string;
  /** Per-API-key limit of the usage plan, in requests per minute (its rate is this / 60 per second). */
  rateLimitPerMinute: number;
  /** The per-key usage plan's burst: requests one key may make at once. */
  rateLimitBurst: number;
  /** The stage's default throttle of each method, all callers together. */
  stageThrottle: Throttle;
  /** The anonymous routes' method throttle (signup, login, the unsubscribe link), all callers together. */
  anonymousThrottle: Throttle;
  sessionUsageKeyCount: number;
  sessionRateLimitPerSecond: number;
  sessionBurstLimit: number;
  /** Seeds the session usage-key values; the stack name, so two stacks never share values. */
  usageKeySeed: string;
  tracing?: boolean;
  /** The API's name (the `ApiName` dimension of its metrics): the stack name, so two stacks never share metrics. */
  restApiName?: string;
  /** Retention of the access and execution log groups. Default one month. */
  logRetention?: RetentionDays;
}

/** Gateway-response header values are mapping expressions: a literal must be single-quoted. */
const literal = (value: string): string => `'${value}'`;

const GATEWAY_RESPONSE_HEADERS = Object.fromEntries(Object.entries(GATEWAY_HEADERS).map(([name, value]) => [name, literal(value)]));

/**
 * Method settings of the anonymous routes: the stage's defaults with their stricter throttle.
 * A method's setting replaces the stage-wide one, so it repeats the defaults (metrics) too.
 */
function anonymousMethodOptions(
  routes: readonly RegisteredRoute[],
  defaults: MethodDeploymentOptions,
  throttle: Throttle,
): Record<string, MethodDeploymentOptions> {
  return Object.fromEntries(
    routes
      .filter(isAnonymous)
      .map((route) => [`${route.path}/${route.method}`, { ...defaults, throttlingRateLimit: throttle.rateLimit, throttlingBurstLimit: throttle.burstLimit }]),
  );
}

/**
 * The public REST API, built from the route table.
 *
 * - Every route is one method; `{id}` segments become path-parameter resources. Each endpoint
 *   group has one Lambda proxy integration shared by its methods.
 * - Authentication is a Lambda REQUEST authorizer (one function, two authorizer resources):
 *   `ApiKeyAuthorizer` (identity source `X-API-Key`, so API Gateway itself answers 401 when the
 *   header is missing) for `apiKey` routes, and `CallerAuthorizer` (no identity source, so it is
 *   always invoked and finds the API key, Bearer token or session cookie itself) for `session` and
 *   `apiKeyOrSession` routes. Both have caching off: rotating or revoking a key takes effect on
 *   the next request. An authorizer no method uses cannot be deployed, so each is created on first use.
 * - Rate limiting: the key source is AUTHORIZER. For API-key callers the authorizer returns the
 *   key's own gateway key (in the per-key usage plan); for session callers one key of the
 *   session pool (in the sessions usage plan). Methods that accept an API key require one.
 * - Gateway responses give every error API Gateway itself produces the service's JSON shape.
 * - Logs: a JSON access log line per request (ACCESS_LOG_FIELDS) and execution logs of errors only,
 *   both in log groups with a retention period, written through the account's API Gateway
 *   CloudWatch role, which the API sets (`cloudWatchRole`).
 */
export class PublicApi extends Construct {
  public readonly api: RestApi;
  /** The per-key plan every customer API key joins (USAGE_PLAN_ID of the api-keys function). */
  public readonly usagePlan: UsagePlan;
  /** The plan of the session pool's keys. */
  public readonly sessionsUsagePlan: UsagePlan;
  /** The session pool's usage-key values (SESSION_USAGE_KEYS of the authorizer). */
  public readonly sessionUsageKeys: readonly string[];
  /** The stage's access log (ACCESS_LOG_FIELDS, one JSON line per request). */
  public readonly accessLogGroup: LogGroup;
  /** The stage's execution log (errors only), created here so it has a retention period. */
  public readonly executionLogGroup: LogGroup;
  /** One method per route of the table, in its order (rule-pack acknowledgements name them). */
  public readonly methods: { route: RegisteredRoute; method: Method }[] = [];
  private readonly authorizers = new Map<'ApiKeyAuthorizer' | 'CallerAuthorizer', RequestAuthorizer>();
  private readonly props: PublicApiProps;

  constructor(scope: Construct, id: string, props: PublicApiProps) {
    super(scope, id);
    this.props = props;
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;

    // Every method's defaults: metrics, and the stage's throttle (each method has a bucket of its own).
    const methodDefaults: MethodDeploymentOptions = {
      metricsEnabled: true,
      throttlingRateLimit: props.stageThrottle.rateLimit,
      throttlingBurstLimit: props.stageThrottle.burstLimit,
      // Execution logs for errors only; never request or response bodies (API keys, tokens).
      // Here, not on the stage alone: a method's settings replace the stage-wide ones.
      loggingLevel: MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
    };

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention,
      // Logs are diagnostics, not data: they go with the stack.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new RestApi(this, 'Api', {
      ...(props.restApiName ? { restApiName: props.restApiName } : {}),
      description: 'Outreach automation HTTP API',
      endpointTypes: [EndpointType.REGIONAL],
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // API Gateway writes logs through one role per account and region (the account's
      // CloudWatch role setting, AWS::ApiGateway::Account). The stack sets it, and keeps it when it
      // is deleted: other APIs of the account may log through it (docs/infrastructure.md).
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stageName,
        tracingEnabled: props.tracing ?? false,
        ...methodDefaults,
        methodOptions: anonymousMethodOptions(props.routes, methodDefaults, props.anonymousThrottle),
        accessLogDestination: new LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    // API Gateway creates its execution log group on the first error, without a retention period;
    // creating it first (before the stage turns logging on) gives it one.
    this.executionLogGroup = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api.deploymentStage.node.addDependency(this.executionLogGroup);

    this.addRoutes();
    this.usagePlan = this.addPerKeyUsagePlan();
    const sessions = this.addSessionsUsagePlan();
    this.sessionsUsagePlan = sessions.plan;
    this.sessionUsageKeys = sessions.values;
    this.addGatewayResponses();
  }

  /** Lets a function issue and retire customer gateway keys in the per-key plan, and nothing else. */
  grantUsageKeyManagement(fn: ServiceFunction): void {
    const apiGateway = `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::`;
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['apigateway:POST'],
        // CreateApiKey, then CreateUsagePlanKey on this plan only.
        resources: [`${apiGateway}/apikeys`, `${apiGateway}/usageplans/${this.usagePlan.usagePlanId}/keys`],
      }),
    );
    this.grantUsageKeyRetirement(fn);
  }

  /** Lets a function delete customer gateway keys (revoking API keys), and nothing else. */
  grantUsageKeyRetirement(fn: ServiceFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['apigateway:DELETE'],
        // DeleteApiKey: ids are generated by API Gateway, so the resource cannot be narrower.
        resources: [`arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::/apikeys/*`],
      }),
    );
  }

  private addRoutes(): void {
    const integrations = new Map<FunctionGroup, Integration>();
    for (const route of this.props.routes) {
      let integration = integrations.get(route.group);
      if (!integration) {
        integration = this.integrationFor(route.group);
        integrations.set(route.group, integration);
      }
      const authorizer = this.authorizerFor(route.auth);
      const method = this.resourceFor(route.path).addMethod(route.method, integration, {
        authorizer,
        authorizationType: authorizer ? AuthorizationType.CUSTOM : AuthorizationType.NONE,
        apiKeyRequired: isRateLimited(route.auth),
      });
      this.methods.push({ route, method });
    }
  }

  /** The resource for a path, creating the missing segments (`{id}` becomes a path parameter). */
  private resourceFor(path: string): IResource {
    return path
      .split('/')
      .filter(Boolean)
      .reduce<IResource>((parent, segment) => parent.getResource(segment) ?? parent.addResource(segment), this.api.root);
  }

  /**
   * A Lambda proxy integration addressing the function by its fixed name instead of a reference
   * to the function resource. A reference would make every method (and so the deployment, the
   * stage and the usage plans) depend on the function, while the api-keys function needs the
   * usage plan's id in its environment: a dependency cycle CloudFormation rejects.
   */
  private integrationFor(group: FunctionGroup): Integration {
    const handler = this.props.handlers[group];
    if (!handler.fixedFunctionName) throw new Error(`The ${group} function needs a fixed functionName to be routed`);
    const stack = Stack.of(this);
    const functionArn = stack.formatArn({
      service: 'lambda',
      resource: 'function',
      resourceName: handler.fixedFunctionName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    // One permission per function for the whole API (every method and stage, and test invokes).
    handler.addPermission('ApiGatewayInvoke', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: this.api.arnForExecuteApi(),
    });
    return new Integration({
      type: IntegrationType.AWS_PROXY,
      integrationHttpMethod: 'POST',
      uri: `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}:lambda:path/2015-03-31/functions/${functionArn}/invocations`,
    });
  }

  private authorizerFor(auth: AuthMode): RequestAuthorizer | undefined {
    if (auth === 'none') return undefined;
    const name = auth === 'apiKey' ? 'ApiKeyAuthorizer' : 'CallerAuthorizer';
    let authorizer = this.authorizers.get(name);
    if (!authorizer) {
      authorizer = new RequestAuthorizer(this, name, {
        authorizerName: name,
        handler: this.props.authorizerHandler,
        // API-key-only routes: API Gateway answers 401 (UNAUTHORIZED) itself when X-API-Key is
        // missing. Others: no identity source, so the authorizer always runs and looks for an
        // API key, a Bearer token or the session cookie (allowed only with caching off).
        identitySources: name === 'ApiKeyAuthorizer' ? [IdentitySource.header('X-API-Key')] : [],
        // No caching: a rotated or revoked key, or a logged-out session, stops working at once.
        resultsCacheTtl: Duration.seconds(0),
      });
      if (name === 'CallerAuthorizer') {
        // CDK writes `IdentitySource: ""` for an empty list; CloudFormation documents the property
        // as optional when caching is off, so leave it out instead of sending an empty string.
        (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');
      }
      this.authorizers.set(name, authorizer);
    }
    return authorizer;
  }

  private addPerKeyUsagePlan(): UsagePlan {
    const { rateLimitPerMinute, rateLimitBurst } = this.props;
    return this.api.addUsagePlan('PerKeyUsagePlan', {
      name: `${this.props.usageKeySeed}-per-key`,
      description: `Every customer API key: ${rateLimitPerMinute} requests per minute, ${rateLimitBurst} at once (best-effort, enforced by API Gateway)`,
      // API Gateway throttles per second with a token bucket: the steady rate is the per-minute
      // limit spread over the minute. A bucket lets burst + 60 x rate through in any 60 s, so the
      // burst is small (10: at most 60 in a minute) rather than a minute's worth (100).
      throttle: { rateLimit: rateLimitPerMinute / 60, burstLimit: rateLimitBurst },
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });
  }

  private addSessionsUsagePlan(): { plan: UsagePlan; values: string[] } {
    const { sessionUsageKeyCount, sessionRateLimitPerSecond, sessionBurstLimit } = this.props;
    const plan = this.api.addUsagePlan('SessionsUsagePlan', {
      name: `${this.props.usageKeySeed}-sessions`,
      description: 'Session (dashboard) callers, spread over a pool of shared usage keys',
      throttle: { rateLimit: sessionRateLimitPerSecond, burstLimit: sessionBurstLimit },
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });
    const values = sessionUsageKeyValues(this.props.usageKeySeed, sessionUsageKeyCount);
    values.forEach((value, index) => {
      // A usage identifier, not a credential: see sessionUsageKeyValues.
      const key = new ApiKey(this, `SessionUsageKey${index}`, {
        value,
        description: 'Session pool usage identifier (returned by the authorizer; not a credential)',
      });
      plan.addApiKey(key);
    });
    return { plan, values };
  }

  private addGatewayResponses(): void {
    const respond = (id: string, type: ResponseType, body: string, statusCode?: string, headers: Record<string, string> = {}) =>
      this.api.addGatewayResponse(id, {
        type,
        statusCode,
        responseHeaders: { ...GATEWAY_RESPONSE_HEADERS, ...headers },
        templates: { 'application/json': body },
      });

    // Bodies written once in shared/http/gateway-responses.ts; the local gateway gives the same.
    const { rateLimitPerMinute, sessionRateLimitPerSecond, stageThrottle, anonymousThrottle } = this.props;
    const gatewayRetryAfter = retryAfterSeconds(rateLimitPerMinute, [sessionRateLimitPerSecond, stageThrottle.rateLimit, anonymousThrottle.rateLimit]);
    const retryAfter = { 'Retry-After': literal(String(gatewayRetryAfter)) };
    for (const gatewayAnswer of Object.values(GATEWAY_ANSWERS) as GatewayAnswer[]) {
      const status = gatewayAnswer.keepsGatewayStatus ? undefined : String(gatewayAnswer.status);
      const headers = gatewayAnswer.status === 429 ? retryAfter : {};
      for (const type of gatewayAnswer.types) {
        respond(RESPONSE_IDS[type] ?? type, ResponseType.of(type), JSON.stringify(gatewayAnswer.body), status, headers);
      }
    }
    // The authorizer's Deny carries the error and message it wants the caller to see.
    respond('AccessDenied', ResponseType.ACCESS_DENIED, ACCESS_DENIED.template, String(ACCESS_DENIED.status));
    respond('Default4xx', ResponseType.DEFAULT_4XX, DEFAULT_4XX_TEMPLATE);
  }
}
