import { ChangeMessageVisibilityCommand, SQSClient, type SQSClientConfig, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { DeliveryQueue } from '../domain/webhooks/ports';
import type { DeliveryMessage } from '../domain/webhooks/events';

/**
 * The SQS client every producer and consumer uses. Locally (SQS_ENDPOINT set by the local stack)
 * it points at the emulator with dummy credentials.
 */
export function makeSqsClient(options: { endpoint?: string | undefined; region?: string } = {}): SQSClient {
  const config: SQSClientConfig = { region: options.region ?? process.env.AWS_REGION ?? 'us-east-1' };
  if (options.endpoint) {
    config.endpoint = options.endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return new SQSClient(config);
}

/** SendMessageBatch takes at most 10 entries. */
const BATCH = 10;

/** Sends JSON messages to one queue, in batches; fails if any entry was not accepted. */
export async function sendJsonMessages(sqs: SQSClient, queueUrl: string, bodies: readonly unknown[]): Promise<void> {
  for (let start = 0; start < bodies.length; start += BATCH) {
    const chunk = bodies.slice(start, start + BATCH);
    const result = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((body, index) => ({ Id: String(index), MessageBody: JSON.stringify(body) })),
      }),
    );
    if (result.Failed && result.Failed.length > 0) {
      throw new Error(`SQS refused ${result.Failed.length} message(s): ${result.Failed.map((f) => f.Code).join(', ')}`);
    }
  }
}

/** Makes a received message visible again after `seconds` (how the webhook worker waits between attempts). */
export async function delayRedelivery(sqs: SQSClient, queueUrl: string, receiptHandle: string, seconds: number): Promise<void> {
  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
}

/** The webhooks queue as the event publisher sees it. */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  enqueue(messages: readonly DeliveryMessage[]): Promise<void> {
    return sendJsonMessages(this.sqs, this.queueUrl, messages);
  }
}
