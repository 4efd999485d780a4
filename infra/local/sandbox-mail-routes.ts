import { randomBytes } from 'node:crypto';
import { type HostedLink, HttpError, type Route, type SandboxAccount, type SentItem, type SentMail, type Webhook, newId, notFound, plainText, str, isAllowedHeader } from './sandbox-shared';

/**
 * The sandbox provider's mail and webhook-registration routes (sandbox-provider.ts holds the
 * state and the network routes): sending an email (multipart, as the provider's API takes it,
 * then its `mail_sent` webhook), hosted-connect links and webhook registrations.
 */
export interface MailAndWebhookRouteDeps {
  activeAccount(accountId: unknown): SandboxAccount;
  mails: Map<string, SentMail>;
  sent: SentItem[];
  now(): string;
  emit(source: string, payload: Record<string, unknown>): Promise<{ url: string; status: number | null }[]>;
  log(line: string): void;
  hostedLinks: Map<string, HostedLink>;
  webhooks: Map<string, Webhook>;
  /** The sandbox's own URL (known once it listens). */
  baseUrl(): string;
}

/** A JSON-stringified `[{display_name?, identifier}]` form field (to, cc, bcc) as webhook attendees. */
function attendeeList(field: unknown, name: string): { display_name: string; identifier: string; identifier_type: 'EMAIL_ADDRESS' }[] {
  if (field === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(field));
  } catch {
    throw new HttpError(400, 'errors/invalid_parameters', 'Invalid parameters', `${name} must be JSON`);
  }
  if (!Array.isArray(parsed)) throw new HttpError(400, 'errors/invalid_parameters', 'Invalid parameters', `${name} must be a JSON array`);
  return parsed.map((entry: { display_name?: unknown; identifier?: unknown }) => {
    const identifier = str(entry?.identifier);
    if (!identifier) throw new HttpError(400, 'errors/invalid_parameters', 'Invalid parameters', `every ${name} needs an identifier`);
    return { display_name: str(entry.display_name) ?? identifier, identifier, identifier_type: 'EMAIL_ADDRESS' };
  });
}

/** The `custom_headers` form field (`[{name, value}]`); names outside the provider's list are refused. */
function customHeaders(field: unknown): { name: string; value: string }[] {
  if (field === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(field));
  } catch {
    throw new HttpError(422, 'errors/invalid_headers', 'Invalid headers', 'custom_headers must be a JSON array');
  }
  if (!Array.isArray(parsed)) throw new HttpError(422, 'errors/invalid_headers', 'Invalid headers', 'custom_headers must be a JSON array');
  return parsed.map((entry: { name?: unknown; value?: unknown }) => {
    const name = str(entry?.name);
    if (!name || !isAllowedHeader(name) || typeof entry.value !== 'string') {
      throw new HttpError(422, 'errors/invalid_headers', 'Invalid headers', 'Header names start with X- or are Unscribe-List, Reply-To or Content-Type');
    }
    return { name, value: entry.value };
  });
}

