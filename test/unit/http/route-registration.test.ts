import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { accountHandlers } from '../../../functions/http/accounts/routes';
import { apiKeyHandlers } from '../../../functions/http/api-keys/routes';
import { authHandlers } from '../../../functions/http/auth/routes';
import { campaignFlowHandlers } from '../../../functions/http/campaigns/flow-routes';
import { campaignHandlers } from '../../../functions/http/campaigns/routes';
import { campaignProspectHandlers } from '../../../functions/http/campaign-prospects/routes';
import { chatHandlers } from '../../../functions/http/chats/routes';
import { analyticsHandlers } from '../../../functions/http/analytics/routes';
import { connectionHandlers } from '../../../functions/http/connections/routes';
import { enrichmentHandlers } from '../../../functions/http/enrichment/routes';
import { healthHandlers } from '../../../functions/http/health/routes';
import { leadListHandlers } from '../../../functions/http/lead-lists/routes';
import { memberHandlers } from '../../../functions/http/members/routes';
import { prospectHandlers } from '../../../functions/http/prospects/routes';
import { prospectStatusHandlers } from '../../../functions/http/prospects/status-routes';
import { providerWebhookHandlers } from '../../../functions/http/provider-webhooks/routes';
import { suppressionHandlers } from '../../../functions/http/suppressions/routes';
import { unsubscribeHandlers } from '../../../functions/http/unsubscribe/routes';
import { userWebhookHandlers } from '../../../functions/http/user-webhook/routes';
import { OPENAPI_FILE, renderOpenApi } from '../../../infra/openapi';
import { httpHandler } from '../../../shared/http/http-handler';
import { FUNCTION_GROUPS, type FunctionGroup, ROUTES, routeKey } from '../../../shared/http/route-table';
import { HtmlPage, defineRoute } from '../../../shared/http/routes/define';
import { html, json } from '../../../shared/http/responses';
import { createLogger } from '../../../shared/logging/logger';

/** Each group's handler map, built with no dependencies: only its keys are looked at. */
const none = {} as never;
const HANDLER_MAPS: Record<FunctionGroup, object> = {
  health: healthHandlers(),
  auth: authHandlers(none),
  members: memberHandlers(none),
  apiKeys: apiKeyHandlers(none),
  accounts: accountHandlers(none, none),
  connections: connectionHandlers(none),
  userWebhook: userWebhookHandlers(none, none),
  providerWebhooks: providerWebhookHandlers(none),
  leadLists: leadListHandlers(none),
  prospects: { ...prospectHandlers(none), ...prospectStatusHandlers(none) },
  campaigns: { ...campaignHandlers(none), ...campaignFlowHandlers(none) },
  campaignProspects: campaignProspectHandlers(none),
  unsubscribe: unsubscribeHandlers(none),
  suppressions: suppressionHandlers(none),
  enrichment: enrichmentHandlers(none, none),
  chats: chatHandlers(none, none),
  analytics: analyticsHandlers(none),
};

const context = {} as Context;
const eventFor = (method: string, resource: string, extra: Partial<APIGatewayProxyEvent> = {}) =>
  ({ httpMethod: method, resource, path: resource, headers: {}, body: null, requestContext: { requestId: 'r1' }, ...extra }) as unknown as APIGatewayProxyEvent;

