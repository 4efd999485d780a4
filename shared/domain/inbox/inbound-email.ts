/**
 * What an email that reaches one of our mailboxes is (docs/engine.md, "Replies"): a reply, an
 * auto-reply (out of office, vacation: RFC 3834 `Auto-Submitted`, the common `X-Autoreply` style
 * headers, or the subjects mail programs give them) or a bounce (a delivery status notification
 * from the mail system). Only a reply stops a sequence as a reply; a bounce ends it as BOUNCED.
 */

export type InboundEmailKind = 'reply' | 'auto_reply' | 'bounce';

export interface InboundEmail {
  /** The provider account (mailbox) it arrived at. */
  accountId: string;
  /** The provider's id of the email: the idempotency key. */
  emailId: string;
  /** Its RFC Message-ID. */
  rfcMessageId: string | null;
  /** The Message-IDs it answers: In-Reply-To first, then References newest first. */
  answers: string[];
  from: string;
  subject: string;
  text: string;
  sentAt: string | undefined;
  headers: { name: string; value: string }[];
}

const BOUNCE_SENDERS = /^(mailer-daemon|postmaster|mail-daemon|mailerdaemon)@/i;
const BOUNCE_SUBJECTS =
  /^(undeliverable|undelivered mail|delivery status notification \((failure|delay)\)|mail delivery (failed|failure)|returned mail|failure notice|delivery failure|message not delivered)/i;
const AUTO_SUBJECTS =
  /^(automatic reply|auto(matic)?[- ]?reply|auto:|out of (the )?office|ooo\b|on vacation|abwesen|automatische antwort|réponse automatique|respuesta automática|risposta automatica|afwezig)/i;

const headerOf = (email: InboundEmail, name: string): string | undefined =>
  email.headers.find((header) => header.name.toLowerCase() === name.toLowerCase())?.value;

export function classifyInboundEmail(email: InboundEmail): InboundEmailKind {
  const contentType = headerOf(email, 'Content-Type') ?? '';
  if (BOUNCE_SENDERS.test(email.from.trim()) || /multipart\/report/i.test(contentType) || BOUNCE_SUBJECTS.test(email.subject.trim())) return 'bounce';
  const autoSubmitted = headerOf(email, 'Auto-Submitted');
  if (autoSubmitted !== undefined && autoSubmitted.trim().toLowerCase() !== 'no') return 'auto_reply';
  if (headerOf(email, 'X-Autoreply') !== undefined || headerOf(email, 'X-Autorespond') !== undefined) return 'auto_reply';
  if (/^(auto_reply|bulk|junk)$/i.test(headerOf(email, 'Precedence')?.trim() ?? '')) return 'auto_reply';
  if (AUTO_SUBJECTS.test(email.subject.trim())) return 'auto_reply';
  return 'reply';
}
