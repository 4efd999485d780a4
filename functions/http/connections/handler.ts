import { DynamoProspectLookup } from '../../../shared/db/prospect-lookup';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createConnectionService } from '../../../shared/domain/connections/connection-service';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { connectionRoutes } from '../../../shared/http/routes/connections';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { providerFrom } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
import { connectionHandlers } from './routes';

/** The connections function: live first-degree checks through the provider. */
export function buildConnectionsHandler(config: GroupConfig<'connections'>, deps: FunctionDeps) {
  const { db, tableName } = tableAccess(config, deps);
  const connections = createConnectionService({
    prospects: new DynamoProspectLookup(db, tableName),
    accounts: new DynamoSenderAccountRepository(db, tableName),
    provider: providerFrom(config),
  });
  return httpHandler(connectionRoutes, connectionHandlers(connections), { logger: loggerFor('connections', deps), checkResponses: deps.checkResponses });
}