describe('the route registration', () => {
  it('gives every route exactly one handler and has no handler without a route', () => {
    for (const [group, definition] of Object.entries(FUNCTION_GROUPS) as [FunctionGroup, (typeof FUNCTION_GROUPS)[FunctionGroup]][]) {
      expect(Object.keys(HANDLER_MAPS[group]).sort(), group).toEqual(Object.keys(definition.routes).sort());
    }
  });

  it('registers each route under its own group, once per method and path', () => {
    for (const [group, definition] of Object.entries(FUNCTION_GROUPS)) {
      for (const route of Object.values(definition.routes)) expect(route.group, route.path).toBe(group);
    }
    const keys = ROUTES.map((route) => routeKey(route.method, route.path));
    expect(new Set(keys).size).toBe(keys.length);
    expect(ROUTES).toHaveLength(77);
  });

  it('never names one path level with two different parameters (API Gateway refuses that)', () => {
    const parameterAt = new Map<string, string>();
    for (const route of ROUTES) {
      const segments = route.path.split('/');
      segments.forEach((segment, index) => {
        const parameter = segment.match(/^\{(.+)\}$/)?.[1];
        if (!parameter) return;
        const parent = segments.slice(0, index).join('/');
        const seen = parameterAt.get(parent);
        expect(seen ?? parameter, `${route.path} at ${parent}`).toBe(parameter);
        parameterAt.set(parent, parameter);
      });
    }
    expect(parameterAt.get('/api/v1/api-keys')).toBe('id');
  });

  it('reaches every route of a group through its dispatch, and nothing else', async () => {
    const logger = createLogger({ service: 'test', sink: () => {} });
    for (const [group, definition] of Object.entries(FUNCTION_GROUPS) as [FunctionGroup, (typeof FUNCTION_GROUPS)[FunctionGroup]][]) {
      const reached: string[] = [];
      const spies = Object.fromEntries(
        Object.keys(definition.routes).map((name) => [
          name,
          async () => {
            reached.push(name);
            return json(200, {});
          },
        ]),
      );
      const handler = httpHandler(definition.routes, spies as never, { logger });
      for (const [name, route] of Object.entries(definition.routes)) {
        await handler(eventFor(route.method, route.path), context);
        expect(reached.at(-1), `${group}.${name}`).toBe(name);
      }
      const elsewhere = await handler(eventFor('GET', '/api/v1/not-a-route'), context);
      expect(elsewhere.statusCode, group).toBe(404);
      expect(JSON.parse(elsewhere.body)).toEqual({ error: 'Not found' });
    }
  });

  it('keeps docs/openapi.json in step with the registration (run `npm run openapi`)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApi());
  });
});

describe('route inputs and the response contract', () => {
  const probe = defineRoute('probe', {
    method: 'POST',
    path: '/probe/{id}',
    auth: 'apiKey',
    summary: 'probe',
    request: {
      path: v.object({ id: v.pipe(v.string(), v.regex(/^\d+$/, 'Probe not found'), v.transform(Number)) }),
      query: v.object({ mode: v.optional(v.picklist(['a', 'b'], 'mode must be a or b'), 'a') }),
      body: v.object({ name: v.pipe(v.string(), v.nonEmpty('name is required')) }),
    },
    responses: { 200: v.strictObject({ id: v.number(), name: v.string(), mode: v.string() }) },
    errors: [404],
    maxBodyBytes: 64,
  });
  const lines: string[] = [];
  const logger = createLogger({ service: 'probe', sink: (line) => lines.push(line) });
  let answer: (input: { id: number; name: string; mode: string }) => unknown = (input) => input;
  const handler = httpHandler(
    { probe },
    {
      probe: async (request) => {
        const { id } = request.path();
        const { mode } = request.query();
        const { name } = request.body();
        return json(200, answer({ id, name, mode }));
      },
    },
    { logger, checkResponses: true },
  );
  const call = async (id: string, body: string, query: Record<string, string> | null = null) => {
    const response = await handler(eventFor('POST', '/api/v1/probe/{id}', { pathParameters: { id }, body, queryStringParameters: query }), context);
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };

  it('parses path, query and body with the route schemas, in the order the handler asks', async () => {
    expect(await call('7', '{"name":"x"}', { mode: 'b' })).toEqual({ status: 200, body: { id: 7, name: 'x', mode: 'b' } });
    expect(await call('x', '{"name":""}')).toEqual({ status: 404, body: { error: 'Probe not found' } });
    expect(await call('7', '{"name":""}', { mode: 'c' })).toEqual({ status: 400, body: { error: 'mode must be a or b' } });
    expect(await call('7', '{"name":""}')).toEqual({ status: 400, body: { error: 'name is required' } });
    expect(await call('7', '{"name":')).toEqual({ status: 400, body: { error: 'Request body must be valid JSON' } });
  });

  it('ignores a UTF-8 byte order mark before a JSON body, base64-encoded or not', async () => {
    expect(await call('7', '\uFEFF{"name":"x"}')).toEqual({ status: 200, body: { id: 7, name: 'x', mode: 'a' } });
    const encoded = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"y"}')]).toString('base64');
    const response = await handler(eventFor('POST', '/api/v1/probe/{id}', { pathParameters: { id: '7' }, body: encoded, isBase64Encoded: true }), context);
    expect([response.statusCode, JSON.parse(response.body)]).toEqual([200, { id: 7, name: 'y', mode: 'a' }]);
  });

  it("applies the route's own body limit", async () => {
    expect(await call('7', JSON.stringify({ name: 'x'.repeat(60) }))).toEqual({
      status: 400,
      body: { error: 'Request body too large: at most 64 bytes' },
    });
  });

  it('treats request data named like Object.prototype members as plain names', async () => {
    expect(await call('7', '{"name":"x","constructor":1,"__proto__":{"a":1}}', { constructor: 'x', toString: 'y' })).toEqual({
      status: 200,
      body: { id: 7, name: 'x', mode: 'a' },
    });
  });

  it('turns a response that breaks the contract into a 500 naming the mismatch, and logs it', async () => {
    answer = (input) => ({ ...input, extra: true });
    lines.length = 0;
    expect(await call('7', '{"name":"x"}')).toEqual({
      status: 500,
      body: { error: 'Response does not match POST /api/v1/probe/{id}: status 200: extra: Invalid key: Expected never but received "extra"' },
    });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ level: 'ERROR', service: 'probe' });
    answer = (input) => ({ ...input, id: 'seven' });
    expect((await call('7', '{"name":"x"}')).body.error).toBe('Response does not match POST /api/v1/probe/{id}: status 200: id: Invalid type: Expected number but received "seven"');
    answer = (input) => input;
  });

  it('refuses error statuses the route does not document', async () => {
    const undocumented = httpHandler(
      { probe },
      { probe: async () => json(409, { error: 'Conflict' }) },
      { logger, checkResponses: true },
    );
    const response = await undocumented(eventFor('POST', '/api/v1/probe/{id}', { pathParameters: { id: '1' }, body: '{}' }), context);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ error: 'Response does not match POST /api/v1/probe/{id}: status 409 is not documented' });
  });
});

