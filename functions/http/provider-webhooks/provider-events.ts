import * as v from 'valibot';
import type { InboundRouter } from '../../../shared/domain/inbox/inbound-router';
import { textOfHtml } from '../../../shared/domain/inbox/conversations';
import type { InboundEmail } from '../../../shared/domain/inbox/inbound-email';
import type { ProviderMessage } from '../../../shared/domain/inbox/inbound-message';
import type { SenderAccountService } from '../../../shared/domain/sender-accounts/sender-account-service';
import { firstUnits } from '../../../shared/domain/validation';
import { parseWith } from '../../../shared/http/request';
import { AccountStatusPayload, MailReceivedPayload, MailSentPayload, MessageReceivedPayload, NewRelationPayload } from '../../../shared/http/routes/provider-webhooks';
import type { Logger } from '../../../shared/logging/logger';

export interface ProviderEventDeps {
  accounts: Pick<SenderAccountService, 'applyProviderStatus'>;
  inbound: Pick<InboundRouter, 'routeNetworkMessage' | 'routeEmail' | 'acceptInvitation'>;
  /** Emails the engine sent, under the provider's tracking id: `mail_sent` links the RFC Message-ID to one. */
  sentEmails: { setEmailMessageId(trackingId: string, messageId: string): Promise<void> };
  logger: Pick<Logger, 'info'>;
}

export interface ProviderEventAnswer {
  success: true;
  handled: boolean;
}

const IGNORED: ProviderEventAnswer = { success: true, handled: false };

/**
 * What one provider event (its secret already checked) changes: account status updates the
 * account; a received message or email is routed (shared/domain/inbox/inbound-router.ts: replies,
 * auto-replies, bounces), as is an accepted invitation; `mail_sent` links a Message-ID; other events
 * are acknowledged. Every step is idempotent (keyed by the provider's ids), so the provider's
 * retries and the inbound-retry queue (docs/integrations.md) may run an event again.
 * Run by the webhook's handler and, for an event whose handling failed there, by the inbound-retry consumer.
 */
export function createProviderEvents(deps: ProviderEventDeps) {
  /** The event in its payload's shape; undefined (logged) for one in a shape we do not read, which is acknowledged, not refused. */
  function readPayload<S extends v.GenericSchema>(schema: S, body: Record<string, unknown>, what: string): v.InferOutput<S> | undefined {
    const parsed = v.safeParse(schema, body);
    if (parsed.success) return parsed.output;
    deps.logger.info(`${what} in an unexpected shape, ignored`, { issues: parsed.issues.map((issue) => issue.message) });
    return undefined;
  }

  return async (body: Record<string, unknown>): Promise<ProviderEventAnswer> => {
    if (body.AccountStatus !== undefined) {
      const { AccountStatus } = parseWith(AccountStatusPayload, body);
      const account = await deps.accounts.applyProviderStatus(AccountStatus.account_id, AccountStatus.message);
      return { success: true, handled: account !== undefined };
    }
    if (body.event === 'message_received') {
      const payload = readPayload(MessageReceivedPayload, body, 'Provider message webhook');
      if (!payload) return IGNORED;
      const outcome = await deps.inbound.routeNetworkMessage(toProviderMessage(payload));
      if (!outcome.handled) deps.logger.info('Provider message not routed', { reason: outcome.reason, message_id: payload.message_id });
      return { success: true, handled: outcome.handled };
    }
    if (body.event === 'mail_received') {
      const parsed = v.safeParse(MailReceivedPayload, body);
      const email = parsed.success ? toInboundEmail(parsed.output) : undefined;
      if (!email) {
        deps.logger.info('Provider mail_received webhook in an unexpected shape, ignored', { issues: parsed.issues?.map((issue) => issue.message) ?? ['no email id'] });
        return IGNORED;
      }
      const outcome = await deps.inbound.routeEmail(email);
      if (!outcome.handled) deps.logger.info('Provider email not routed', { reason: outcome.reason, email_id: email.emailId });
      return { success: true, handled: outcome.handled };
    }
    if (body.event === 'new_relation') {
      const payload = readPayload(NewRelationPayload, body, 'Provider new_relation webhook');
      if (!payload) return IGNORED;
      const outcome = await deps.inbound.acceptInvitation({
        accountId: payload.account_id,
        providerId: payload.user_provider_id ?? undefined,
        publicIdentifier: payload.user_public_identifier ?? undefined,
        profileUrl: payload.user_profile_url ?? undefined,
      });
      if (!outcome.handled) deps.logger.info('Provider new relation not routed', { reason: outcome.reason });
      return { success: true, handled: outcome.handled };
    }
    if (body.event === 'mail_sent') {
      const payload = readPayload(MailSentPayload, body, 'Provider mail_sent webhook');
      if (!payload) return IGNORED;
      // Recorded whether or not the engine sent it (one sent from the mailbox by hand has no record
      // of ours: its link leads nowhere and expires); telling them apart would cost a read per email.
      await deps.sentEmails.setEmailMessageId(payload.tracking_id, payload.message_id);
      return { success: true, handled: true };
    }
    deps.logger.info('Provider webhook acknowledged, not routed yet', { event: typeof body.event === 'string' ? body.event : 'unknown' });
    return IGNORED;
  };
}

