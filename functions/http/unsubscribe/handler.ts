import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { DynamoRequestLimiter } from '../../../shared/db/request-counters';
import { createUnsubscribes } from '../../../shared/domain/suppressions/unsubscribe-service';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { unsubscribeRoutes } from '../../../shared/http/routes/unsubscribe';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { logPullFailures } from '../../../shared/runtime/campaign-slots';
import { sequenceStopsFrom } from '../../../shared/runtime/sequence-stops';
import { suppressionsFrom } from '../../../shared/runtime/suppressions';
import { tableAccess } from '../../../shared/runtime/table';
import { createUnsubscribeTokens } from '../../../shared/security/unsubscribe-token';
import { unsubscribeHandlers } from './routes';

/** The public unsubscribe link: its confirmation page and the one-click POST. */
export function buildUnsubscribeHandler(config: GroupConfig<'unsubscribe'>, deps: FunctionDeps) {
  const logger = loggerFor('unsubscribe', deps);
  const table = tableAccess(config, deps);
  const unsubscribes = createUnsubscribes({
    tokens: createUnsubscribeTokens(config.unsubscribeSecret),
    suppressions: suppressionsFrom(table, deps.clock),
    stops: sequenceStopsFrom(table, deps.clock, config.maxLeadsPerList, { onPullFailed: logPullFailures(logger) }),
    leads: new DynamoLeadRepository(table.db, table.tableName, deps.clock),
  });
  const limiter = new DynamoRequestLimiter(table.db, table.tableName, { scope: 'unsubscribe', limit: config.unsubscribeRateLimitPerMinute, windowSeconds: 60 });
  return httpHandler(unsubscribeRoutes, unsubscribeHandlers({ unsubscribes, limiter, clock: deps.clock }), {
    logger,
    checkResponses: deps.checkResponses,
  });
}
