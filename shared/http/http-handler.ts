import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as v from 'valibot';
import type { Caller } from '../domain/auth/authenticator';
import { DomainError, notFound } from '../domain/errors';
import type { Logger } from '../logging/logger';
import { requireCaller, requireSession } from './caller';
import { answerSizeGuard } from './answer-size';
import { errorMiddleware } from './error-middleware';
import { parseBody, parsePath, parseWith } from './request';
import { checkResponse } from './response-check';
import { DEFAULT_MAX_BODY_BYTES, type RouteDefinition, routeKey } from './routes/define';
import { UNPAIRED_SURROGATE_MESSAGE, holdsUnpairedSurrogate, maySpellSurrogates, replaceUnpairedSurrogates } from './unpaired-surrogates';

type Infer<Schema> = Schema extends v.GenericSchema ? v.InferOutput<Schema> : never;

/** What a route handler gets: the event, and its inputs parsed by the route's own schemas. */
export interface RouteRequest<Route extends RouteDefinition> {
  readonly event: APIGatewayProxyEvent;
  readonly context: Context;
  /** The caller the authorizer established (401 without one). */
  caller(): Caller;
  /** The caller, who must have come with a session (401 with an API key). */
  session(): Caller & { sessionId: string };
  /** The JSON body (a missing body is `{}`), checked by the route's body schema: 400 naming the first issue. */
  body(): Infer<Route['request']['body']>;
  /** The query string, checked by the route's query schema: 400 naming the first issue. */
  query(): Infer<Route['request']['query']>;
  /** The path parameters, checked by the route's path schema: a path that names nothing is a 404. */
  path(): Infer<Route['request']['path']>;
  /** The body as text (form routes read it so; base64 bodies decoded); '' without one. */
  text(): string;
  /**
   * Milliseconds left before the function times out (the context's remaining time), for work
   * that retries under contention to stop in time to answer (shared/domain/leads/lead-rounds.ts).
   */
  timeLeft(): number;
}

export type RouteHandler<Route extends RouteDefinition> = (request: RouteRequest<Route>) => Promise<APIGatewayProxyResult>;

/** A group's handler map: exactly one handler per route of the group, keyed by route name. */
export type HandlersFor<Routes extends Readonly<Record<string, RouteDefinition>>> = {
  readonly [Name in keyof Routes]: RouteHandler<Routes[Name]>;
};

export interface HttpHandlerDeps {
  logger: Logger;
  /**
   * Check every response against its route's schemas (the test stacks turn it on): a response
   * that breaks its contract becomes a 500 naming the mismatch, so a test sees it.
   */
  checkResponses?: boolean;
}

function requestFor(route: RouteDefinition, event: APIGatewayProxyEvent, context: Context): RouteRequest<RouteDefinition> {
  return {
    event,
    context,
    caller: () => requireCaller(event),
    session: () => requireSession(event),
    body: () => (route.consumes === 'form' ? parseWith(route.request.body, formFields(textOf(event))) : parseBody(route.request.body, event)) as never,
    query: () => parseWith(route.request.query, queryOf(route, event)) as never,
    path: () => parsePath(route.request.path, event.pathParameters) as never,
    text: () => textOf(event),
    timeLeft: () => context.getRemainingTimeInMillis(),
  };
}

/** The query string as one value per name (the last of a repeated one, or all joined by commas for a `listQuery` name). */
function queryOf(route: RouteDefinition, event: APIGatewayProxyEvent): Record<string, string | undefined> {
  const query: Record<string, string | undefined> = Object.assign(Object.create(null), event.queryStringParameters);
  for (const name of route.listQuery ?? []) {
    const values = event.multiValueQueryStringParameters?.[name];
    if (values && values.length > 1) query[name] = values.join(',');
  }
  return query;
}

