import type { APIGatewayProxyEvent } from 'aws-lambda';
import { toWebhookSettingsView } from '../../../shared/domain/webhooks/webhook';
import type { WebhookService } from '../../../shared/domain/webhooks/webhook-service';
import { requireCaller, requireSession } from '../../../shared/http/caller';
import { parseBody, parseWith } from '../../../shared/http/request';
import { json } from '../../../shared/http/responses';
import { DeliveriesQuery, PutWebhookBody } from './schemas';

/** The user's incoming-message webhook: settings, signing secret, test send and delivery log. */
export function userWebhookRoutes(webhooks: WebhookService) {
  return {
    'GET /api/v1/user/webhook': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const { settings, type } = await webhooks.get(caller.userId);
      return json(200, toWebhookSettingsView(settings, type, new Date()));
    },

    /** Spec (real product): `{success: true, message: "Webhook URL updated successfully"}`; the new secret once. */
    'PUT /api/v1/user/webhook': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const body = parseBody(PutWebhookBody, event);
      const url = body.webhook_url === null || body.webhook_url === '' ? null : body.webhook_url;
      const result = await webhooks.setUrl(caller.userId, url);
      return json(200, {
        success: true,
        message: 'Webhook URL updated successfully',
        webhook_url: result.url,
        ...(result.signingSecret ? { signing_secret: result.signingSecret } : {}),
      });
    },

    /** Spec: Webhook test (session authentication). */
    'POST /api/v1/user/webhook/test': async (event: APIGatewayProxyEvent) => {
      const caller = requireSession(event);
      const result = await webhooks.sendTest(caller.userId);
      return json(200, {
        success: true,
        message: 'Test notification sent successfully',
        webhook_type: result.webhookType,
        status_code: result.statusCode,
      });
    },

    'POST /api/v1/user/webhook/secret/rotate': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const rotated = await webhooks.rotateSecret(caller.userId);
      return json(200, {
        success: true,
        signing_secret: rotated.signingSecret,
        previous_secret_valid_until: rotated.previousSecretValidUntil,
      });
    },

    'GET /api/v1/user/webhook/deliveries': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const query = parseWith(DeliveriesQuery, event.queryStringParameters ?? {});
      const page = await webhooks.listDeliveries(caller.userId, { limit: query.limit, after: query.cursor });
      return json(200, { success: true, ...page });
    },
  };
}
