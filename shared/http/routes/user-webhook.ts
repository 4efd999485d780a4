import * as v from 'valibot';
import { EVENT_ID_PATTERN } from '../../domain/webhooks/events';
import { DELIVERY_NOT_FOUND } from '../../domain/webhooks/webhook-service';
import { HttpStatus, Timestamp, defineRoute } from './define';

/** `null` or an empty string clears the webhook (the real product's UI sends an empty string). */
export const PutWebhookBody = v.object({
  webhook_url: v.nullable(v.pipe(v.string('webhook_url must be a URL string or null'), v.trim())),
});

const LIMIT_MESSAGE = 'limit must be an integer from 1 to 100';

export const DeliveriesQuery = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      // An empty `limit=` is the default, as an empty value of any other query parameter is left out.
      v.regex(/^[0-9]{0,3}$/, LIMIT_MESSAGE),
      // Documented as the integer it is (the pattern only reads the text).
      v.metadata({ type: 'integer', minimum: 1, maximum: 100, pattern: undefined }),
      v.transform((text) => (text === '' ? 50 : Number(text))),
      v.minValue(1, LIMIT_MESSAGE),
      v.maxValue(100, LIMIT_MESSAGE),
    ),
    '50',
  ),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(300, 'cursor is not valid'))),
});

const WebhookType = v.picklist(['slack', 'discord', 'teams', 'generic']);

const SettingsView = v.strictObject({
  success: v.literal(true),
  webhook_url: v.nullable(v.string()),
  webhook_type: v.nullable(WebhookType),
  has_signing_secret: v.boolean(),
  signing_secret_created_at: v.nullable(Timestamp),
  previous_secret_valid_until: v.nullable(Timestamp),
  updated_at: v.nullable(Timestamp),
  /** When the endpoint answered 410 Gone: no event goes to it until the URL is set again. */
  disabled_at: v.nullable(Timestamp),
  disabled_reason: v.nullable(v.string()),
});

const DeliveryAttemptView = v.strictObject({
  event_id: v.string(),
  event_type: v.string(),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  outcome: v.picklist(['delivered', 'http_error', 'timeout', 'blocked', 'network_error', 'skipped']),
  status_code: v.nullable(HttpStatus),
  error: v.nullable(v.string()),
  duration_ms: v.number(),
  attempted_at: Timestamp,
  next_attempt_at: v.nullable(Timestamp),
  test: v.boolean(),
});

/** A delivery's event id (`evt_…`, as the log shows it); anything else is no delivery of the caller's. */
const deliveryPath = v.object({
  event_id: v.pipe(v.optional(v.string(DELIVERY_NOT_FOUND), ''), v.regex(EVENT_ID_PATTERN, DELIVERY_NOT_FOUND)),
});

/** The user's incoming-message webhook: settings, signing secret, test send and delivery log. */
export const userWebhookRoutes = {
  getWebhook: defineRoute('userWebhook', {
    method: 'GET',
    path: '/user/webhook',
    auth: 'apiKeyOrSession',
    summary: "The user's webhook settings (never the secret itself).",
    responses: { 200: SettingsView },
  }),
  putWebhook: defineRoute('userWebhook', {
    method: 'PUT',
    path: '/user/webhook',
    auth: 'apiKeyOrSession',
    summary: 'Sets or clears the webhook URL; the signing secret is shown once, when first created.',
    request: { body: PutWebhookBody },
    responses: {
      200: v.strictObject({
        success: v.literal(true),
        message: v.literal('Webhook URL updated successfully'),
        webhook_url: v.nullable(v.string()),
        signing_secret: v.optional(v.string()),
      }),
    },
    errors: [409],
  }),
  testWebhook: defineRoute('userWebhook', {
    method: 'POST',
    path: '/user/webhook/test',
    auth: 'session',
    summary: 'Sends a test notification now, formatted for Slack, Discord, Teams or generic receivers.',
    responses: {
      200: v.strictObject({
        success: v.literal(true),
        message: v.literal('Test notification sent successfully'),
        webhook_type: WebhookType,
        status_code: HttpStatus,
      }),
    },
  }),
  rotateWebhookSecret: defineRoute('userWebhook', {
    method: 'POST',
    path: '/user/webhook/secret/rotate',
    auth: 'apiKeyOrSession',
    summary: 'A new signing secret, shown once; the previous one keeps signing for a grace period.',
    responses: {
      200: v.strictObject({ success: v.literal(true), signing_secret: v.string(), previous_secret_valid_until: v.nullable(Timestamp) }),
    },
    errors: [404, 409],
  }),
  listWebhookDeliveries: defineRoute('userWebhook', {
    method: 'GET',
    path: '/user/webhook/deliveries',
    auth: 'apiKeyOrSession',
    summary: 'The delivery log, newest first, with a cursor.',
    request: { query: DeliveriesQuery },
    responses: {
      200: v.strictObject({ success: v.literal(true), deliveries: v.array(DeliveryAttemptView), next_cursor: v.nullable(v.string()) }),
    },
  }),
  redeliverWebhookEvent: defineRoute('userWebhook', {
    method: 'POST',
    path: '/user/webhook/deliveries/{event_id}/redeliver',
    auth: 'apiKeyOrSession',
    summary:
      'Sends again an event whose delivery was given up on (all its attempts failed; kept 14 days): it is queued with a fresh retry schedule, to the webhook URL set now.',
    request: { path: deliveryPath },
    responses: { 202: v.strictObject({ success: v.literal(true), event_id: v.string(), message: v.string() }) },
    errors: [404, 409],
  }),
};
