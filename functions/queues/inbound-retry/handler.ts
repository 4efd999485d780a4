import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { SettingsOf } from '../../../shared/config/settings';
import { isPlainObject } from '../../../shared/domain/validation';
import type { INBOUND_RETRY } from '../../../shared/runtime/catalog';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';
import { providerEventsFrom } from '../../http/provider-webhooks/handler';

/** The event as the provider posted it; undefined for a body that can never be handled (a poison message). */
function parseEvent(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Consumer of the inbound-retry queue: runs again a provider event whose handling failed in the
 * webhook's function (docs/integrations.md, "When handling an event fails"). An event that fails
 * again stays in the queue (a batch item failure) and comes back after the visibility timeout,
 * until the dead-letter queue takes it. Handling an event again changes nothing twice: every step
 * is keyed by the provider's ids.
 */
export function buildInboundRetryHandler(config: SettingsOf<typeof INBOUND_RETRY.settings>, deps: FunctionDeps) {
  const logger = loggerFor('inbound-retry', deps);
  const events = providerEventsFrom(config, tableAccess(config, deps), deps.clock, logger);
  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    if (context) logger.addContext(context);
    const failures: SQSBatchItemFailure[] = [];
    for (const record of event.Records) {
      const body = parseEvent(record.body);
      if (!body) {
        // Only the webhook's function writes here, from a parsed body: this cannot be one of ours.
        logger.warn('Poison inbound-retry message dropped', { messageId: record.messageId });
        continue;
      }
      try {
        const answer = await events(body);
        logger.info('Provider event handled on retry', { messageId: record.messageId, handled: answer.handled, receives: record.attributes.ApproximateReceiveCount });
      } catch (error) {
        logger.error('Provider event failed again; it will be retried', { messageId: record.messageId, error: String(error) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
