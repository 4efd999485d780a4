import * as v from 'valibot';

/**
 * How a route authenticates its caller.
 * - `none`: anonymous (health, signup, login, the provider's webhooks).
 * - `apiKey`: `X-API-Key` only; counted against the key's rate limit.
 * - `session`: a session token (cookie or Bearer) only.
 * - `apiKeyOrSession`: either; API-key calls are counted against the key's rate limit.
 */
export type AuthMode = 'none' | 'apiKey' | 'session' | 'apiKeyOrSession';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const API_PREFIX = '/api/v1';

/** Bodies above this are refused before parsing unless a route says otherwise (API Gateway allows 10 MB). */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

/** Schemas of what a route reads: path parameters, query string and JSON body. */
export interface RequestSchemas {
  readonly path?: v.GenericSchema;
  readonly query?: v.GenericSchema;
  readonly body?: v.GenericSchema;
}

/**
 * One route: everything the CDK stack, the authorizer, the local gateway, the handler's dispatch
 * and the OpenAPI document need to know about it. Registered once, in its group's file.
 */
export interface RouteDefinition<Group extends string = string, Request extends RequestSchemas = RequestSchemas> {
  readonly method: HttpMethod;
  /** API Gateway resource path, e.g. `/api/v1/api-keys/{id}/rotate` (no trailing slash). */
  readonly path: string;
  readonly group: Group;
  readonly auth: AuthMode;
  readonly summary: string;
  readonly request: Request;
  /** The body schema of each success status the route answers with. */
  readonly responses: Readonly<Record<number, v.GenericSchema>>;
  /** Error statuses the route answers with besides the ones every route may give (COMMON_ERRORS). */
  readonly errors: readonly number[];
  /** The largest body the handler accepts; DEFAULT_MAX_BODY_BYTES unless given. */
  readonly maxBodyBytes?: number;
  /**
   * `html`: the route answers HTML pages (a public page opened in a browser), success and its own
   * errors alike; its success schemas are `HtmlPage`. JSON unless given.
   */
  readonly produces?: 'json' | 'html';
  /**
   * `form`: the body is an HTML form post (`application/x-www-form-urlencoded`, or
   * `multipart/form-data`), read by the handler as text (`request.text()`); `body()` gives the
   * URL-encoded fields checked by the body schema. JSON unless given.
   */
  readonly consumes?: 'json' | 'form';
  /**
   * A JSON body whose text holds an unpaired UTF-16 surrogate (`"\ud800"`, no UTF-8 text):
   * `refuse` answers 400 (shared/http/unpaired-surrogates.ts), `replace` takes it with U+FFFD in
   * its place (the provider's webhooks, never refused for their text). `refuse` unless given.
   */
  readonly unpairedSurrogates?: 'refuse' | 'replace';
  /** Query parameters that may be repeated: their values reach the query schema joined by commas. */
  readonly listQuery?: readonly string[];
  /**
   * Whether a POST, with this parsed body, only asks a question (a search of the workspace): asked
   * again for less, it loses nothing, so an answer too large for Lambda is a 400 as for a GET
   * (shared/http/answer-size.ts). GET and HEAD always are.
   */
  readonly asksOnly?: (body: unknown) => boolean;
}

/** Error statuses any route may answer with: bad input or body, body too large, failure. */
export const COMMON_ERRORS: readonly number[] = [400, 413, 500, 503];

/** Every error body: `{error}` plus, where the spec says, `message`, `details` or `success: false`. */
export const ErrorBody = v.strictObject({
  error: v.string(),
  message: v.optional(v.string()),
  details: v.optional(v.string()),
  success: v.optional(v.literal(false)),
});

/**
 * A route of a group, written relative to `/api/v1`. `const` type parameters keep the literal
 * request schemas, so a handler's `body()`, `query()` and `path()` are typed from the route.
 */