/** An email webhook's fields as the inbound router reads them; undefined without an id to deduplicate on. */
function toInboundEmail(payload: v.InferOutput<typeof MailReceivedPayload>): InboundEmail | undefined {
  const emailId = payload.email_id ?? payload.id ?? payload.provider_id;
  if (!emailId) return undefined;
  const at = payload.date ? new Date(payload.date) : undefined;
  const inReplyTo = payload.in_reply_to?.message_id;
  return {
    accountId: payload.account_id,
    emailId,
    rfcMessageId: payload.message_id ?? null,
    // The newest references only: each is a lookup, and a body of 4 MB could name thousands.
    answers: [...(inReplyTo ? [inReplyTo] : []), ...[...(payload.references ?? [])].reverse().slice(0, MAX_REFERENCES_READ)],
    from: payload.from_attendee?.identifier ?? '',
    subject: keptText(payload.subject ?? '', MAX_INBOUND_SUBJECT_LENGTH),
    text: keptText(payload.body_plain ?? textOfHtml(payload.body ?? '')),
    sentAt: at && !Number.isNaN(at.getTime()) ? at.toISOString() : undefined,
    headers: payload.headers ?? [],
  };
}

/**
 * The most of a message's text the service keeps. Its inbound record, its conversation line and the
 * user's webhook carry it, and the webhook's queue message must stay under SQS's 256 KB with every
 * character escaped (6 bytes at worst). A longer one (a long thread quoted, a big HTML body) is cut,
 * with an ellipsis; the whole stays in the mailbox. Before 2026-11-29 an email over the route's
 * 256 KB body limit was refused with a 400, which the provider does not retry: the reply was lost.
 */
export const MAX_INBOUND_TEXT_LENGTH = 32_000;

/** The most of an email's subject kept (it was bounded by the 256 KB body before). */
export const MAX_INBOUND_SUBJECT_LENGTH = 1_000;

/** How many of an email's `references` are looked up, newest first. */
const MAX_REFERENCES_READ = 50;

/** The text kept of a message, never cut inside a character. */
const keptText = (text: string, max = MAX_INBOUND_TEXT_LENGTH): string => (text.length <= max ? text : `${firstUnits(text, max)}…`);

/** The webhook's fields as the inbound router reads them. */
function toProviderMessage(payload: v.InferOutput<typeof MessageReceivedPayload>): ProviderMessage {
  const at = payload.timestamp ? new Date(payload.timestamp) : undefined;
  return {
    accountId: payload.account_id,
    messageId: payload.message_id,
    text: keptText(payload.message ?? ''),
    timestamp: at && !Number.isNaN(at.getTime()) ? at.toISOString() : undefined,
    isSender: payload.is_sender === true || payload.is_sender === 1,
    chatId: payload.chat_id ?? undefined,
    accountUserId: payload.account_info?.user_id ?? undefined,
    sender: {
      providerId: payload.sender?.attendee_provider_id ?? undefined,
      profileUrl: payload.sender?.attendee_profile_url ?? undefined,
    },
  };
}
