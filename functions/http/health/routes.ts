import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { healthRoutes } from '../../../shared/http/routes/health';

/** Liveness only: no auth, no DynamoDB call, so it is cheap to poll. */
export const healthHandlers = () =>
  ({
    health: async () => json(200, { success: true, status: 'ok' }),
  }) satisfies HandlersFor<typeof healthRoutes>;
