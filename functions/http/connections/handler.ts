import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { ProviderEnv } from '../../../shared/config/integrations';
import { DynamoProspectLookup } from '../../../shared/db/prospect-lookup';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createConnectionService } from '../../../shared/domain/connections/connection-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { UnipileProvider } from '../../../shared/providers/unipile-provider';
import { tableAccess } from '../../../shared/runtime/table';
import { connectionRoutes } from './routes';

const env = loadEnv(v.object({ ...BaseEnv.entries, ...ProviderEnv }));
const { db, tableName } = tableAccess(env);

const connections = createConnectionService({
  prospects: new DynamoProspectLookup(db, tableName),
  accounts: new DynamoSenderAccountRepository(db, tableName),
  provider: new UnipileProvider({ baseUrl: env.PROVIDER_BASE_URL, accessToken: env.PROVIDER_ACCESS_TOKEN, timeoutMs: env.PROVIDER_TIMEOUT_MS }),
});

export const handler = httpHandler(connectionRoutes(connections));
