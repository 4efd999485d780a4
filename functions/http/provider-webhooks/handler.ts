import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { ProviderEnv, ProviderWebhookEnv } from '../../../shared/config/integrations';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createSenderAccountService } from '../../../shared/domain/sender-accounts/sender-account-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { UnipileProvider } from '../../../shared/providers/unipile-provider';
import { tableAccess } from '../../../shared/runtime/table';
import { createConnectStateSigner } from '../../../shared/security/connect-state';
import { providerWebhookRoutes } from './routes';

const env = loadEnv(v.object({ ...BaseEnv.entries, ...ProviderEnv, ...ProviderWebhookEnv }));
const { db, tableName, ids } = tableAccess(env);

const accounts = createSenderAccountService({
  accounts: new DynamoSenderAccountRepository(db, tableName),
  provider: new UnipileProvider({ baseUrl: env.PROVIDER_BASE_URL, accessToken: env.PROVIDER_ACCESS_TOKEN, timeoutMs: env.PROVIDER_TIMEOUT_MS }),
  ids,
  clock: () => new Date(),
  connectState: createConnectStateSigner(env.PROVIDER_WEBHOOK_SECRET),
  connectLinkTtlMs: 60 * 60 * 1000,
});

export const handler = httpHandler(
  providerWebhookRoutes({
    accounts,
    secret: env.PROVIDER_WEBHOOK_SECRET,
    log: (entry) => console.log(JSON.stringify({ level: 'INFO', ...entry })),
  }),
);