function textOf(event: APIGatewayProxyEvent): string {
  if (typeof event.body !== 'string') return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** URL-encoded form fields as a null-prototype object (the last of a repeated name). */
const formFields = (text: string): Record<string, string> => Object.assign(Object.create(null), Object.fromEntries(new URLSearchParams(text)));

/**
 * The Lambda handler of an endpoint group, built from the group's registered routes and their
 * handlers: Powertools log context (request id, cold start, workspace), the one error mapping,
 * the route's body size limit, JSON body parsing (whatever the Content-Type says) and dispatch
 * on `${httpMethod} ${resource}`.
 */
export function httpHandler<Routes extends Readonly<Record<string, RouteDefinition>>>(
  routes: Routes,
  handlers: HandlersFor<Routes>,
  deps: HttpHandlerDeps,
) {
  const byKey = new Map<string, { route: RouteDefinition; handle: RouteHandler<RouteDefinition> }>();
  for (const [name, route] of Object.entries(routes)) {
    byKey.set(routeKey(route.method, route.path), { route, handle: handlers[name] as RouteHandler<RouteDefinition> });
  }
  const find = (event: APIGatewayProxyEvent) => byKey.get(routeKey(event.httpMethod, event.resource));

  const routeContext: middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> = {
    before: async ({ event }) => {
      const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
      deps.logger.appendKeys({
        request_id: event.requestContext?.requestId,
        route: routeKey(event.httpMethod, event.resource),
        ...(authorizer?.workspaceId === undefined ? {} : { workspace_id: Number(authorizer.workspaceId) }),
      });
      const found = find(event);
      if (!found) throw notFound('Not found');
      const body = event.body;
      if (typeof body !== 'string') return;
      const maxBytes = found.route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      const bytes = event.isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
      if (bytes > maxBytes) throw new DomainError('validation', `Request body too large: at most ${maxBytes} bytes`);
    },
  };

  const dispatch = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const found = find(event);
    if (!found) throw notFound('Not found');
    return found.handle(requestFor(found.route, event, context));
  };

  /**
   * A UTF-8 byte order mark before a JSON body is ignored, as RFC 8259 (8.1) lets a parser do:
   * some Windows tools write one, and JSON.parse refuses it.
   */
  const withoutByteOrderMark = (event: APIGatewayProxyEvent) => {
    const { body } = event;
    if (typeof body !== 'string') return;
    if (!event.isBase64Encoded) {
      if (body.charCodeAt(0) === 0xfeff) event.body = body.slice(1);
      return;
    }
    const bytes = Buffer.from(body, 'base64');
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) event.body = bytes.subarray(3).toString('base64');
  };

  // The option exists in the package's code but not yet in its type declarations.
  const jsonBody = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]);
  // JSON bodies are parsed before dispatch (whatever the Content-Type says); a form route reads its own.
  const bodyParser: middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> = {
    before: async (request) => {
      const route = find(request.event)?.route;
      if (route?.consumes === 'form') return;
      withoutByteOrderMark(request.event);
      const raw = request.event.body;
      await jsonBody.before?.(request as never);
      // Only a body that spells a surrogate is walked (a base64 one is, unread).
      if (typeof raw === 'string' && !request.event.isBase64Encoded && !maySpellSurrogates(raw)) return;
      const parsed: unknown = request.event.body;
      if (!holdsUnpairedSurrogate(parsed)) return;
      if (route?.unpairedSurrogates !== 'replace') throw new DomainError('validation', UNPAIRED_SURROGATE_MESSAGE);
      (request.event as { body: unknown }).body = replaceUnpairedSurrogates(parsed);
    },
  };

  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(injectLambdaContext(deps.logger, { resetKeys: true }))
    // middy runs `after`s in reverse, so this one sees the handler's answer as it would leave (only
    // the log context's runs later). Error answers skip every `after`: they are small.
    .use(answerSizeGuard(deps.logger, (event) => find(event)?.route.asksOnly?.(event.body) === true))
    .use(errorMiddleware(deps.logger))
    .use(routeContext)
    .use(bodyParser)
    .handler(dispatch);

  if (!deps.checkResponses) return chain;
  return async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const response = await chain(event, context);
    const found = find(event);
    return found ? checkResponse(found.route, response, deps.logger) : response;
  };
}
