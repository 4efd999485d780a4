import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { ProviderEnv, ProviderWebhookEnv } from '../../../shared/config/integrations';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createSenderAccountService } from '../../../shared/domain/sender-accounts/sender-account-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { UnipileProvider } from '../../../shared/providers/unipile-provider';
import { tableAccess } from '../../../shared/runtime/table';
import { createConnectStateSigner } from '../../../shared/security/connect-state';
import { accountRoutes } from './routes';

const env = loadEnv(
  v.object({
    ...BaseEnv.entries,
    ...ProviderEnv,
    ...ProviderWebhookEnv,
    /** This API's public base URL; the hosted-connect page notifies us there. Unset: no notification. */
    PUBLIC_API_URL: v.optional(v.pipe(v.string(), v.url())),
  }),
);
const { db, tableName, ids } = tableAccess(env);

const accounts = createSenderAccountService({
  accounts: new DynamoSenderAccountRepository(db, tableName),
  provider: new UnipileProvider({ baseUrl: env.PROVIDER_BASE_URL, accessToken: env.PROVIDER_ACCESS_TOKEN, timeoutMs: env.PROVIDER_TIMEOUT_MS }),
  ids,
  clock: () => new Date(),
  connectState: createConnectStateSigner(env.PROVIDER_WEBHOOK_SECRET),
  connectNotifyUrl: env.PUBLIC_API_URL ? `${env.PUBLIC_API_URL.replace(/\/+$/, '')}/api/v1/webhooks/provider/hosted-auth` : undefined,
  connectLinkTtlMs: 60 * 60 * 1000,
});

export const handler = httpHandler(accountRoutes(accounts));
