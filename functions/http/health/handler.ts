import { httpHandler } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';

/** Liveness only: no auth, no DynamoDB call, so it is cheap to poll. */
export const handler = httpHandler({
  'GET /api/v1/health': async () => json(200, { success: true, status: 'ok' }),
});
