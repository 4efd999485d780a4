import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { ProviderEnv } from '../../../shared/config/integrations';
import { DynamoProspectLookup } from '../../../shared/db/prospect-lookup';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createConnectionService } from '../../../shared/domain/connections/connection-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { providerFrom } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
import { connectionRoutes } from './routes';

const env = loadEnv(v.object({ ...BaseEnv.entries, ...ProviderEnv }));
const { db, tableName } = tableAccess(env);

const connections = createConnectionService({
  prospects: new DynamoProspectLookup(db, tableName),
  accounts: new DynamoSenderAccountRepository(db, tableName),
  provider: providerFrom(env),
});

export const handler = httpHandler(connectionRoutes(connections));