export function defineRoute<const Group extends string, const Request extends RequestSchemas>(
  group: Group,
  route: Omit<RouteDefinition<Group, Request>, 'group' | 'path' | 'errors' | 'request'> & {
    path: string;
    request?: Request;
    errors?: readonly number[];
  },
): RouteDefinition<Group, Request> {
  return {
    ...route,
    group,
    path: `${API_PREFIX}${route.path}`,
    request: route.request ?? ({} as Request),
    errors: route.errors ?? [],
  };
}

/** The key a handler dispatches on: API Gateway's `${httpMethod} ${resource}`. */
export const routeKey = (method: string, path: string): string => `${method} ${path}`;

/**
 * Whether a usage plan applies: every route with credentials. API keys take the per-key plan,
 * sessions the sessions plan (docs/rate-limits.md). Session-only routes were not counted before
 * 2026-11-29, so the in-app connection status asked the provider live without any limit (review).
 */
export const isRateLimited = (auth: AuthMode): boolean => auth !== 'none';

/**
 * Every error status a route may answer with: the common ones, 401 where credentials are checked,
 * 429 where the per-key rate limit applies, and the route's own. The OpenAPI document lists these
 * and, in tests, any other error status fails the response check.
 */
export function documentedErrors(route: Pick<RouteDefinition, 'auth' | 'errors'>): number[] {
  const statuses = new Set([...COMMON_ERRORS, ...route.errors]);
  if (route.auth !== 'none') statuses.add(401);
  if (isRateLimited(route.auth)) statuses.add(429);
  return [...statuses].sort((a, b) => a - b);
}

// ---- Schemas many routes share ----

/**
 * A positive integer id in the path. Anything else cannot name a resource, so it is a 404 with the
 * route's own message (the handler's `path()` answers path issues with 404).
 */
export const idParam = (notFoundMessage: string) =>
  v.pipe(
    // Absent reads as empty, so even a path without the parameter gets the route's own 404.
    v.optional(v.string(notFoundMessage), ''),
    v.regex(/^[0-9]{1,16}$/, notFoundMessage),
    v.transform(Number),
    v.safeInteger(notFoundMessage),
    v.minValue(1, notFoundMessage),
  );

/**
 * A path id whose checking is left to the service: any text is accepted, and the handler gets the
 * id, or undefined when the text cannot be one. For routes that must answer 403 for a workspace
 * the caller is not linked to before any 404, whatever the rest of the path says.
 */
export const idOrNone = v.pipe(
  v.optional(v.string(), ''),
  v.transform((text): number | undefined => {
    const id = /^[0-9]{1,16}$/.test(text) ? Number(text) : 0;
    return Number.isSafeInteger(id) && id >= 1 ? id : undefined;
  }),
);

export const Success = v.strictObject({ success: v.literal(true) });

/** The success body of a route that produces HTML: a page. */
export const HtmlPage = v.pipe(v.string(), v.minLength(1), v.description('An HTML page'));

/** ISO 8601 timestamps as the service writes them. */
export const Timestamp = v.pipe(v.string(), v.isoTimestamp());
export const Id = v.pipe(v.number(), v.safeInteger(), v.minValue(1));
/** A count of things (totals, rows): an integer from 0. */
export const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
/** A row of an import as sent: 1 for the first. */
export const RowNumber = v.pipe(v.number(), v.integer(), v.minValue(1));
/** An HTTP status code a remote answered with. */
export const HttpStatus = v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(999));
/**
 * A query parameter read by its route from its text, documented in the OpenAPI document as what
 * that text stands for (`documented`, a JSON Schema: an integer, an enum, an array of repeated values).
 */
export const queryText = (documented: Record<string, unknown>, description: string) =>
  v.optional(v.pipe(v.string(), v.metadata(documented), v.description(description)));
/** Page numbers and sizes as answered: integers from 1. */
export const PageNumber = v.pipe(v.number(), v.integer(), v.minValue(1));

export { closed, unknownFieldOf } from '../../domain/validation';

