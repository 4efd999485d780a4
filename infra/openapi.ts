/**
 * The OpenAPI 3.1 document of the service, generated from the route registration: every route's
 * path, method, authentication, path/query/body schemas and responses. `npm run openapi` writes
 * it to docs/openapi.json; a test fails when that file is stale.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { NAMED_ROUTES, type RegisteredRoute } from '../shared/http/route-table';
import { ErrorBody, documentedErrors } from '../shared/http/routes/define';

export const OPENAPI_FILE = resolve(fileURLToPath(new URL('.', import.meta.url)), '../docs/openapi.json');

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  400: 'Bad input: the error names the first problem',
  401: 'Missing or invalid credentials',
  403: 'Not allowed for this caller',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Request body too large',
  429: 'Rate limit or quota exceeded (Retry-After says when to retry)',
  500: 'Internal error',
  502: 'An upstream provider failed or did not answer in time',
  503: 'The service is busy (its storage or key management throttled the request): send it again after Retry-After',
};

/**
 * JSON Schema of a valibot schema. Transformations (text to number, trimming) have no JSON Schema
 * form: the document describes what the caller sends (`input`) and what the service answers
 * (`output`), and leaves out only those steps.
 */
const jsonSchema = (schema: v.GenericSchema, typeMode: 'input' | 'output'): JsonSchema => {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode,
    errorMode: 'ignore',
    overrideSchema: ({ valibotSchema }) => {
      const guarded = guardedSchema(valibotSchema);
      return guarded ? jsonSchema(guarded, typeMode) : undefined;
    },
  });
  return rest;
};

/**
 * The schema a guard stands in front of: an optional `pipe(unknown(), check(is an object,
 * message), object)` is how a field answers its own text for an array where an object belongs
 * (valibot's object schemas accept arrays). Documented as that object, not as the `unknown` it
 * starts with. (The converter offers no override for a pipe itself, only for the optional around it.)
 */
function guardedSchema(schema: v.GenericSchema): v.GenericSchema | undefined {
  const wrapped = (schema as { wrapped?: v.GenericSchema }).wrapped;
  const pipe = (wrapped as { pipe?: readonly { kind: string }[] } | undefined)?.pipe;
  if (schema.type !== 'optional' || wrapped?.type !== 'unknown' || !pipe) return undefined;
  return pipe.slice(1).find((item): item is v.GenericSchema => item.kind === 'schema');
}

/** Query or path parameters from an object schema's entries. */
function parameters(schema: v.GenericSchema | undefined, location: 'path' | 'query') {
  if (!schema) return [];
  const converted = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(converted.properties ?? {}).map(([name, property]) => {
    // A path parameter is always present: the empty default that lets a missing one answer 404 is internal.
    const { default: _default, ...schemaOfPath } = property as Record<string, unknown>;
    // A default given as the text it arrives as ('50'), documented as the integer it stands for.
    const schemaOfQuery = property.type === 'integer' && typeof property.default === 'string' ? { ...property, default: Number(property.default) } : property;
    return {
      name,
      in: location,
      required: location === 'path' || (converted.required ?? []).includes(name),
      schema: location === 'path' ? schemaOfPath : schemaOfQuery,
    };
  });
}

/** Every 429 and 503 says when to try again. */
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds until the request may succeed.', schema: { type: 'integer', minimum: 1 } } };

const SECURITY: Record<RegisteredRoute['auth'], { [scheme: string]: string[] }[] | undefined> = {
  none: [],
  apiKey: [{ apiKey: [] }],
  session: [{ sessionBearer: [] }, { sessionCookie: [] }],
  apiKeyOrSession: [{ apiKey: [] }, { sessionBearer: [] }, { sessionCookie: [] }],
};

function operation(name: string, route: RegisteredRoute) {
  const responses: Record<string, unknown> = {};
  const page = route.produces === 'html';
  for (const [status, schema] of Object.entries(route.responses)) {
    responses[status] = {
      description: STATUS_TEXT[Number(status)] ?? 'Success',
      content: { [page ? 'text/html' : 'application/json']: { schema: jsonSchema(schema, 'output') } },
    };
  }
  const errorBody = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  for (const status of documentedErrors(route)) {
    // A page route answers its own errors with a page too (a failure the error mapping answers is JSON).
    const content = page ? { 'text/html': { schema: { type: 'string' } }, ...errorBody } : errorBody;
    responses[String(status)] = { description: STATUS_TEXT[status] ?? 'Error', ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}), content };
  }
  // A form route reads both encodings a browser or a mail client may post.
  const bodyTypes = route.consumes === 'form' ? ['application/x-www-form-urlencoded', 'multipart/form-data'] : ['application/json'];
  return {
    operationId: name,
    summary: route.summary,
    tags: [route.group],
    security: SECURITY[route.auth],
    parameters: [...parameters(route.request.path, 'path'), ...parameters(route.request.query, 'query')],
    ...(route.request.body
      ? { requestBody: { required: true, content: Object.fromEntries(bodyTypes.map((type) => [type, { schema: jsonSchema(route.request.body as v.GenericSchema, 'input') }])) } }
      : {}),
    responses,
  };
}

/** The whole document, deterministic: the same registration always gives the same bytes. */
export function buildOpenApiDocument(routes: readonly (readonly [string, RegisteredRoute])[] = NAMED_ROUTES) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [name, route] of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operation(name, route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Outreach Automation Service',
      version: '1.0.0',
      description:
        'Lead lists, enrichment, campaigns and webhooks for sales teams. Generated from the route registration (shared/http/routes/); ' +
        'paths are also served with a trailing slash.',
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start' }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        sessionBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
      },
      schemas: { Error: jsonSchema(ErrorBody, 'output') },
    },
    paths,
  };
}

export const renderOpenApi = (): string => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;

// `npm run openapi`
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_FILE, renderOpenApi());
  console.log(`Wrote ${OPENAPI_FILE}`);
}
