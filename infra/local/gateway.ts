import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ACCESS_DENIED, GATEWAY_ANSWERS, GATEWAY_HEADERS, type GatewayAnswer } from '../../shared/http/gateway-responses';
import { resultBytes } from '../../shared/http/answer-size';
import { header } from '../../shared/http/request';
import { type FunctionGroup, ROUTES, type RegisteredRoute, functionTimeoutSeconds, isRateLimited } from '../../shared/http/route-table';
import { type Clock, isMovableClock } from '../../shared/time/clock';
import type { AuthorizerHandler, ProxyHandler } from './functions';
import { lambdaContext } from './lambda-context';
import { LOCAL_CLOCK_ERRORS, LOCAL_CLOCK_PATH, clockTarget } from './local-clock';
import type { TokenBuckets } from './token-bucket';

export interface LocalGatewayOptions {
  handlers: Record<FunctionGroup, ProxyHandler>;
  authorizer: AuthorizerHandler;
  limiter: TokenBuckets;
  /**
   * Stamps `requestTimeEpoch` as the deployed gateway does, with the stack's clock. `/_local/clock`
   * reads it and, when it is movable, moves it.
   */
  clock: Clock;
  /**
   * Moves the clock to the time a `POST /_local/clock` asks for, playing out what comes due on the
   * way (the stack's `moveClock`, infra/local/local-stack.ts); awaited before the answer. Without it the clock is just set.
   */
  moveClock?: (to: Date) => Promise<void>;
  routes?: readonly RegisteredRoute[];
  /** The largest request body accepted: Lambda's 6 MB synchronous payload limit. */
  maxBodyBytes?: number;
  /**
   * How long a whole request may take to arrive (headers and body) before it is answered 408 and
   * its connection closed: 30 s (`REQUEST_TIMEOUT_MS`). Node's own default is 5 minutes, checked every
   * 30 s, so a body shorter than its Content-Length held a connection and its handler that long.
   */
  requestTimeoutMs?: number;
  log?: (line: string) => void;
  /** Elapsed time in ms (a function's deadline, an overrun); `performance.now` unless a test moves it. */
  monotonicNow?: () => number;
}

const STAGE = 'local';

interface CompiledRoute {
  route: RegisteredRoute;
  pattern: RegExp;
  params: string[];
}

function compile(route: RegisteredRoute): CompiledRoute {
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

/** Whether `a`'s path has a literal segment where `b`'s first has a `{param}` (API Gateway prefers it). */
function moreLiteral(a: CompiledRoute, b: CompiledRoute): boolean {
  const [left, right] = [a.route.path.split('/'), b.route.path.split('/')];
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const [aParam, bParam] = [left[i]?.startsWith('{'), right[i]?.startsWith('{')];
    if (aParam !== bParam) return !aParam;
  }
  return false;
}

/** A null-prototype record: request data names its keys, and `constructor` must not find Object's. */
const record = <T>(): Record<string, T> => Object.create(null);

/** A request not received in full within this long is answered 408 (API Gateway's integration limit is 29 s). */
export const REQUEST_TIMEOUT_MS = 30_000;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...GATEWAY_HEADERS, 'content-length': Buffer.byteLength(text), ...headers });
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

const answer = (res: ServerResponse, gatewayAnswer: GatewayAnswer, headers: Record<string, string> = {}) =>
  send(res, gatewayAnswer.status, gatewayAnswer.body, headers);

function flattenHeaders(req: IncomingMessage) {
  const headers = record<string>();
  const multiValueHeaders = record<string[]>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const value = req.rawHeaders[i + 1] as string;
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  return { headers, multiValueHeaders };
}

function queryParameters(url: URL) {
  const single = record<string>();
  const multi = record<string[]>();
  for (const [key, value] of url.searchParams) {
    single[key] = value;
    multi[key] = [...(multi[key] ?? []), value];
  }
  const any = Object.keys(single).length > 0;
  // API Gateway hands the maps over as plain JSON objects; the copies keep own keys only.
  return { single: any ? single : null, multi: any ? multi : null };
}

/** Decoded path parameters, or 'malformed' when a value's percent-encoding does not decode. */
function decodePathParameters(names: string[], values: string[]): Record<string, string> | 'malformed' {
  const decoded = record<string>();
  for (const [index, name] of names.entries()) {
    try {
      decoded[name] = decodeURIComponent(values[index] ?? '');
    } catch {
      return 'malformed';
    }
  }
  return decoded;
}