describe('pages and form posts', () => {
  const page = defineRoute('probe', {
    method: 'POST',
    path: '/page/{id}',
    auth: 'none',
    summary: 'a page',
    request: { body: v.object({ field: v.optional(v.literal('yes', 'field must be yes')) }) },
    responses: { 200: HtmlPage },
    produces: 'html',
    consumes: 'form',
    errors: [404],
  });
  const logger = createLogger({ service: 'probe', sink: () => {} });
  let answer: () => ReturnType<typeof html> = () => html(200, '<p>ok</p>');
  const seen: { text: string; body: unknown }[] = [];
  const handler = httpHandler(
    { page },
    {
      page: async (request) => {
        seen.push({ text: request.text(), body: { ...request.body() } });
        return answer();
      },
    },
    { logger, checkResponses: true },
  );
  const post = (body: string | null, extra: Partial<APIGatewayProxyEvent> = {}) => handler(eventFor('POST', '/api/v1/page/{id}', { body, ...extra }), context);

  it('hands a form route its body as text and its URL-encoded fields, never parsing JSON', async () => {
    seen.length = 0;
    const response = await post('field=yes&other=1');
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toBe('<p>ok</p>');
    await post(Buffer.from('field=yes').toString('base64'), { isBase64Encoded: true });
    await post(null);
    expect(seen).toEqual([
      { text: 'field=yes&other=1', body: { field: 'yes' } },
      { text: 'field=yes', body: { field: 'yes' } },
      { text: '', body: {} },
    ]);
    const refused = await post('field=no');
    expect([refused.statusCode, JSON.parse(refused.body)]).toEqual([400, { error: 'field must be yes' }]);
  });

  it('checks a page against its documented statuses, and refuses a page from a JSON route', async () => {
    answer = () => html(404, '<p>gone</p>');
    expect((await post('')).statusCode).toBe(404);
    answer = () => html(409, '<p>conflict</p>');
    const undocumented = await post('');
    expect([undocumented.statusCode, JSON.parse(undocumented.body)]).toEqual([500, { error: 'Response does not match POST /api/v1/page/{id}: status 409 is not documented' }]);
    answer = () => html(200, '');
    expect(JSON.parse((await post('')).body)).toEqual({ error: 'Response does not match POST /api/v1/page/{id}: status 200: an empty page' });
    answer = () => html(200, '<p>ok</p>');
    const jsonRoute = defineRoute('probe', { method: 'GET', path: '/j', auth: 'none', summary: 'j', responses: { 200: v.strictObject({}) } });
    const pageFromJson = httpHandler({ jsonRoute }, { jsonRoute: async () => html(200, '<p>x</p>') }, { logger, checkResponses: true });
    expect(JSON.parse((await pageFromJson(eventFor('GET', '/api/v1/j'), context)).body)).toEqual({
      error: 'Response does not match GET /api/v1/j: status 200: an HTML page from a JSON route',
    });
  });
});
