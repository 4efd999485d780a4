import { toWebhookSettingsView } from '../../../shared/domain/webhooks/webhook';
import type { WebhookService } from '../../../shared/domain/webhooks/webhook-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { userWebhookRoutes } from '../../../shared/http/routes/user-webhook';
import type { Clock } from '../../../shared/time/clock';

/** The user's incoming-message webhook: settings, signing secret, test send and delivery log. */
export function userWebhookHandlers(webhooks: WebhookService, clock: Clock) {
  return {
    getWebhook: async (request) => {
      const { settings, type } = await webhooks.get(request.caller().userId);
      return json(200, toWebhookSettingsView(settings, type, clock.now()));
    },

    /** Spec (real product): `{success: true, message: "Webhook URL updated successfully"}`; the new secret once. */
    putWebhook: async (request) => {
      const caller = request.caller();
      const body = request.body();
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
    testWebhook: async (request) => {
      const caller = request.session();
      const result = await webhooks.sendTest(caller.userId, caller.workspaceId);
      return json(200, {
        success: true,
        message: 'Test notification sent successfully',
        webhook_type: result.webhookType,
        status_code: result.statusCode,
      });
    },

    rotateWebhookSecret: async (request) => {
      const caller = request.caller();
      const rotated = await webhooks.rotateSecret(caller.userId);
      return json(200, {
        success: true,
        signing_secret: rotated.signingSecret,
        previous_secret_valid_until: rotated.previousSecretValidUntil,
      });
    },

    listWebhookDeliveries: async (request) => {
      const caller = request.caller();
      const query = request.query();
      // An empty `cursor=` is the first page, as an empty value of any other query parameter is left out.
      const page = await webhooks.listDeliveries(caller.userId, { limit: query.limit, after: query.cursor || undefined });
      return json(200, { success: true, ...page });
    },

    redeliverWebhookEvent: async (request) => {
      const eventId = request.path().event_id;
      await webhooks.redeliver(request.caller().userId, eventId);
      return json(202, { success: true, event_id: eventId, message: 'Delivery queued: its attempts start over' });
    },
  } satisfies HandlersFor<typeof userWebhookRoutes>;
}
