/**
 * The sandbox provider's types, error table and request helpers, shared by its server
 * (sandbox-provider.ts), its control routes (sandbox-control.ts) and its client (sandbox-client.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../shared/time/clock';
import type { SandboxProviderControl } from './sandbox-client';

export type Distance = 'FIRST_DEGREE' | 'SECOND_DEGREE' | 'THIRD_DEGREE' | 'OUT_OF_NETWORK';
export const DISTANCES: readonly Distance[] = ['FIRST_DEGREE', 'SECOND_DEGREE', 'THIRD_DEGREE', 'OUT_OF_NETWORK'];

export interface SandboxAccount {
  id: string;
  name: string;
  /** LINKEDIN for network accounts; MAIL, GOOGLE_OAUTH, OUTLOOK for mailboxes. */
  type: string;
  status: string;
  /** The connected user's own provider id (connection_params.im.id). */
  ownUserId: string;
  createdAt: string;
}

export interface Profile {
  publicIdentifier: string;
  providerId: string;
  firstName: string;
  lastName: string;
  headline: string;
  /** Distance per account id; `*` for any account not listed. */
  distances: Map<string, Distance>;
}

export interface Invitation {
  id: string;
  accountId: string;
  providerId: string;
  publicIdentifier: string;
  message: string | null;
  status: 'PENDING' | 'ACCEPTED';
}

export interface Chat {
  id: string;
  accountId: string;
  /** Provider ids of the other attendees. */
  attendees: string[];
}

/** An email the sandbox sent, by email id and provider id (what `reply_to` may name). */
export interface SentMail {
  emailId: string;
  messageId: string;
}

export interface Webhook {
  id: string;
  requestUrl: string;
  source: string;
  headers: { key: string; value: string }[];
  name: string;
}

export interface HostedLink {
  id: string;
  body: Record<string, unknown>;
}

/**
 * The provider's documented error types and the HTTP status each comes with (providers.md §1.2,
 * from the provider's OpenAPI spec). A fault of kind `error` answers the status listed here.
 */
export const ERROR_TYPES_BY_STATUS: Readonly<Record<number, readonly string[]>> = {
  400: [
    'invalid_parameters',
    'invalid_request',
    'malformed_request',
    'content_too_large',
    'invalid_url',
    'too_many_characters',
    'unescaped_characters',
    'missing_parameters',
  ],
  401: [
    'missing_credentials',
    'multiple_sessions',
    'invalid_checkpoint_solution',
    'checkpoint_error',
    'invalid_credentials',
    'expired_credentials',
    'insufficient_privileges',
    'disconnected_account',
    'disconnected_feature',
    'invalid_credentials_but_valid_account_imap',
    'expired_link',
    'wrong_account',
    'captcha_not_supported',
  ],
  403: [
    'account_restricted',
    'account_mismatch',
    'insufficient_permissions',
    'session_mismatch',
    'feature_not_subscribed',
    'subscription_required',
    'unknown_authentication_context',
    'action_required',
    'resource_access_restricted',
  ],
  404: ['resource_not_found', 'invalid_resource_identifier'],
  422: [
    'invalid_account',
    'invalid_recipient',
    'no_connection_with_recipient',
    'blocked_recipient',
    'user_unreachable',
    'unprocessable_entity',
    'action_already_performed',
    'invalid_message',
    'invalid_post',
    'not_allowed_inmail',
    'insufficient_credits',
    'cannot_resend_yet',
    'cannot_resend_within_24hrs',
    'limit_exceeded',
    'already_invited_recently',
    'cannot_invite_attendee',
    'parent_mail_not_found',
    'invalid_reply_subject',
    'invalid_headers',
    'send_as_denied',
    'invalid_folder',
    'invalid_thread',
    'limit_too_high',
    'unauthorized',
    'sender_rejected',
    'recipient_rejected',
    'ip_rejected_by_server',
    'provider_unreachable',
    'account_configuration_error',
    'cant_send_message',
    'realtime_client_not_initialized',
  ],
  429: ['too_many_requests'],
  500: ['unexpected_error', 'provider_error', 'authentication_intent_error'],
  503: ['no_client_session', 'no_channel', 'no_handler', 'network_down', 'service_unavailable'],
  504: ['request_timeout'],
};

/** `errors/<name>` to its documented HTTP status, e.g. `errors/disconnected_account` to 401. */
export const PROVIDER_ERROR_STATUS: ReadonlyMap<string, number> = new Map(
  Object.entries(ERROR_TYPES_BY_STATUS).flatMap(([status, types]) => types.map((type) => [`errors/${type}`, Number(status)] as const)),
);

export interface Fault {
  /** Only calls with this method (any when unset). */
  method?: string;
  /** Only calls whose path starts with this (any when unset), e.g. `/api/v1/users/`. */
  path?: string;
  /**
   * `status`: answer with `status` (and `type` when given); `error`: answer the provider error
   * `type` with its documented status ({@link PROVIDER_ERROR_STATUS}); `rate_limit`: 429
   * too_many_requests; `timeout`: never answer (nothing is carried out); `lost_answer`: carry the
   * call out (send the message, the email...) and never answer, as when a provider's answer is
   * lost on the way back.
   */
  kind: 'status' | 'error' | 'rate_limit' | 'timeout' | 'lost_answer';
  /** An HTTP status from 400 to 599. With kind `status` and no status: the type's documented one, else 500. */
  status?: number;
  /**
   * The provider error `type` in the answer's body, e.g. `errors/disconnected_account` (kinds
   * `status` and `error`). Unset with kind `status`: `errors/provider_error` for a 5xx, else
   * `errors/invalid_request`.
   */
  type?: string;
  /** How many matching calls fail; unset or 0: until the faults are cleared. */
  times?: number;
  /** How many matching calls go through before the fault starts (e.g. a flow's second send of a kind). */
  skip?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  at: string;
  /** `POST /api/v1/emails`: its `custom_headers` field as sent (the JSON array; its text when it is not one), refused or not. */
  emailHeaders?: { name: string; value: string }[] | string;
}

