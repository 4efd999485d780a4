import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { WebhookEnv, loopbackAllowed } from '../../../shared/config/integrations';
import { DynamoWebhookDeliveryRepository, DynamoWebhookSettingsRepository } from '../../../shared/db/webhook-repository';
import { createWebhookService } from '../../../shared/domain/webhooks/webhook-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { tableAccess } from '../../../shared/runtime/table';
import { createSecretBox } from '../../../shared/security/secret-box';
import { createDestinationPolicy } from '../../../shared/webhooks/destination';
import { createHttpSender } from '../../../shared/webhooks/http-sender';
import { standardWebhooksSigner } from '../../../shared/webhooks/signer';
import { userWebhookRoutes } from './routes';

const env = loadEnv(v.object({ ...BaseEnv.entries, ...WebhookEnv }));
const allowLoopback = loopbackAllowed(env);
const { db, tableName } = tableAccess(env);

const webhooks = createWebhookService({
  settings: new DynamoWebhookSettingsRepository(db, tableName, createSecretBox(env.WEBHOOK_SECRET_KEY)),
  deliveries: new DynamoWebhookDeliveryRepository(db, tableName),
  sender: createHttpSender({ allowLoopback }),
  signer: standardWebhooksSigner,
  policy: createDestinationPolicy({ allowLoopback }),
  clock: () => new Date(),
  newTestEventId: () => `evt_test_${randomBytes(12).toString('hex')}`,
  testTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
});

export const handler = httpHandler(userWebhookRoutes(webhooks));
