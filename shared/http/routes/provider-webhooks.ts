import * as v from 'valibot';
import { defineRoute } from './define';


/** Any JSON object: the provider posts several shapes to one URL. */
export const AnyPayload = v.record(v.string(), v.unknown());

/** The provider's account-status webhook: `{AccountStatus: {account_id, account_type, message}}`. */
export const AccountStatusPayload = v.object({
  AccountStatus: v.object({
    account_id: v.pipe(v.string('AccountStatus.account_id must be a string'), v.nonEmpty('AccountStatus.account_id is required')),
    account_type: v.optional(v.string()),
    message: v.pipe(v.string('AccountStatus.message must be a string'), v.nonEmpty('AccountStatus.message is required'), v.maxLength(50)),
  }),
});

/** What the provider posts to a hosted-connect link's notify_url. */
export const HostedAuthPayload = v.object({
  status: v.pipe(v.string('status must be a string'), v.maxLength(50)),
  account_id: v.pipe(v.string('account_id must be a string'), v.nonEmpty('account_id is required'), v.maxLength(200)),
  name: v.optional(v.nullable(v.string())),
});

const optionalText = v.optional(v.nullable(v.pipe(v.string(), v.maxLength(2000))));

/**
 * The provider's `message_received` webhook (providers.md §1.8), as far as routing reads it. The
 * text is bounded by the body size limit (4 MB) only, and cut to what is kept when read; unknown
 * fields are ignored.
 */
export const MessageReceivedPayload = v.object({
  event: v.literal('message_received'),
  account_id: v.pipe(v.string(), v.nonEmpty(), v.maxLength(200)),
  message_id: v.pipe(v.string(), v.nonEmpty(), v.maxLength(500)),
  chat_id: optionalText,
  message: v.optional(v.nullable(v.string())),
  timestamp: v.optional(v.nullable(v.string())),
  is_sender: v.optional(v.nullable(v.union([v.boolean(), v.number()]))),
  account_info: v.optional(v.nullable(v.object({ user_id: optionalText }))),
  sender: v.optional(
    v.nullable(
      v.object({
        attendee_provider_id: optionalText,
        attendee_profile_url: optionalText,
      }),
    ),
  ),
});

/** The provider's `mail_sent` webhook (providers.md §1.8), as far as the engine reads it: which send, and its Message-ID. */
export const MailSentPayload = v.object({
  event: v.literal('mail_sent'),
  tracking_id: v.pipe(v.string(), v.nonEmpty(), v.maxLength(500)),
  message_id: v.pipe(v.string(), v.nonEmpty(), v.maxLength(1000)),
});

const Attendee = v.object({ identifier: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))), display_name: optionalText });

/**
 * The provider's `mail_received` webhook (providers.md §1.8), as far as reply routing reads it:
 * who wrote, the thread it continues (`in_reply_to`, plus `references` and `headers` where a
 * provider gives them), and its text.
 */
export const MailReceivedPayload = v.object({
  event: v.literal('mail_received'),
  account_id: v.pipe(v.string(), v.nonEmpty(), v.maxLength(200)),
  email_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))),
  id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))),
  provider_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))),
  message_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(1000)))),
  date: v.optional(v.nullable(v.string())),
  subject: v.optional(v.nullable(v.string())),
  body: v.optional(v.nullable(v.string())),
  body_plain: v.optional(v.nullable(v.string())),
  from_attendee: v.optional(v.nullable(Attendee)),
  in_reply_to: v.optional(v.nullable(v.object({ message_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(1000)))) }))),
  references: v.optional(v.nullable(v.array(v.pipe(v.string(), v.maxLength(1000))))),
  headers: v.optional(v.nullable(v.array(v.object({ name: v.pipe(v.string(), v.maxLength(200)), value: v.pipe(v.string(), v.maxLength(2000)) })))),
});

/** The provider's `new_relation` webhook (an invitation accepted; providers.md §1.8). */
export const NewRelationPayload = v.object({
  event: v.literal('new_relation'),
  account_id: v.pipe(v.string(), v.nonEmpty(), v.maxLength(200)),
  user_provider_id: optionalText,
  user_public_identifier: optionalText,
  user_profile_url: optionalText,
});

const Handled = v.strictObject({
  success: v.literal(true),
  handled: v.boolean(),
  /** The event's handling failed here and was handed to the inbound-retry queue, which runs it again. */
  queued: v.optional(v.literal(true)),
});

/**
 * Called by the provider, never with an API key: each checks its own secret (the shared secret in
 * X-Webhook-Secret, or the signed connect state). Known shapes are never refused: a 4xx/5xx only
 * makes the provider retry.
 */
export const providerWebhookRoutes = {
  providerEvent: defineRoute('providerWebhooks', {
    method: 'POST',
    path: '/webhooks/provider',
    auth: 'none',
    summary: "The provider's account-status and message webhooks.",
    request: { body: AnyPayload },
    responses: { 200: Handled },
    unpairedSurrogates: 'replace',
    // A wrong X-Webhook-Secret.
    errors: [401],
    // An email with a big HTML body, or a long quoted thread, must arrive: a 4xx is not retried.
    // Its text is cut to what the service keeps (MAX_INBOUND_TEXT_LENGTH, provider-events.ts).
    maxBodyBytes: 4 * 1024 * 1024,
  }),
  hostedAuthEvent: defineRoute('providerWebhooks', {
    method: 'POST',
    path: '/webhooks/provider/hosted-auth',
    auth: 'none',
    summary: "The provider's notification that a hosted-connect link connected an account.",
    request: { body: HostedAuthPayload },
    responses: { 200: Handled },
    unpairedSurrogates: 'replace',
    errors: [403],
  }),
};