export function mailAndWebhookRoutes(deps: MailAndWebhookRouteDeps): Route[] {
  const { activeAccount, mails, sent, now, emit, log, hostedLinks, webhooks } = deps;
  return [
    [
      'POST',
      /^\/api\/v1\/emails$/,
      ({ body }) => {
        const account = activeAccount(body.account_id);
        if (account.type === 'LINKEDIN') throw new HttpError(422, 'errors/invalid_account', 'Invalid account', 'Not a mailbox');
        const to = attendeeList(body.to, 'to');
        if (to.length === 0) throw new HttpError(400, 'errors/missing_parameters', 'Missing parameters', 'to');
        const cc = attendeeList(body.cc, 'cc');
        const bcc = attendeeList(body.bcc, 'bcc');
        const [from] = body.from === undefined ? [] : attendeeList(`[${String(body.from)}]`, 'from');
        const headers = customHeaders(body.custom_headers);
        const replyTo = str(body.reply_to);
        const subject = String(body.subject ?? '');
        const html = String(body.body ?? '');
        const at = now();
        const mail: SentMail = { emailId: newId('mail_'), messageId: `<${randomBytes(12).toString('hex')}@sandbox.local>` };
        const providerId = newId('prv_');
        const trackingId = newId('trk_');
        mails.set(mail.emailId, mail);
        mails.set(providerId, mail);
        sent.push({
          kind: 'email',
          accountId: account.id,
          to: to.map((attendee) => attendee.identifier).join(','),
          toNames: to.map((attendee) => attendee.display_name),
          subject,
          text: html,
          at,
          messageId: mail.messageId,
          trackingId,
          emailId: mail.emailId,
          ...(replyTo ? { replyTo } : {}),
          ...(headers.length > 0 ? { headers } : {}),
        });
        const parent = replyTo ? mails.get(replyTo) : undefined;
        const event = {
          object: 'Mail',
          event: 'mail_sent',
          id: mail.emailId,
          email_id: mail.emailId,
          account_id: account.id,
          date: at,
          from_attendee: from ?? { display_name: account.name, identifier: `${account.id}@sandbox.example`, identifier_type: 'EMAIL_ADDRESS' },
          to_attendees: to,
          cc_attendees: cc,
          bcc_attendees: bcc,
          reply_to_attendees: [],
          subject,
          body: html,
          body_plain: plainText(html),
          provider_id: providerId,
          message_id: mail.messageId,
          tracking_id: trackingId,
          in_reply_to: parent ? { message_id: parent.messageId, id: parent.emailId } : null,
          has_attachments: false,
          attachments: [],
          read_date: null,
          is_complete: true,
          origin: 'unipile',
          role: 'sent',
          folders: ['SENT'],
        };
        // The provider reports the sent mail on its own, after the send's answer.
        const announce = () => {
          emit('email', event).catch((error: unknown) => log(`sandbox provider: mail_sent failed: ${String(error)}`));
        };
        return [201, { object: 'EmailSent', tracking_id: trackingId }, announce];
      },
    ],
    [
      'POST',
      /^\/api\/v1\/hosted\/accounts\/link$/,
      ({ body }) => {
        if (!str(body.api_url) || !str(body.expiresOn)) throw new HttpError(400, 'errors/missing_parameters', 'Missing parameters');
        const link: HostedLink = { id: newId('hl_'), body };
        hostedLinks.set(link.id, link);
        return [201, { object: 'HostedAuthUrl', url: `${deps.baseUrl()}/hosted/${link.id}` }];
      },
    ],
    [
      'POST',
      /^\/api\/v1\/webhooks$/,
      ({ body }) => {
        const requestUrl = str(body.request_url);
        const source = str(body.source);
        if (!requestUrl || !source) throw new HttpError(400, 'errors/missing_parameters', 'Missing parameters');
        const headers = Array.isArray(body.headers)
          ? (body.headers as { key?: unknown; value?: unknown }[]).map((header) => ({ key: String(header.key), value: String(header.value) }))
          : [];
        const webhook: Webhook = { id: newId('wh_'), requestUrl, source, headers, name: str(body.name) ?? source };
        webhooks.set(webhook.id, webhook);
        return [201, { object: 'WebhookCreated', webhook_id: webhook.id }];
      },
    ],
    [
      'GET',
      /^\/api\/v1\/webhooks$/,
      () => [
        200,
        {
          object: 'WebhookList',
          items: [...webhooks.values()].map((w) => ({ id: w.id, request_url: w.requestUrl, source: w.source, name: w.name })),
          cursor: null,
        },
      ],
    ],
    [
      'DELETE',
      /^\/api\/v1\/webhooks\/([^/]+)$/,
      ({ params }) => {
        if (!webhooks.delete(params[0] ?? '')) throw notFound('Webhook not found');
        return [200, { object: 'WebhookDeleted' }];
      },
    ],
  ];
}
