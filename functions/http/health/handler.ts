import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { healthRoutes } from '../../../shared/http/routes/health';
import { json } from '../../../shared/http/responses';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';

/** Liveness only: no auth, no DynamoDB call, so it is cheap to poll. */
export function buildHealthHandler(_config: GroupConfig<'health'>, deps: FunctionDeps) {
  return httpHandler(healthRoutes, { health: async () => json(200, { success: true, status: 'ok' }) }, {
    logger: loggerFor('health', deps),
    checkResponses: deps.checkResponses,
  });
}
