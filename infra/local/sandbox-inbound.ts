import { createHash } from 'node:crypto';
import type { MxRecord } from '../../shared/domain/mail/mailbox-provider';

/**
 * Parts of the sandbox provider's control API for what reaches our accounts from outside: email
 * replies (and auto-replies and bounces) in the thread of an email the mailbox sent, and the answers
 * of the sandbox DNS resolver (MX records for the HAS_EMAIL_PREMIUM condition). Kept apart from
 * sandbox-provider.ts, which wires them in.
 */

export type InboundKind = 'reply' | 'auto_reply' | 'bounce';

/** An email the sandbox sent, as the inbound part needs it (the newest last). */
export interface SentEmailRecord {
  accountId: string;
  /** The recipients' addresses, comma-separated. */
  to: string;
  subject?: string;
  messageId?: string;
  emailId?: string;
}

export interface MailReplyInput {
  account: { id: string; name: string; type: string };
  /** The prospect's address. */
  from: string;
  /** The address of the thread our mailbox wrote to, when the answer comes from another one (default: from). */
  threadWith: string | undefined;
  text: string;
  kind: InboundKind;
  /** A provider id to reuse (a replayed webhook); otherwise a new one. */
  providerMessageId: string | undefined;
  subject: string | undefined;
  at: string;
  newId: (prefix: string) => string;
}

/** The `mail_received` webhook of a prospect's email to one of our mailboxes, in the thread of the newest email the mailbox sent them. */
export function mailReceivedEvent(input: MailReplyInput, sent: readonly SentEmailRecord[]): Record<string, unknown> {
  const address = (input.threadWith ?? input.from).toLowerCase();
  const parent = [...sent].reverse().find((mail) => mail.accountId === input.account.id && mail.to.toLowerCase().split(',').includes(address));
  const emailId = input.providerMessageId ?? input.newId('mail_');
  // Derived from the email id, so a replay carries the same Message-ID.
  const rfcId = `<${createHash('sha256').update(emailId).digest('hex').slice(0, 24)}@${input.kind === 'bounce' ? 'mx.sandbox.local' : (address.split('@')[1] ?? 'sandbox.local')}>`;
  const original = parent?.subject ?? '';
  const subject =
    input.subject ??
    (input.kind === 'auto_reply' ? `Automatic reply: ${original}` : input.kind === 'bounce' ? 'Delivery Status Notification (Failure)' : `Re: ${original}`);
  const fromAttendee =
    input.kind === 'bounce'
      ? { display_name: 'Mail Delivery Subsystem', identifier: 'mailer-daemon@sandbox.local', identifier_type: 'EMAIL_ADDRESS' }
      : { display_name: input.from, identifier: input.from, identifier_type: 'EMAIL_ADDRESS' };
  const headers =
    input.kind === 'auto_reply'
      ? [{ name: 'Auto-Submitted', value: 'auto-replied' }]
      : input.kind === 'bounce'
        ? [{ name: 'Content-Type', value: 'multipart/report; report-type=delivery-status' }]
        : [];
  const body = input.kind === 'bounce' ? `Delivery to the following recipient failed permanently: ${input.from}\n\n${input.text}` : input.text;
  return {
    object: 'Mail',
    event: 'mail_received',
    id: emailId,
    email_id: emailId,
    account_id: input.account.id,
    date: input.at,
    from_attendee: fromAttendee,
    to_attendees: [{ display_name: input.account.name, identifier: `${input.account.id}@sandbox.example`, identifier_type: 'EMAIL_ADDRESS' }],
    cc_attendees: [],
    bcc_attendees: [],
    reply_to_attendees: [],
    subject,
    body: `<p>${body.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}</p>`,
    body_plain: body,
    provider_id: emailId,
    message_id: rfcId,
    in_reply_to: parent?.messageId ? { message_id: parent.messageId, id: parent.emailId ?? null } : null,
    // Not in the provider's documented payload: the sandbox adds the headers that mark auto-replies and bounces.
    headers,
    has_attachments: false,
    attachments: [],
    read_date: null,
    is_complete: true,
    origin: 'external',
    role: 'inbox',
    folders: ['INBOX'],
  };
}

/** Answers of the sandbox DNS resolver, set through the control API; a domain nobody set has no MX records. */
export class SandboxDns {
  private readonly mx = new Map<string, MxRecord[]>();

  set(domain: string, records: MxRecord[]): void {
    this.mx.set(domain.toLowerCase(), records);
  }

  get(domain: string): MxRecord[] {
    return this.mx.get(domain.toLowerCase()) ?? [];
  }

  clear(): void {
    this.mx.clear();
  }
}

/** `{records: [{exchange, priority}]}` from a control request body; an error text when it is not that. */
export function mxRecordsOf(body: Record<string, unknown>): MxRecord[] | string {
  const records = body.records;
  if (!Array.isArray(records)) return 'records must be an array of {exchange, priority}';
  const parsed: MxRecord[] = [];
  for (const record of records as { exchange?: unknown; priority?: unknown }[]) {
    if (typeof record?.exchange !== 'string' || typeof record.priority !== 'number' || !Number.isInteger(record.priority)) {
      return 'each record needs an exchange (string) and a priority (integer)';
    }
    parsed.push({ exchange: record.exchange, priority: record.priority });
  }
  return parsed;
}
