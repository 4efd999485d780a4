import { Webhook } from 'standardwebhooks';
import type { WebhookSigner } from '../domain/webhooks/ports';

/**
 * Standard Webhooks (v1, HMAC-SHA256 over `${id}.${timestamp}.${body}`) with the reference
 * library. Several secrets (during a rotation) give several space-separated signatures.
 */
export const standardWebhooksSigner: WebhookSigner = {
  sign(secrets, messageId, at, body) {
    return secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' ');
  },
};
