import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { healthRoutes } from '../../../shared/http/routes/health';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { healthHandlers } from './routes';

/** The health function: it reads no setting and touches nothing. */
export function buildHealthHandler(_config: GroupConfig<'health'>, deps: FunctionDeps) {
  return httpHandler(healthRoutes, healthHandlers(), { logger: loggerFor('health', deps), checkResponses: deps.checkResponses });
}
