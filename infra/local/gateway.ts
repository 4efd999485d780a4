import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { header } from '../../shared/http/request';
import { type FunctionGroup, ROUTES, type RouteDefinition, isRateLimited } from '../../shared/http/route-table';
import { lambdaContext } from './lambda-context';
import type { TokenBuckets } from './token-bucket';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export interface LocalGatewayOptions {
  handlers: Record<FunctionGroup, ProxyHandler>;
  authorizer: AuthorizerHandler;
  limiter: TokenBuckets;
  routes?: readonly RouteDefinition[];
  /** The largest request body accepted: Lambda's 6 MB synchronous payload limit. */
  maxBodyBytes?: number;
  log?: (line: string) => void;
}

const STAGE = 'local';

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  params: string[];
}

function compile(route: RouteDefinition): CompiledRoute {
  const params: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = segment.match(/^\{(.+)\}$/);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), params };
}

/** The same JSON bodies the deployed gateway responses give (see infra/constructs/public-api.ts). */
const GATEWAY_RESPONSES = {
  notFound: { status: 404, body: { error: 'Not found' } },
  unauthorized: { status: 401, body: { error: 'Missing API key', message: 'Provide X-API-Key header' } },
  tooLarge: { status: 413, body: { error: 'Request body too large' } },
  internal: { status: 500, body: { error: 'Internal server error' } },
  badGateway: { status: 502, body: { error: 'Internal server error' } },
} as const;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function flattenHeaders(req: IncomingMessage) {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const value = req.rawHeaders[i + 1] as string;
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  return { headers, multiValueHeaders };
}

function queryParameters(url: URL) {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) {
    single[key] = value;
    multi[key] = [...(multi[key] ?? []), value];
  }
  const any = Object.keys(single).length > 0;
  return { single: any ? single : null, multi: any ? multi : null };
}

/**
 * A local stand-in for the deployed REST API: matches the route table, runs the same REQUEST
 * authorizer, enforces the per-key token bucket, builds API Gateway REST (v1) proxy events and
 * invokes the same handlers, answering with the same status codes and bodies.
 */
export function createLocalGateway(options: LocalGatewayOptions): Server {
  const routes = (options.routes ?? ROUTES).map(compile);
  const maxBodyBytes = options.maxBodyBytes ?? 6 * 1024 * 1024;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    // API Gateway matches `/api-keys/` to the resource `/api-keys`.
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    let matched: { compiled: CompiledRoute; values: string[] } | undefined;
    for (const compiled of routes) {
      if (compiled.route.method !== method) continue;
      const match = compiled.pattern.exec(path);
      if (match) {
        matched = { compiled, values: match.slice(1) };
        break;
      }
    }
    if (!matched) return send(res, GATEWAY_RESPONSES.notFound.status, GATEWAY_RESPONSES.notFound.body);

    const rawBody = await readBody(req, maxBodyBytes);
    if (rawBody === 'too-large') return send(res, GATEWAY_RESPONSES.tooLarge.status, GATEWAY_RESPONSES.tooLarge.body);

    const { route, params } = matched.compiled;
    const pathParameters = params.length
      ? Object.fromEntries(params.map((name, i) => [name, decodeURIComponent(matched.values[i] ?? '')]))
      : null;
    const { headers, multiValueHeaders } = flattenHeaders(req);
    const query = queryParameters(url);
    const requestId = randomUUID();
    const requestContext = {
      accountId: '000000000000',
      apiId: 'local',
      stage: STAGE,
      requestId,
      resourceId: 'local',
      resourcePath: route.path,
      httpMethod: method,
      path: `/${STAGE}${path}`,
      protocol: 'HTTP/1.1',
      requestTimeEpoch: Date.now(),
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: header(headers, 'user-agent') ?? null },
      authorizer: null as Record<string, unknown> | null,
    };

    if (route.auth !== 'none') {
      // The deployed ApiKeyAuthorizer names X-API-Key as its identity source: without it the
      // gateway answers 401 itself and never invokes the authorizer.
      if (route.auth === 'apiKey' && !header(headers, 'x-api-key')) {
        return send(res, GATEWAY_RESPONSES.unauthorized.status, GATEWAY_RESPONSES.unauthorized.body);
      }
      let result: APIGatewayAuthorizerResult;
      try {
        result = await options.authorizer({
          type: 'REQUEST',
          methodArn: `arn:aws:execute-api:local:000000000000:local/${STAGE}/${method}${route.path}`,
          resource: route.path,
          path,
          httpMethod: method,
          headers,
          multiValueHeaders,
          pathParameters,
          queryStringParameters: query.single,
          multiValueQueryStringParameters: query.multi,
          stageVariables: null,
          requestContext: requestContext as unknown as APIGatewayRequestAuthorizerEvent['requestContext'],
        });
      } catch (error) {
        options.log?.(`authorizer failed: ${String(error)}`);
        return send(res, GATEWAY_RESPONSES.internal.status, GATEWAY_RESPONSES.internal.body);
      }
      const allowed = result.policyDocument.Statement.every((statement) => statement.Effect === 'Allow');
      if (!allowed) {
        // ACCESS_DENIED gateway response: 401 with the authorizer's error and message.
        return send(res, 401, { error: result.context?.error ?? 'Access denied', message: result.context?.message ?? '' });
      }
      if (isRateLimited(route.auth)) {
        if (!result.usageIdentifierKey) {
          return send(res, GATEWAY_RESPONSES.unauthorized.status, GATEWAY_RESPONSES.unauthorized.body);
        }
        const taken = options.limiter.take(result.usageIdentifierKey);
        if (!taken.allowed) {
          return send(res, 429, { error: 'Rate limit exceeded' }, { 'retry-after': String(taken.retryAfterSeconds) });
        }
      }
      // API Gateway hands authorizer context values to the integration as strings.
      requestContext.authorizer = {
        principalId: result.principalId,
        ...Object.fromEntries(Object.entries(result.context ?? {}).map(([key, value]) => [key, String(value)])),
      };
    }

    const event = {
      resource: route.path,
      path,
      httpMethod: method,
      headers,
      multiValueHeaders,
      queryStringParameters: query.single,
      multiValueQueryStringParameters: query.multi,
      pathParameters,
      stageVariables: null,
      requestContext,
      body: rawBody.length ? rawBody.toString('utf8') : null,
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEvent;

    let response: APIGatewayProxyResult;
    try {
      response = await options.handlers[route.group](event, lambdaContext(route.group));
    } catch (error) {
      options.log?.(`handler ${route.group} failed: ${String(error)}`);
      return send(res, GATEWAY_RESPONSES.badGateway.status, GATEWAY_RESPONSES.badGateway.body);
    }
    const outHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(response.headers ?? {})) outHeaders[name] = String(value);
    for (const [name, values] of Object.entries(response.multiValueHeaders ?? {})) outHeaders[name] = values.map(String);
    const body = response.isBase64Encoded ? Buffer.from(response.body, 'base64') : Buffer.from(response.body ?? '', 'utf8');
    res.writeHead(response.statusCode, { ...outHeaders, 'content-length': body.length });
    res.end(body);
  };

  return createServer((req, res) => {
    handle(req, res).catch((error) => {
      options.log?.(`gateway error: ${String(error)}`);
      if (!res.headersSent) send(res, 500, GATEWAY_RESPONSES.internal.body);
      else res.end();
    });
  });
}
