import * as v from 'valibot';

/** `null` or an empty string clears the webhook (the real product's UI sends an empty string). */
export const PutWebhookBody = v.object({
  webhook_url: v.nullable(v.pipe(v.string('webhook_url must be a URL string or null'), v.trim())),
});

export const DeliveriesQuery = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9]{1,3}$/, 'limit must be an integer from 1 to 100'),
      v.transform(Number),
      v.minValue(1, 'limit must be an integer from 1 to 100'),
      v.maxValue(100, 'limit must be an integer from 1 to 100'),
    ),
    '50',
  ),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(300, 'cursor is not valid'))),
});