/** Lambda's limits on a synchronous invocation, as AWS enforces them: the event, and the function's result (100 bytes more). */
export const LAMBDA_EVENT_MAX_BYTES = 6_291_456;
export const LAMBDA_RESULT_LIMIT_BYTES = 6_291_556;

/**
 * A local stand-in for the deployed REST API: matches the route table, runs the same REQUEST
 * authorizer, enforces the per-key token bucket, builds API Gateway REST (v1) proxy events and
 * invokes the same handlers, answering with the same status codes and bodies.
 */
export function createLocalGateway(options: LocalGatewayOptions): Server {
  const routes = (options.routes ?? ROUTES).map(compile);
  const maxBodyBytes = options.maxBodyBytes ?? 6 * 1024 * 1024;

  /** The clock moves under way, in turn (a POST waits for the ones sent before it). */
  let clockMoves: Promise<unknown> = Promise.resolve();

  /** `GET /_local/clock` reads the clock; `POST` moves it forward through `moveClock`. No authentication: local only. */
  const localClock = async (req: IncomingMessage, res: ServerResponse, method: string) => {
    if (method === 'GET') return send(res, 200, { now: options.clock.now().toISOString() });
    if (method !== 'POST') return send(res, 405, { error: 'Use GET or POST' }, { allow: 'GET, POST' });
    const raw = await readBody(req, 64 * 1024);
    const { clock } = options;
    if (!isMovableClock(clock)) return send(res, 400, { error: LOCAL_CLOCK_ERRORS.notMovable });
    if (raw === 'too-large') return send(res, 400, { error: 'Request body too large' });
    let body: unknown;
    try {
      body = raw.length ? JSON.parse(raw.toString('utf8')) : {};
    } catch {
      return send(res, 400, { error: 'Request body must be valid JSON' });
    }
    // One move at a time, each from the clock as the one before left it: two `advance_hours: 1`
    // sent at once move it two hours (before 2026-11-28 they ran interleaved from the same start
    // and moved it one).
    const move = clockMoves.then(async () => {
      const target = clockTarget(body, clock.now());
      if ('error' in target) return send(res, 400, { error: target.error });
      options.log?.(`clock moving to ${target.to.toISOString()}`);
      try {
        if (options.moveClock) await options.moveClock(target.to);
        else clock.set(target.to);
      } catch (error) {
        // A job failed on the way: the clock still ends where it was asked to be.
        if (clock.now().getTime() < target.to.getTime()) clock.set(target.to);
        options.log?.(`after moving the clock: ${String(error)}`);
        return send(res, 500, { error: 'The clock moved, but running the jobs after it failed', details: String(error) });
      }
      return send(res, 200, { now: clock.now().toISOString() });
    });
    clockMoves = move.catch(() => undefined);
    return move;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    // API Gateway matches `/api-keys/` to the resource `/api-keys`.
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    if (path === LOCAL_CLOCK_PATH) return localClock(req, res, method);
    // API Gateway picks the resource first (a literal segment before a `{param}` one: `GET
    // /public/prospects/search` is the `search` resource, which has no GET), then the method.
    const resources = routes.filter((compiled) => compiled.pattern.test(path));
    const resource = resources.reduce<CompiledRoute | undefined>((best, compiled) => (!best || moreLiteral(compiled, best) ? compiled : best), undefined);
    const compiledRoute = resources.find((compiled) => compiled.route.path === resource?.route.path && compiled.route.method === method);
    const match = compiledRoute?.pattern.exec(path);
    if (!compiledRoute || !match) return answer(res, GATEWAY_ANSWERS.notFound);
    const matched = { compiled: compiledRoute, values: match.slice(1) };

    const rawBody = await readBody(req, maxBodyBytes);
    if (rawBody === 'too-large') return answer(res, GATEWAY_ANSWERS.tooLarge);

    const { route, params } = matched.compiled;
    const pathParameters = params.length ? decodePathParameters(params, matched.values) : null;
    if (pathParameters === 'malformed') return answer(res, GATEWAY_ANSWERS.malformedPath);
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
      requestTimeEpoch: options.clock.now().getTime(),
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: header(headers, 'user-agent') ?? null },
      authorizer: null as Record<string, unknown> | null,
    };

    if (route.auth !== 'none') {
      // The deployed ApiKeyAuthorizer names X-API-Key as its identity source: without it the
      // gateway answers 401 itself and never invokes the authorizer.
      if (route.auth === 'apiKey' && !header(headers, 'x-api-key')) {
        return answer(res, GATEWAY_ANSWERS.missingApiKey);
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
        return answer(res, GATEWAY_ANSWERS.internal);
      }
      const allowed = result.policyDocument.Statement.every((statement) => statement.Effect === 'Allow');
      if (!allowed) {
        // ACCESS_DENIED gateway response: 401 with the authorizer's error and message.
        return send(res, ACCESS_DENIED.status, ACCESS_DENIED.body(result.context));
      }
      if (isRateLimited(route.auth)) {
        if (!result.usageIdentifierKey) {
          return answer(res, GATEWAY_ANSWERS.missingApiKey);
        }
        const taken = options.limiter.take(result.usageIdentifierKey);
        if (!taken.allowed) {
          return answer(res, GATEWAY_ANSWERS.rateLimited, { 'retry-after': String(taken.retryAfterSeconds) });
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
    // Lambda takes at most 6 MiB of event: the body counts escaped as a JSON string, so a 4 MB
    // body heavy in quotes does not fit. Deployed, such a request never reaches the function.
    if (Buffer.byteLength(JSON.stringify(event), 'utf8') > LAMBDA_EVENT_MAX_BYTES) {
      options.log?.(`${method} ${route.path}: the event passes Lambda's ${LAMBDA_EVENT_MAX_BYTES} bytes`);
      return answer(res, GATEWAY_ANSWERS.tooLarge);
    }

    // Each call gets its function's deployed timeout as its remaining time, so code that plans by
    // it (lead rounds) plans as it would in AWS. Running past it is only reported, not cut short:
    // DynamoDB Local is slower than DynamoDB, so a local overrun is a warning, not a verdict.
    const timeoutMs = functionTimeoutSeconds(route.group) * 1000;
    const monotonicNow = options.monotonicNow ?? (() => performance.now());
    const startedAt = monotonicNow();
    let response: APIGatewayProxyResult;
    try {
      response = await options.handlers[route.group](event, lambdaContext(route.group, timeoutMs, monotonicNow));
    } catch (error) {
      options.log?.(`handler ${route.group} failed: ${String(error)}`);
      return answer(res, GATEWAY_ANSWERS.badGateway);
    }
    // What Lambda could not return reaches the caller as API Gateway's 502.
    const resultSize = resultBytes(response);
    if (resultSize > LAMBDA_RESULT_LIMIT_BYTES) {
      options.log?.(`${method} ${route.path}: a result of ${resultSize} bytes passes Lambda's ${LAMBDA_RESULT_LIMIT_BYTES}: deployed, API Gateway answers 502`);
      return answer(res, GATEWAY_ANSWERS.badGateway);
    }
    const tookMs = Math.round(monotonicNow() - startedAt);
    if (tookMs > timeoutMs) {
      options.log?.(`${method} ${route.path} took ${tookMs} ms, past the ${route.group} function's ${timeoutMs / 1000} s timeout: deployed, it would have been stopped (502)`);
    }
    const outHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(response.headers ?? {})) outHeaders[name] = String(value);
    for (const [name, values] of Object.entries(response.multiValueHeaders ?? {})) outHeaders[name] = values.map(String);
    const body = response.isBase64Encoded ? Buffer.from(response.body, 'base64') : Buffer.from(response.body ?? '', 'utf8');
    res.writeHead(response.statusCode, { ...outHeaders, 'content-length': body.length });
    res.end(body);
  };

  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = createServer({ requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(1_000, requestTimeout) }, (req, res) => {
    handle(req, res).catch((error) => {
      // The client's connection went away while its body was awaited (a 408 above, or it hung up): nobody to answer.
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' && req.destroyed) return;
      options.log?.(`gateway error: ${String(error)}`);
      if (!res.headersSent) answer(res, GATEWAY_ANSWERS.internal);
      else res.end();
    });
  });
  // A request Node cannot parse (headers over its 16 KB, a broken request line) or that does not
  // arrive in time is answered before any route (or while its body is awaited): in JSON too, as
  // every other error, where Node's own answer has no body.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason, body] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', { error: 'Request headers too large' }]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', { error: 'Request not received in time: the body was shorter than its Content-Length, or too slow' }]
          : [400, 'Bad Request', { error: 'Bad request' }];
    const text = JSON.stringify(body);
    const headers = Object.entries({ ...GATEWAY_HEADERS, 'content-length': Buffer.byteLength(text), connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(`HTTP/1.1 ${status} ${reason}\r\n${headers.join('')}\r\n${text}`);
  });
  return server;
}
