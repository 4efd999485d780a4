import { DynamoWorkspaceMembers } from '../../../shared/db/workspace-members';
import { type EventPublisher, createEventPublisher } from '../../../shared/domain/webhooks/event-publisher';
import { SqsDeliveryQueue } from '../../../shared/messaging/sqs';
import { systemClock } from '../../../shared/time/clock';
import { type Receiver, startReceiver } from '../../support/receiver';
import { type TestStack, startTestStack } from '../../support/test-stack';

/** A received request's headers as `standardwebhooks`' verify takes them. */
export const headersOf = (request: { headers: Record<string, string | string[] | undefined> }) =>
  Object.fromEntries(Object.entries(request.headers).map(([key, value]) => [key, String(value)]));

export interface DeliveryWorld {
  stack: TestStack;
  receiver: Receiver;
  /** Publishes events onto the webhooks queue, as the provider-webhooks function does. */
  publisher: EventPublisher;
}

/**
 * The webhooks queue and its worker, driven by hand (the poller runs one batch per call), with a
 * retry schedule of 0 s, 0 s (three attempts, each right after the last), a receiver to deliver
 * to, and a publisher of events.
 */
export async function startDeliveryWorld(): Promise<DeliveryWorld> {
  const stack = await startTestStack({ rateLimitPerMinute: 100_000, settings: { webhookRetrySchedule: [0, 0], webhookTimeoutMs: 700 } });
  const receiver = await startReceiver();
  const publisher = createEventPublisher({
    members: new DynamoWorkspaceMembers(stack.db, stack.tableName),
    queue: new SqsDeliveryQueue(stack.sqs, stack.queue('webhooks').queueUrl),
    clock: systemClock,
  });
  return { stack, receiver, publisher };
}
