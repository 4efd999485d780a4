import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { ProviderEnv, ProviderWebhookEnv } from '../../../shared/config/integrations';
import { httpHandler } from '../../../shared/http/http-handler';
import { senderAccountServiceFrom } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
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

export const handler = httpHandler(accountRoutes(senderAccountServiceFrom(env, tableAccess(env))));
