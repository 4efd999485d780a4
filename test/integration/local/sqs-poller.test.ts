import { systemClock } from '../../../shared/time/clock';
import { randomBytes } from 'node:crypto';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PolledQueue, SqsPoller } from '../../../infra/local/sqs-poller';

/** The local poller must behave like Lambda's SQS event source mapping, against the real emulator. */
describe('local SQS poller against the SQS emulator', () => {
  const sqs = new SQSClient({
    endpoint: inject('sqsEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const seen: string[] = [];
  let failBodies = new Set<string>();
  let queue: PolledQueue;
  let dlqUrl: string;
  let poller: SqsPoller;

  beforeAll(async () => {
    const prefix = `p${randomBytes(4).toString('hex')}`;
    dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}-dlq` }))).QueueUrl ?? '';
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
    const queueUrl =
      (
        await sqs.send(
          new CreateQueueCommand({
            QueueName: prefix,
            Attributes: { VisibilityTimeout: '0', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }) },
          }),
        )
      ).QueueUrl ?? '';
    queue = {
      name: prefix,
      queueUrl,
      queueArn: 'arn:aws:sqs:us-east-1:000000000000:x',
      batchSize: 10,
      handler: async (event: SQSEvent) => {
        const failures = [];
        for (const record of event.Records) {
          seen.push(record.body);
          if (failBodies.has(record.body)) failures.push({ itemIdentifier: record.messageId });
        }
        return { batchItemFailures: failures };
      },
    };
    poller = new SqsPoller(sqs, [queue], systemClock);
  });
  afterAll(() => sqs.destroy());

  it('deletes handled records and keeps failed ones for another attempt, then moves them to the DLQ', async () => {
    failBodies = new Set(['poison']);
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: 'ok' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: 'poison' }));

    // Receive until the queue is drained: ok once, poison twice (maxReceiveCount), then the DLQ.
    for (let i = 0; i < 10 && (await poller.pollOnce(queue)) > 0; i += 1);
    expect([...seen].sort()).toEqual(['ok', 'poison', 'poison']);

    const dead = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10 }));
    expect(dead.Messages?.map((message) => message.Body)).toEqual(['poison']);
  });

  it('treats a thrown handler as a failure of the whole batch', async () => {
    const thrower: PolledQueue = { ...queue, handler: async () => Promise.reject(new Error('boom')) };
    failBodies = new Set();
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: 'retry me' }));
    expect(await poller.pollOnce(thrower)).toBe(1);
    seen.length = 0;
    for (let i = 0; i < 5 && (await poller.pollOnce(queue)) > 0; i += 1);
    expect(seen).toEqual(['retry me']);
  });

  it('pollNow runs one receive round on every queue and resolves once the batches are handled', async () => {
    seen.length = 0;
    failBodies = new Set();
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: 'nudged' }));
    await poller.pollNow();
    expect(seen).toEqual(['nudged']);
    expect(await poller.pollOnce(queue)).toBe(0);
  });
});
