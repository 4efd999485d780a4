import { randomBytes } from 'node:crypto';
import { createWebhookService } from '../../../shared/domain/webhooks/webhook-service';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { userWebhookRoutes } from '../../../shared/http/routes/user-webhook';
import { SqsDeliveryQueue, makeSqsClient } from '../../../shared/messaging/sqs';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { webhookAdaptersFrom } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
import { standardWebhooksSigner } from '../../../shared/webhooks/signer';
import { userWebhookHandlers } from './routes';

/** The user-webhook function: settings, signing secret, test send, delivery log and sending a failed event again. */
export function buildUserWebhookHandler(config: GroupConfig<'userWebhook'>, deps: FunctionDeps) {
  const webhooks = createWebhookService({
    ...webhookAdaptersFrom(config, tableAccess(config, deps)),
    queue: new SqsDeliveryQueue(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.webhooksQueueUrl),
    signer: standardWebhooksSigner,
    clock: deps.clock,
    newTestEventId: () => `evt_test_${randomBytes(12).toString('hex')}`,
    testTimeoutMs: config.webhookTimeoutMs,
  });
  return httpHandler(userWebhookRoutes, userWebhookHandlers(webhooks, deps.clock), {
    logger: loggerFor('user-webhook', deps),
    checkResponses: deps.checkResponses,
  });
}
