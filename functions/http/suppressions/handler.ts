import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { suppressionRoutes } from '../../../shared/http/routes/suppressions';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { suppressionsFrom } from '../../../shared/runtime/suppressions';
import { tableAccess } from '../../../shared/runtime/table';
import { suppressionHandlers } from './routes';

/** The workspace suppression list: list, add, delete. */
export function buildSuppressionsHandler(config: GroupConfig<'suppressions'>, deps: FunctionDeps) {
  return httpHandler(suppressionRoutes, suppressionHandlers(suppressionsFrom(tableAccess(config, deps), deps.clock)), {
    logger: loggerFor('suppressions', deps),
    checkResponses: deps.checkResponses,
  });
}
