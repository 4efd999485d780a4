import type { SQSClient, SQSClientConfig } from '@aws-sdk/client-sqs';
import type { DeliveryMessage } from '../domain/webhooks/events';
import type { DeliveryQueue } from '../domain/webhooks/ports';

/**
 * The SQS SDK is loaded on first use, not at import: its load time (about 40 ms on the bench
 * machine) would otherwise add to every cold start, while most invocations never send.
 */
const sqsSdk = () => import('@aws-sdk/client-sqs');

/** What the helpers below need of a client: an SQSClient, or the lazy one from makeSqsClient. */
export type SqsSender = Pick<SQSClient, 'send'>;

/**
 * The SQS client every producer and consumer uses, created on its first call. Locally
 * (SQS_ENDPOINT set by the local stack) it points at the emulator with dummy credentials.
 */
export function makeSqsClient(options: { endpoint?: string | undefined; region?: string } = {}): SqsSender {
  const config: SQSClientConfig = { region: options.region ?? 'us-east-1' };
  if (options.endpoint) {
    config.endpoint = options.endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  let client: Promise<SQSClient> | undefined;
  return {
    send: (async (command: Parameters<SQSClient['send']>[0]) => {
      client ??= sqsSdk().then((sdk) => new sdk.SQSClient(config));
      return (await client).send(command);
    }) as SQSClient['send'],
  };
}

/** SendMessageBatch takes at most 10 entries, of at most 1 MiB together (the most one message may be, too). */
export const SQS_BATCH_ENTRIES = 10;
export const SQS_BATCH_BYTES = 1_048_576;

/**
 * Message bodies grouped for SendMessageBatch: in order, at most SQS_BATCH_ENTRIES a batch and
 * SQS_BATCH_BYTES together. A reply's webhook event can be ~300 KB (its text, up to the provider
 * webhook's 256 KB, and the prospect), and one goes to every member: ten in one batch were refused
 * (BatchRequestTooLong), and the reply was never delivered.
 */
export function sqsBatches(texts: readonly string[]): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    const size = Buffer.byteLength(text, 'utf8');
    if (current.length > 0 && (current.length === SQS_BATCH_ENTRIES || bytes + size > SQS_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(text);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Characters SQS refuses in a message body that JSON.stringify leaves as they are: U+FFFE and
 * U+FFFF (SQS allows #x9, #xA, #xD, #x20–#xD7FF, #xE000–#xFFFD, #x10000–#x10FFFF), and every
 * character above U+FFFF (emoji), which SQS allows but the local emulator refuses. Control
 * characters and lone surrogates JSON.stringify escapes already.
 */
const REFUSED_BY_SQS = /[\u{FFFE}\u{FFFF}\u{10000}-\u{10FFFF}]/gu;

/**
 * A value as JSON that SQS takes whatever text it carries: the characters above written as
 * `\uXXXX` escapes (JSON's own, so the consumer's JSON.parse gives the same text back). A reply
 * with an emoji or U+FFFF was refused (InvalidMessageContents), and its webhook never sent (a
 * probe, 2026-11-28). Outside a JSON string no such character can occur, so escaping is safe.
 */
export function sqsJson(value: unknown): string {
  return JSON.stringify(value).replace(REFUSED_BY_SQS, (character) =>
    Array.from({ length: character.length }, (_, index) => `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`).join(''),
  );
}

/** Sends JSON messages to one queue, in batches; fails if any entry was not accepted. */
export async function sendJsonMessages(sqs: SqsSender, queueUrl: string, bodies: readonly unknown[]): Promise<void> {
  const { SendMessageBatchCommand } = await sqsSdk();
  for (const chunk of sqsBatches(bodies.map(sqsJson))) {
    const result = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((text, index) => ({ Id: String(index), MessageBody: text })),
      }),
    );
    if (result.Failed && result.Failed.length > 0) {
      throw new Error(`SQS refused ${result.Failed.length} message(s): ${result.Failed.map((f) => f.Code).join(', ')}`);
    }
  }
}

/** Makes a received message visible again after `seconds` (how the webhook worker waits between attempts). */
export async function delayRedelivery(sqs: SqsSender, queueUrl: string, receiptHandle: string, seconds: number): Promise<void> {
  const { ChangeMessageVisibilityCommand } = await sqsSdk();
  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
}

/** The webhooks queue as the event publisher sees it. */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SqsSender,
    private readonly queueUrl: string,
  ) {}

  enqueue(messages: readonly DeliveryMessage[]): Promise<void> {
    return sendJsonMessages(this.sqs, this.queueUrl, messages);
  }
}
