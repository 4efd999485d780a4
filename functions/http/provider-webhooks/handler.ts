import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { ProviderEnv, ProviderWebhookEnv } from '../../../shared/config/integrations';
import { httpHandler } from '../../../shared/http/http-handler';
import { senderAccountServiceFrom } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
import { providerWebhookRoutes } from './routes';

const env = loadEnv(v.object({ ...BaseEnv.entries, ...ProviderEnv, ...ProviderWebhookEnv }));

export const handler = httpHandler(
  providerWebhookRoutes({
    accounts: senderAccountServiceFrom(env, tableAccess(env)),
    secret: env.PROVIDER_WEBHOOK_SECRET,
    log: (entry) => console.log(JSON.stringify({ level: 'INFO', ...entry })),
  }),
);
