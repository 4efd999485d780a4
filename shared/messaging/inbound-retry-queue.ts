import { type SqsSender, sendJsonMessages } from './sqs';

/** The inbound-retry queue as the provider webhook sees it: an event to run again later, as the provider posted it. */
export function sqsInboundRetries(sqs: SqsSender, queueUrl: string): { later(body: Record<string, unknown>): Promise<void> } {
  return { later: (body) => sendJsonMessages(sqs, queueUrl, [body]) };
}
