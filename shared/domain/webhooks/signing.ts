import type { WebhookSigner } from './ports';

/** Headers of a signed generic delivery (Standard Webhooks). */
export function signedHeaders(signer: WebhookSigner, secrets: readonly string[], messageId: string, at: Date, body: string) {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(secrets, messageId, at, body),
  };
}

export const JSON_HEADERS = { 'content-type': 'application/json', 'user-agent': 'OutreachWebhooks/1.0' } as const;
