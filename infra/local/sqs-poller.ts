import type { Clock } from '../../shared/time/clock';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext } from './lambda-context';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface PolledQueue {
  name: string;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  handler: SqsHandler;
  /** The deployed consumer's timeout: what its context's remaining time counts down from (60 s when not given). */
  timeoutMs?: number;
}

function toRecord(message: Message, queue: PolledQueue, now: Date): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(now.getTime()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(now.getTime()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([key, value]) => [
        key,
        { dataType: value.DataType ?? 'String', stringValue: value.StringValue, stringListValues: [], binaryListValues: [] },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queue.queueArn,
    awsRegion: 'us-east-1',
  };
}

/**
 * Drives SQS consumers the way Lambda's event source mapping does: receives a batch, invokes the
 * handler with an SQS event, deletes the records that did not fail (partial batch response), and
 * leaves failed ones to reappear after the visibility timeout — and, past maxReceiveCount, to be
 * moved to the dead-letter queue by the queue's redrive policy.
 */
export class SqsPoller {
  private running = false;
  private paused = 0;
  private loops: Promise<void>[] = [];
  /** Receives (and the handling of what they got) under way, background or not. */
  private readonly busy = new Set<Promise<number>>();

  constructor(
    private readonly sqs: SQSClient,
    private readonly queues: readonly PolledQueue[],
    private readonly clock: Clock,
    private readonly log: (line: string) => void = () => {},
  ) {}

  start(): void {
    this.running = true;
    this.loops = this.queues.map((queue) => this.loop(queue));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.allSettled(this.loops);
  }

  /**
   * One receive round on every queue, each batch handled before it resolves: after the local
   * clock moved, consumers see what became due without waiting for the next poll.
   */
  async pollNow(): Promise<number> {
    const received = await Promise.all(this.queues.map((queue) => this.pollOnce(queue)));
    return received.reduce((sum, n) => sum + n, 0);
  }

  /**
   * Runs `work` with the background loops held back and nothing of theirs under way, so what it
   * polls is all there is (the local clock plays out a move this way before it answers).
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.paused += 1;
    try {
      while (this.busy.size > 0) await Promise.allSettled([...this.busy]);
      return await work();
    } finally {
      this.paused -= 1;
    }
  }

  /** Receives and handles one batch; returns how many messages were received. */
  pollOnce(queue: PolledQueue, waitSeconds = 0): Promise<number> {
    const polling = this.receiveAndHandle(queue, waitSeconds);
    this.busy.add(polling);
    return polling.finally(() => this.busy.delete(polling));
  }

  private async receiveAndHandle(queue: PolledQueue, waitSeconds: number): Promise<number> {
    const received = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.queueUrl,
        MaxNumberOfMessages: queue.batchSize,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) return 0;
    const records = messages.map((message) => toRecord(message, queue, this.clock.now()));
    let failed: Set<string>;
    try {
      const response = await queue.handler({ Records: records }, lambdaContext(queue.name, queue.timeoutMs ?? 60_000));
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      this.log(`consumer ${queue.name} threw: ${String(error)}`);
      failed = new Set(records.map((record) => record.messageId));
    }
    const done = records.filter((record) => !failed.has(record.messageId));
    if (done.length > 0) {
      await this.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queue.queueUrl,
          Entries: done.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
        }),
      );
    }
    return messages.length;
  }

  private async loop(queue: PolledQueue): Promise<void> {
    while (this.running) {
      if (this.paused > 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      try {
        const count = await this.pollOnce(queue, 1);
        if (count === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      } catch (error) {
        if (this.running) this.log(`poller ${queue.name}: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
}
