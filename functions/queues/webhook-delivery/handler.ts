import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import type { SettingsOf } from '../../../shared/config/settings';
import type { DeliveryDecision } from '../../../shared/domain/webhooks/delivery';
import { type DeliveryService, createDeliveryService } from '../../../shared/domain/webhooks/delivery-service';
import { type DeliveryMessage, EVENT_ID_PATTERN } from '../../../shared/domain/webhooks/events';
import type { Logger } from '../../../shared/logging/logger';
import { delayRedelivery, makeSqsClient } from '../../../shared/messaging/sqs';
import type { WEBHOOK_DELIVERY } from '../../../shared/runtime/catalog';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { webhookAdaptersFrom } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
import { standardWebhooksSigner } from '../../../shared/webhooks/signer';

/** The queue message: one event for one user (see shared/domain/webhooks/events.ts). */
const DeliveryMessageSchema = v.object({
  event_id: v.pipe(v.string(), v.regex(EVENT_ID_PATTERN)),
  user_id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  type: v.picklist(['incoming_message', 'enrichment_completed']),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
  data: v.record(v.string(), v.unknown()),
  url: v.optional(v.pipe(v.string(), v.url())),
  workspace_id: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

/** undefined for a message that can never be processed (a poison message). */
export function parseMessage(body: string): DeliveryMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const result = v.safeParse(DeliveryMessageSchema, parsed);
  return result.success ? (result.output as unknown as DeliveryMessage) : undefined;
}

/** What to do with one record; unexpected errors (DynamoDB down, say) retry on the queue's own timeout. */
export async function decide(record: SQSRecord, service: DeliveryService, logger: Logger): Promise<DeliveryDecision | 'error'> {
  const message = parseMessage(record.body);
  if (!message) {
    logger.warn('Poison webhook message', { messageId: record.messageId });
    return { action: 'dead-letter' };
  }
  try {
    return await service.deliver(message, record.messageId);
  } catch (error) {
    logger.error('Webhook delivery failed unexpectedly', { messageId: record.messageId, eventId: message.event_id, error: String(error) });
    return 'error';
  }
}

/**
 * Consumer of the webhooks queue. Records are delivered in parallel; a record that must wait
 * (retry with backoff) or give up (dead-letter) stays in the queue as a batch item failure with
 * its visibility set to the wait (0 to give up at once: the redrive policy then moves it to the
 * dead-letter queue on its next receive, since it has used up its receives).
 */
export function buildWebhookDeliveryHandler(config: SettingsOf<typeof WEBHOOK_DELIVERY.settings>, deps: FunctionDeps) {
  const logger = loggerFor('webhook-delivery', deps);
  const sqs = makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion });
  const deliveries = createDeliveryService({
    ...webhookAdaptersFrom(config, tableAccess(config, deps)),
    signer: standardWebhooksSigner,
    clock: deps.clock,
    random: Math.random,
    attemptTimeoutMs: config.webhookTimeoutMs,
    // Longer than an attempt can take, so a duplicate message never sends while one is in flight.
    leaseMs: config.webhookTimeoutMs + 30_000,
    schedule: config.webhookRetrySchedule,
  });
  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    if (context) logger.addContext(context);
    const failures = await Promise.all(
      event.Records.map(async (record): Promise<SQSBatchItemFailure | undefined> => {
        const decision = await decide(record, deliveries, logger);
        if (decision !== 'error' && decision.action === 'ack') return undefined;
        if (decision !== 'error') {
          const seconds = decision.action === 'retry' ? decision.delaySeconds : 0;
          try {
            await delayRedelivery(sqs, config.webhooksQueueUrl, record.receiptHandle, seconds);
          } catch (error) {
            // The queue's own visibility timeout applies instead: a sooner retry, never a lost one.
            logger.warn('Could not set the retry delay', { messageId: record.messageId, error: String(error) });
          }
        }
        return { itemIdentifier: record.messageId };
      }),
    );
    return { batchItemFailures: failures.filter((failure): failure is SQSBatchItemFailure => failure !== undefined) };

  };
}
