import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { ProviderEnv, ProviderWebhookEnv, WebhookQueueEnv } from '../../../shared/config/integrations';
import { httpHandler } from '../../../shared/http/http-handler';
import { senderAccountServiceFrom } from '../../../shared/runtime/integrations';
import { replyRouterFrom } from '../../../shared/runtime/replies';
import { tableAccess } from '../../../shared/runtime/table';
import { providerWebhookRoutes } from './routes';

const env = loadEnv(v.object({ ...BaseEnv.entries, ...ProviderEnv, ...ProviderWebhookEnv, ...WebhookQueueEnv }));
const table = tableAccess(env);

export const handler = httpHandler(
  providerWebhookRoutes({
    accounts: senderAccountServiceFrom(env, table),
    replies: replyRouterFrom(env, table),
    secret: env.PROVIDER_WEBHOOK_SECRET,
    log: (entry) => console.log(JSON.stringify({ level: 'INFO', ...entry })),
  }),
);
