import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ErrorLogger } from './error-middleware';
import { json } from './responses';

/**
 * Lambda's limit on a synchronous invocation's result: the function's return value as JSON, so the
 * body counts escaped once more as a string (`"` and `\` take two bytes). Over it, API Gateway
 * answers 502 and the caller learns nothing (the limit is 6,291,556 bytes; this keeps to 6 MiB).
 */
export const LAMBDA_RESULT_MAX_BYTES = 6 * 1024 * 1024;

/**
 * Below this many UTF-16 units a JSON body cannot reach the limit: in JSON text each takes at most 3
 * bytes in the result (its own escapes are already in it). An HTML page could take more, and none
 * comes near it.
 */
const SURELY_SMALL_BODY = Math.floor(LAMBDA_RESULT_MAX_BYTES / 3) - 64 * 1024;

export const resultBytes = (response: APIGatewayProxyResult): number => Buffer.byteLength(JSON.stringify(response), 'utf8');

export const ANSWER_TOO_LARGE = {
  error: 'Answer too large',
  message: 'The answer would be over 6 MB, more than the API can send at once; ask for less (a smaller page_size where the route takes one)',
};

/**
 * An answer Lambda could not return is replaced by one it can. A read (GET, HEAD, or a route
 * that `asksOnly`) gets
 * `400 Answer too large`: asking for less succeeds. A change has been made by then, so it gets a
 * logged 500, as API Gateway's 502 would be; the routes that could answer that much bound
 * their answers first (add-to-campaign: prospect-move-shapes.ts, MAX_ANSWER_VIEW_BYTES).
 */
export function answerSizeGuard(
  logger: ErrorLogger,
  asksOnly: (event: APIGatewayProxyEvent) => boolean = () => false,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    after: async (request) => {
      const response = request.response;
      if (!response || (response.body ?? '').length < SURELY_SMALL_BODY) return;
      const bytes = resultBytes(response);
      if (bytes <= LAMBDA_RESULT_MAX_BYTES) return;
      const method = request.event.httpMethod;
      if (method === 'GET' || method === 'HEAD' || asksOnly(request.event)) {
        request.response = json(400, ANSWER_TOO_LARGE);
        return;
      }
      logger.error('Answer over Lambda\'s result limit after a change was made', { bytes, route: `${method} ${request.event.resource}` });
      request.response = json(500, { error: 'Internal server error' });
    },
  };
}
