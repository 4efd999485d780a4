import { randomBytes } from 'node:crypto';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { sendJsonMessages } from '../../../shared/messaging/sqs';

/** Sending many large messages at once (a reply's webhook event to each member), against the SQS emulator. */
describe('sendJsonMessages against the SQS emulator', () => {
  const sqs = new SQSClient({ endpoint: inject('sqsEndpoint'), region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  afterAll(() => sqs.destroy());

  it('sends ten messages of 300 KB (3 MB, past a batch’s 1 MiB) and every one arrives once', async () => {
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `b${randomBytes(4).toString('hex')}` }))).QueueUrl as string;
    const bodies = Array.from({ length: 10 }, (_, i) => ({ n: i, text: 'x'.repeat(300_000) }));
    await sendJsonMessages(sqs, queueUrl, bodies);
    const received: number[] = [];
    for (let round = 0; round < 10 && received.length < 10; round += 1) {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }));
      for (const message of Messages ?? []) received.push(JSON.parse(message.Body as string).n);
    }
    expect(received.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
