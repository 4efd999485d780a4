import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { DomainError, notFound } from '../domain/errors';
import { errorMiddleware } from './error-middleware';
import { routeKey } from './route-table';

export type RouteHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Routes of one endpoint group, keyed by `"METHOD /resource"` exactly as in the route table. */
export type RouteMap = Record<string, RouteHandler>;

/** Bodies above this are refused before parsing (API Gateway itself allows up to 10 MB). */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

export interface HttpHandlerOptions {
  maxBodyBytes?: number;
}

function bodyLimit(maxBytes: number): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: async (request) => {
      const body = request.event.body;
      if (typeof body !== 'string') return;
      const bytes = request.event.isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
      if (bytes > maxBytes) {
        throw new DomainError('validation', `Request body too large: at most ${maxBytes} bytes`);
      }
    },
  };
}

/**
 * The Lambda handler of an endpoint group: size check, JSON body parsing (whatever the
 * Content-Type says), dispatch on `${httpMethod} ${resource}`, and the one error mapping.
 */
export function httpHandler(routes: RouteMap, options: HttpHandlerOptions = {}) {
  const dispatch: RouteHandler = async (event, context) => {
    const route = routes[routeKey(event.httpMethod, event.resource)];
    if (!route) throw notFound('Not found');
    return route(event, context);
  };
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(errorMiddleware())
    .use(bodyLimit(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES))
    // Parse JSON whatever the Content-Type says (curl -d sends form encoding); the option exists
    // in the package's code but not yet in its type declarations.
    .use(httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]))
    .handler(dispatch);
}
