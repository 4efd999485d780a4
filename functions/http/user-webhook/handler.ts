import { systemClock } from '../../../shared/time/clock';
import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { WebhookEnv } from '../../../shared/config/integrations';
import { createWebhookService } from '../../../shared/domain/webhooks/webhook-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { webhookAdaptersFrom } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
import { standardWebhooksSigner } from '../../../shared/webhooks/signer';
import { userWebhookRoutes } from './routes';

const env = loadEnv(v.object({ ...BaseEnv.entries, ...WebhookEnv }));

const webhooks = createWebhookService({
  ...webhookAdaptersFrom(env, tableAccess(env)),
  signer: standardWebhooksSigner,
  clock: systemClock,
  newTestEventId: () => `evt_test_${randomBytes(12).toString('hex')}`,
  testTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
});

export const handler = httpHandler(userWebhookRoutes(webhooks));