export interface SentItem {
  kind: 'invitation' | 'chat' | 'message' | 'email';
  accountId: string;
  /** Invitation: the invitee's provider id; chat: the attendees' ids; message: the chat id; email: the addresses. */
  to: string;
  /** Email: the recipients' display names as sent (the address when none was). */
  toNames?: string[];
  text: string;
  subject?: string;
  at: string;
  /** The invitation id the invite answered. */
  invitationId?: string;
  /** The chat the message went into (chat and message). */
  chatId?: string;
  /** Chat and message: the provider's message id the send answered; email: its RFC Message-ID (`<...@sandbox.local>`). */
  messageId?: string;
  /** Email: the tracking id the send answered (also in its `mail_sent` webhook). */
  trackingId?: string;
  /** Email: the provider's email id (`id` / `email_id` of its `mail_sent` webhook). */
  emailId?: string;
  /** Email: the `reply_to` field as sent (the email id or provider id of the email replied to). */
  replyTo?: string;
  /** Email: the `custom_headers` as sent. */
  headers?: { name: string; value: string }[];
}

/** The accounts every sandbox starts with (stable ids, so a restarted `npm start` finds them again). */
export const SANDBOX_DEV_ACCOUNTS = {
  network: { id: 'sbx-network-dev', name: 'Sandbox network account', type: 'LINKEDIN' },
  mailbox: { id: 'sbx-mailbox-dev', name: 'Sandbox mailbox', type: 'MAIL' },
} as const;

export interface SandboxProviderOptions {
  port?: number;
  host?: string;
  /** The `X-API-KEY` value the provider API accepts. */
  accessToken: string;
  /** Delays between webhook retries when a receiver does not answer 2xx (5 retries by default). */
  webhookRetryDelaysMs?: readonly number[];
  /** The service's clock: the sandbox stamps what it records with the same time as the service. */
  clock?: Clock;
  log?: (line: string) => void;
  /**
   * A file the accounts are kept in (`npm start`: `.data/sandbox-accounts.json`), so a restart
   * finds the accounts connected before it (the service's table still names them). Everything
   * else of the sandbox's state is in memory.
   */
  accountsFile?: string;
}

export interface SandboxProvider {
  /** Base URL of the provider API (what PROVIDER_BASE_URL points at). */
  url: string;
  accessToken: string;
  control: SandboxProviderControl;
  stop(): Promise<void>;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly title: string,
    readonly detail?: string,
  ) {
    super(title);
  }
}

export const notFound = (title: string) => new HttpError(404, 'errors/resource_not_found', title);

export function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** JSON or multipart/form-data (chats, messages and emails are multipart), as a flat record. */
export async function parseBody(req: IncomingMessage, raw: Buffer): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (raw.length === 0) return {};
  if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://sandbox/', { method: 'POST', headers: { 'content-type': type }, body: raw }).formData();
    const out: Record<string, unknown> = {};
    for (const [key, value] of form.entries()) {
      const text = typeof value === 'string' ? value : `[file ${value.name}]`;
      const previous = out[key];
      out[key] = previous === undefined ? text : [...(Array.isArray(previous) ? previous : [previous]), text];
    }
    return out;
  }
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpError(400, 'errors/malformed_request', 'Malformed request body');
}

export const MAX_RECORDED_REQUESTS = 1_000;

/** The `custom_headers` field of an email request for the request log: the array as sent, or its text. */
export function headersAsSent(field: unknown): { name: string; value: string }[] | string {
  try {
    const parsed: unknown = JSON.parse(String(field));
    if (Array.isArray(parsed)) return parsed.map((entry: { name?: unknown; value?: unknown }) => ({ name: String(entry?.name), value: String(entry?.value) }));
  } catch {
    // kept as text below
  }
  return String(field);
}

export const newId = (prefix: string) => `${prefix}${randomBytes(8).toString('hex')}`;

/** A stable default distance for a profile nobody configured, so demos show some variety. */
export function defaultDistance(identifier: string): Distance {
  const byte = createHash('sha256').update(identifier).digest()[0] ?? 0;
  return DISTANCES[byte % DISTANCES.length] as Distance;
}

export const titleCase = (word: string) => (word ? `${word[0]?.toUpperCase()}${word.slice(1)}` : word);

/** `errors/disconnected_account` to `Disconnected account` (the body's `title`). */
export const titleOf = (type: string) => titleCase((type.split('/').pop() ?? type).replaceAll('_', ' '));

/** An email's HTML body as plain text (the webhook's `body_plain`): tags dropped, common entities decoded. */
export function plainText(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };
  return html
    .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6])>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => entities[name] ?? '')
    .trim();
}

/** Header names the provider accepts in `custom_headers` (providers.md §1.6). */
export const isAllowedHeader = (name: string) => /^x-/i.test(name) || ['unscribe-list', 'reply-to', 'content-type'].includes(name.toLowerCase());

/** A non-empty string, or undefined. */
export const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

export type Answer = [number, unknown] | [number, unknown, () => void];
export type Handler = (ctx: { params: string[]; query: Record<string, string>; body: Record<string, unknown> }) => Promise<Answer> | Answer;
export type Route = [method: string, pattern: RegExp, handler: Handler];
