import { type Clock, systemClock } from '../../shared/time/clock';
/**
 * The sandbox network/email provider: a fake HTTP server speaking the provider's (Unipile API v1)
 * wire protocol for the calls this service makes, so the real adapter and the provider's own SDK
 * run end to end on one machine. Started by `npm start` and by the tests (see local-stack.ts).
 *
 * Provider API (`X-API-KEY` required): accounts (list, get), user profiles with network distance,
 * invitations, chats and messages (multipart), emails (multipart), hosted-connect links and
 * webhook registrations. Errors use the provider's `{status, type, title, detail}` body.
 *
 * Control API (`/_sandbox/...`, no key; for tests and demos, loopback only): create accounts and
 * change their status, set a profile's network distance, make calls fail (an HTTP status, a
 * provider error type, 429, or a hang), accept an invitation, make a prospect reply, complete a
 * hosted-connect page. The last four post the provider's webhooks to the registered URLs exactly
 * as the real provider would; so does every email sent (`mail_sent`, after the send's answer).
 * docs/integrations.md lists every endpoint with curl examples.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';

export type Distance = 'FIRST_DEGREE' | 'SECOND_DEGREE' | 'THIRD_DEGREE' | 'OUT_OF_NETWORK';
const DISTANCES: readonly Distance[] = ['FIRST_DEGREE', 'SECOND_DEGREE', 'THIRD_DEGREE', 'OUT_OF_NETWORK'];

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

interface Profile {
  publicIdentifier: string;
  providerId: string;
  firstName: string;
  lastName: string;
  headline: string;
  /** Distance per account id; `*` for any account not listed. */
  distances: Map<string, Distance>;
}

interface Invitation {
  id: string;
  accountId: string;
  providerId: string;
  publicIdentifier: string;
  message: string | null;
  status: 'PENDING' | 'ACCEPTED';
}

interface Chat {
  id: string;
  accountId: string;
  /** Provider ids of the other attendees. */
  attendees: string[];
}

/** An email the sandbox sent, by email id and provider id (what `reply_to` may name). */
interface SentMail {
  emailId: string;
  messageId: string;
}

interface Webhook {
  id: string;
  requestUrl: string;
  source: string;
  headers: { key: string; value: string }[];
  name: string;
}

interface HostedLink {
  id: string;
  body: Record<string, unknown>;
}

/**
 * The provider's documented error types and the HTTP status each comes with (providers.md §1.2,
 * from the provider's OpenAPI spec). A fault of kind `error` answers the status listed here.
 */
const ERROR_TYPES_BY_STATUS: Readonly<Record<number, readonly string[]>> = {
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
   * too_many_requests; `timeout`: never answer.
   */
  kind: 'status' | 'error' | 'rate_limit' | 'timeout';
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
}

export interface SandboxProvider {
  /** Base URL of the provider API (what PROVIDER_BASE_URL points at). */
  url: string;
  accessToken: string;
  control: SandboxProviderControl;
  stop(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly title: string,
    readonly detail?: string,
  ) {
    super(title);
  }
}

const notFound = (title: string) => new HttpError(404, 'errors/resource_not_found', title);

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** JSON or multipart/form-data (chats, messages and emails are multipart), as a flat record. */
async function parseBody(req: IncomingMessage, raw: Buffer): Promise<Record<string, unknown>> {
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

const MAX_RECORDED_REQUESTS = 1_000;

/** The `custom_headers` field of an email request for the request log: the array as sent, or its text. */
function headersAsSent(field: unknown): { name: string; value: string }[] | string {
  try {
    const parsed: unknown = JSON.parse(String(field));
    if (Array.isArray(parsed)) return parsed.map((entry: { name?: unknown; value?: unknown }) => ({ name: String(entry?.name), value: String(entry?.value) }));
  } catch {
    // kept as text below
  }
  return String(field);
}

const newId = (prefix: string) => `${prefix}${randomBytes(8).toString('hex')}`;

/** A stable default distance for a profile nobody configured, so demos show some variety. */
function defaultDistance(identifier: string): Distance {
  const byte = createHash('sha256').update(identifier).digest()[0] ?? 0;
  return DISTANCES[byte % DISTANCES.length] as Distance;
}

const titleCase = (word: string) => (word ? `${word[0]?.toUpperCase()}${word.slice(1)}` : word);

/** `errors/disconnected_account` to `Disconnected account` (the body's `title`). */
const titleOf = (type: string) => titleCase((type.split('/').pop() ?? type).replaceAll('_', ' '));

/** An email's HTML body as plain text (the webhook's `body_plain`): tags dropped, common entities decoded. */
function plainText(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };
  return html
    .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6])>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => entities[name] ?? '')
    .trim();
}

/** Header names the provider accepts in `custom_headers` (providers.md §1.6). */
const isAllowedHeader = (name: string) => /^x-/i.test(name) || ['unscribe-list', 'reply-to', 'content-type'].includes(name.toLowerCase());

export async function startSandboxProvider(options: SandboxProviderOptions): Promise<SandboxProvider> {
  const log = options.log ?? (() => {});
  const retryDelays = options.webhookRetryDelaysMs ?? [2_000, 4_000, 8_000, 16_000, 32_000];
  const accounts = new Map<string, SandboxAccount>();
  const profiles = new Map<string, Profile>();
  /** The same profiles by provider id (every lookup is by key: a benchmark sends thousands). */
  const profilesByProviderId = new Map<string, Profile>();
  const invitations = new Map<string, Invitation>();
  /** The pending invitation per `${accountId}|${providerId}`. */
  const pendingInvitations = new Map<string, Invitation>();
  const chats = new Map<string, Chat>();
  /** The 1:1 chat per `${accountId}|${attendee provider id}` (a network keeps one conversation per pair). */
  const chatsByPair = new Map<string, Chat>();
  const mails = new Map<string, SentMail>();
  const webhooks = new Map<string, Webhook>();
  const hostedLinks = new Map<string, HostedLink>();
  const sent: SentItem[] = [];
  const requests: RecordedRequest[] = [];
  let faults: (Fault & { remaining: number | null })[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let baseUrl = '';

  const clock = options.clock ?? systemClock;
  const now = () => clock.now().toISOString();

  function addAccount(input: { id?: string; name?: string; type?: string; status?: string }): SandboxAccount {
    const id = input.id ?? newId('sbx-acc-');
    const account: SandboxAccount = {
      id,
      name: input.name ?? `Sandbox ${input.type === 'LINKEDIN' || !input.type ? 'network account' : 'mailbox'} ${id}`,
      type: input.type ?? 'LINKEDIN',
      status: input.status ?? 'OK',
      ownUserId: `ACoSELF${createHash('sha256').update(id).digest('hex').slice(0, 16)}`,
      createdAt: now(),
    };
    accounts.set(id, account);
    return account;
  }

  function reset(): void {
    accounts.clear();
    profiles.clear();
    profilesByProviderId.clear();
    invitations.clear();
    pendingInvitations.clear();
    chats.clear();
    chatsByPair.clear();
    mails.clear();
    hostedLinks.clear();
    sent.length = 0;
    requests.length = 0;
    faults = [];
    addAccount(SANDBOX_DEV_ACCOUNTS.network);
    addAccount(SANDBOX_DEV_ACCOUNTS.mailbox);
  }
  reset();

  /** A profile by public identifier or provider id; unknown public identifiers get a stable made-up profile. */
  function profileFor(identifier: string, create = true): Profile | undefined {
    const found = profiles.get(identifier) ?? profilesByProviderId.get(identifier);
    if (found || !create) return found;
    if (identifier.startsWith('ACo')) return undefined;
    const [first = 'Sandbox', ...rest] = identifier.split('-');
    const profile: Profile = {
      publicIdentifier: identifier,
      providerId: `ACo${createHash('sha256').update(identifier).digest('hex').slice(0, 24)}`,
      firstName: titleCase(first),
      lastName: titleCase(rest.join(' ') || 'Prospect'),
      headline: 'Sandbox profile',
      distances: new Map([['*', defaultDistance(identifier)]]),
    };
    profiles.set(identifier, profile);
    profilesByProviderId.set(profile.providerId, profile);
    return profile;
  }

  const pairKey = (accountId: string, providerId: string) => `${accountId}|${providerId}`;

  function openChat(accountId: string, attendees: string[], id = newId('chat_')): Chat {
    const chat: Chat = { id, accountId, attendees };
    chats.set(id, chat);
    const [only] = attendees;
    if (attendees.length === 1 && only !== undefined && !chatsByPair.has(pairKey(accountId, only))) chatsByPair.set(pairKey(accountId, only), chat);
    return chat;
  }

  /** The account's 1:1 chat with `attendee` (a network keeps one conversation per pair), made on first use. */
  const chatWith = (accountId: string, attendee: string): Chat => chatsByPair.get(pairKey(accountId, attendee)) ?? openChat(accountId, [attendee]);

  const distanceOf = (profile: Profile, accountId: string): Distance =>
    profile.distances.get(accountId) ?? profile.distances.get('*') ?? 'OUT_OF_NETWORK';

  function accountView(account: SandboxAccount) {
    const isNetwork = account.type === 'LINKEDIN';
    return {
      object: 'Account',
      id: account.id,
      name: account.name,
      type: account.type,
      created_at: account.createdAt,
      connection_params: isNetwork
        ? { im: { id: account.ownUserId, publicIdentifier: `${account.id}-self`, username: account.name } }
        : { mail: { id: account.id, username: `${account.id}@sandbox.example` } },
      groups: [],
      sources: [{ id: `${account.id}_${isNetwork ? 'MESSAGING' : 'MAILS'}`, status: account.status }],
    };
  }

  function profileView(profile: Profile, accountId: string) {
    const distance = distanceOf(profile, accountId);
    const pending = pendingInvitations.has(pairKey(accountId, profile.providerId));
    return {
      object: 'UserProfile',
      provider: 'LINKEDIN',
      provider_id: profile.providerId,
      public_identifier: profile.publicIdentifier,
      public_profile_url: `https://www.linkedin.com/in/${profile.publicIdentifier}/`,
      first_name: profile.firstName,
      last_name: profile.lastName,
      headline: profile.headline,
      websites: [],
      is_relationship: distance === 'FIRST_DEGREE',
      network_distance: distance,
      ...(pending ? { invitation: { type: 'SENT', status: 'PENDING' } } : {}),
    };
  }

  function activeAccount(accountId: unknown): SandboxAccount {
    const account = typeof accountId === 'string' ? accounts.get(accountId) : undefined;
    if (!account) throw notFound('Account not found');
    if (!['OK', 'SYNC_SUCCESS', 'CREATION_SUCCESS', 'RECONNECTED'].includes(account.status)) {
      throw new HttpError(401, 'errors/disconnected_account', 'Disconnected account', 'The account must be reconnected');
    }
    return account;
  }

  /** Posts a webhook payload to every registration of `source`, retrying in the background on failure. */
  async function emit(source: string, payload: Record<string, unknown>): Promise<{ url: string; status: number | null }[]> {
    const targets = [...webhooks.values()].filter((webhook) => webhook.source === source);
    return Promise.all(
      targets.map(async (webhook) => {
        const body = JSON.stringify({ ...payload, webhook_name: webhook.name });
        const attempt = async (): Promise<number | null> => {
          try {
            const response = await fetch(webhook.requestUrl, {
              method: 'POST',
              headers: Object.fromEntries(webhook.headers.map((header) => [header.key, header.value])),
              body,
              signal: AbortSignal.timeout(30_000),
            });
            await response.arrayBuffer();
            return response.status;
          } catch (error) {
            log(`sandbox provider: webhook to ${webhook.requestUrl} failed: ${String(error)}`);
            return null;
          }
        };
        const status = await attempt();
        const retry = (index: number) => {
          const delay = retryDelays[index];
          if (delay === undefined) return;
          if (stopped) return;
          const timer = setTimeout(async () => {
            timers.delete(timer);
            const again = await attempt();
            if (again !== 200) retry(index + 1);
          }, delay);
          timers.add(timer);
        };
        // The real provider retries until it gets a 200 within 30 s (5 retries).
        if (status !== 200) retry(0);
        return { url: webhook.requestUrl, status };
      }),
    );
  }

  function takeFault(method: string, path: string): (Fault & { remaining: number | null }) | undefined {
    const fault = faults.find((f) => (!f.method || f.method === method) && (!f.path || path.startsWith(f.path)));
    if (!fault) return undefined;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) faults = faults.filter((f) => f !== fault);
    }
    return fault;
  }

  /** Status, body, and optionally what to do once the answer is sent (webhooks the call causes). */
  type Answer = [number, unknown] | [number, unknown, () => void];
  type Handler = (ctx: { params: string[]; query: Record<string, string>; body: Record<string, unknown> }) => Promise<Answer> | Answer;

  const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

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

  const providerRoutes: [string, RegExp, Handler][] = [
    ['GET', /^\/api\/v1\/accounts$/, () => [200, { object: 'AccountList', items: [...accounts.values()].map(accountView), cursor: null }]],
    [
      'GET',
      /^\/api\/v1\/accounts\/([^/]+)$/,
      ({ params }) => {
        const account = accounts.get(params[0] ?? '');
        if (!account) throw notFound('Account not found');
        return [200, accountView(account)];
      },
    ],
    [
      'GET',
      /^\/api\/v1\/users\/([^/]+)$/,
      ({ params, query }) => {
        const account = activeAccount(query.account_id);
        if (account.type !== 'LINKEDIN') throw new HttpError(422, 'errors/invalid_account', 'Invalid account', 'Not a network account');
        const profile = profileFor(params[0] ?? '');
        if (!profile) throw notFound('User not found');
        return [200, profileView(profile, account.id)];
      },
    ],
    [
      'POST',
      /^\/api\/v1\/users\/invite$/,
      ({ body }) => {
        const account = activeAccount(body.account_id);
        const profile = profileFor(String(body.provider_id ?? ''), false);
        if (!profile) throw new HttpError(422, 'errors/invalid_recipient', 'Invalid recipient');
        const message = str(body.message) ?? null;
        if (message && message.length > 300) throw new HttpError(400, 'errors/too_many_characters', 'Too many characters');
        if (distanceOf(profile, account.id) === 'FIRST_DEGREE') {
          throw new HttpError(422, 'errors/action_already_performed', 'Action already performed', 'Already connected');
        }
        if (pendingInvitations.has(pairKey(account.id, profile.providerId))) {
          throw new HttpError(422, 'errors/already_invited_recently', 'Already invited recently');
        }
        const invitation: Invitation = {
          id: newId('inv_'),
          accountId: account.id,
          providerId: profile.providerId,
          publicIdentifier: profile.publicIdentifier,
          message,
          status: 'PENDING',
        };
        invitations.set(invitation.id, invitation);
        pendingInvitations.set(pairKey(account.id, profile.providerId), invitation);
        sent.push({ kind: 'invitation', accountId: account.id, to: profile.providerId, text: message ?? '', at: now(), invitationId: invitation.id });
        return [200, { object: 'UserInvitationSent', invitation_id: invitation.id }];
      },
    ],
    [
      'POST',
      /^\/api\/v1\/chats$/,
      ({ body }) => {
        const account = activeAccount(body.account_id);
        const attendees = [body.attendees_ids].flat().filter((value): value is string => typeof value === 'string');
        const text = String(body.text ?? '');
        const providerIds = attendees.map((attendee) => {
          const profile = profileFor(attendee, false);
          if (!profile || distanceOf(profile, account.id) !== 'FIRST_DEGREE') {
            throw new HttpError(422, 'errors/no_connection_with_recipient', 'Recipient cannot be reached');
          }
          return profile.providerId;
        });
        // A 1:1 conversation continues in the pair's existing chat, as on the network.
        const [only] = providerIds;
        const chat = providerIds.length === 1 && only !== undefined ? chatWith(account.id, only) : openChat(account.id, providerIds);
        const messageId = newId('msg_');
        sent.push({ kind: 'chat', accountId: account.id, to: attendees.join(','), text, at: now(), chatId: chat.id, messageId });
        return [201, { object: 'ChatStarted', chat_id: chat.id, message_id: messageId }];
      },
    ],
    [
      'POST',
      /^\/api\/v1\/chats\/([^/]+)\/messages$/,
      ({ params, body }) => {
        const chatId = params[0] ?? '';
        const chat = chats.get(chatId);
        const given = str(body.account_id);
        // account_id guards against posting into another account's chat.
        if (chat && given && given !== chat.accountId) {
          throw new HttpError(403, 'errors/account_mismatch', 'Account mismatch', 'The chat belongs to another account');
        }
        if (chat) activeAccount(chat.accountId);
        // A chat the sandbox never saw (it accepts any id): the account given, else the first one.
        const accountId = chat?.accountId ?? given ?? accounts.keys().next().value ?? '';
        const messageId = newId('msg_');
        sent.push({ kind: 'message', accountId, to: chatId, text: String(body.text ?? ''), at: now(), chatId, messageId });
        return [201, { object: 'MessageSent', message_id: messageId }];
      },
    ],
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
        return [201, { object: 'HostedAuthUrl', url: `${baseUrl}/hosted/${link.id}` }];
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

  const controlRoutes: [string, RegExp, Handler][] = [
    [
      'POST',
      /^\/_sandbox\/reset$/,
      () => {
        reset();
        return [200, { ok: true }];
      },
    ],
    [
      'GET',
      /^\/_sandbox\/state$/,
      () => [
        200,
        {
          accounts: [...accounts.values()],
          invitations: [...invitations.values()],
          sent,
          webhooks: [...webhooks.values()].map((w) => ({ id: w.id, request_url: w.requestUrl, source: w.source })),
          faults,
        },
      ],
    ],
    ['GET', /^\/_sandbox\/requests$/, () => [200, { requests }]],
    [
      'DELETE',
      /^\/_sandbox\/requests$/,
      () => {
        requests.length = 0;
        return [200, { ok: true }];
      },
    ],
    [
      'POST',
      /^\/_sandbox\/accounts$/,
      ({ body }) => [
        201,
        addAccount({
          ...(str(body.id) ? { id: str(body.id) } : {}),
          ...(str(body.name) ? { name: str(body.name) } : {}),
          ...(str(body.type) ? { type: str(body.type) } : {}),
          ...(str(body.status) ? { status: str(body.status) } : {}),
        }),
      ],
    ],
    [
      'POST',
      /^\/_sandbox\/accounts\/([^/]+)\/status$/,
      async ({ params, body }) => {
        const account = accounts.get(params[0] ?? '');
        if (!account) throw notFound('Account not found');
        const status = str(body.status);
        if (!status) throw new HttpError(400, 'errors/missing_parameters', 'status is required');
        account.status = status;
        const deliveries = await emit('account_status', {
          AccountStatus: { account_id: account.id, account_type: account.type, message: status },
        });
        return [200, { account, deliveries }];
      },
    ],
    [
      'PUT',
      /^\/_sandbox\/profiles\/([^/]+)$/,
      ({ params, body }) => {
        const identifier = decodeURIComponent(params[0] ?? '');
        const profile = profileFor(identifier);
        if (!profile) throw notFound('User not found');
        const distance = body.network_distance;
        if (distance !== undefined) {
          if (typeof distance !== 'string' || !DISTANCES.includes(distance as Distance)) {
            throw new HttpError(400, 'errors/invalid_parameters', `network_distance must be one of ${DISTANCES.join(', ')}`);
          }
          profile.distances.set(str(body.account_id) ?? '*', distance as Distance);
        }
        if (str(body.first_name)) profile.firstName = String(body.first_name);
        if (str(body.last_name)) profile.lastName = String(body.last_name);
        return [200, profileView(profile, str(body.account_id) ?? '*')];
      },
    ],
    [
      'POST',
      /^\/_sandbox\/faults$/,
      ({ body }) => {
        const kind = body.kind;
        if (kind !== 'status' && kind !== 'error' && kind !== 'rate_limit' && kind !== 'timeout') {
          throw new HttpError(400, 'errors/invalid_parameters', 'kind must be status, error, rate_limit or timeout');
        }
        const status = body.status;
        if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)) {
          throw new HttpError(400, 'errors/invalid_parameters', 'status must be an HTTP status from 400 to 599');
        }
        const type = body.type;
        if (type !== undefined && (typeof type !== 'string' || type.length === 0)) {
          throw new HttpError(400, 'errors/invalid_parameters', 'type must be a provider error type, e.g. errors/disconnected_account');
        }
        if (type !== undefined && kind !== 'status' && kind !== 'error') {
          throw new HttpError(400, 'errors/invalid_parameters', 'type goes with kind status or error');
        }
        let answered = status;
        if (kind === 'error') {
          if (type === undefined) throw new HttpError(400, 'errors/missing_parameters', 'kind error needs a type');
          const documented = PROVIDER_ERROR_STATUS.get(type);
          if (documented === undefined) throw new HttpError(400, 'errors/invalid_parameters', `Unknown provider error type ${type}`);
          if (status !== undefined) throw new HttpError(400, 'errors/invalid_parameters', 'kind error picks the status: use kind status to choose one');
          answered = documented;
        }
        if (kind === 'status' && answered === undefined) answered = (type === undefined ? undefined : PROVIDER_ERROR_STATUS.get(type)) ?? 500;
        const times = typeof body.times === 'number' && body.times > 0 ? body.times : null;
        const fault = {
          kind,
          ...(str(body.method) ? { method: String(body.method).toUpperCase() } : {}),
          ...(str(body.path) ? { path: String(body.path) } : {}),
          ...(answered === undefined ? {} : { status: answered }),
          ...(type === undefined ? {} : { type }),
          remaining: times,
        } as Fault & { remaining: number | null };
        faults.push(fault);
        return [201, fault];
      },
    ],
    [
      'DELETE',
      /^\/_sandbox\/faults$/,
      () => {
        faults = [];
        return [200, { ok: true }];
      },
    ],
    [
      'POST',
      /^\/_sandbox\/invitations\/([^/]+)\/accept$/,
      async ({ params }) => {
        const invitation = invitations.get(params[0] ?? '');
        if (!invitation) throw notFound('Invitation not found');
        const account = accounts.get(invitation.accountId);
        const profile = profileFor(invitation.providerId, false);
        invitation.status = 'ACCEPTED';
        const key = pairKey(invitation.accountId, invitation.providerId);
        if (pendingInvitations.get(key) === invitation) pendingInvitations.delete(key);
        profile?.distances.set(invitation.accountId, 'FIRST_DEGREE');
        const deliveries = await emit('users', {
          event: 'new_relation',
          account_id: invitation.accountId,
          account_type: account?.type ?? 'LINKEDIN',
          timestamp: now(),
          user_full_name: profile ? `${profile.firstName} ${profile.lastName}` : '',
          user_provider_id: invitation.providerId,
          user_public_identifier: invitation.publicIdentifier,
          user_profile_url: `https://www.linkedin.com/in/${invitation.publicIdentifier}/`,
          user_picture_url: null,
        });
        return [200, { invitation, deliveries }];
      },
    ],
    [
      'POST',
      /^\/_sandbox\/replies$/,
      async ({ body }) => {
        const account = accounts.get(String(body.account_id ?? ''));
        if (!account) throw notFound('Account not found');
        const profile = profileFor(String(body.from ?? ''));
        if (!profile) throw notFound('User not found');
        const messageId = newId('msg_');
        const chatId = str(body.chat_id);
        // Without a chat id, the prospect answers in the chat the account has with them.
        const chat = chatId ? (chats.get(chatId) ?? openChat(account.id, [profile.providerId], chatId)) : chatWith(account.id, profile.providerId);
        const sender = {
          attendee_id: newId('att_'),
          attendee_name: `${profile.firstName} ${profile.lastName}`,
          attendee_provider_id: profile.providerId,
          attendee_profile_url: `https://www.linkedin.com/in/${profile.publicIdentifier}/`,
        };
        const deliveries = await emit('messaging', {
          event: 'message_received',
          account_id: account.id,
          account_type: account.type,
          account_info: { type: account.type, user_id: account.ownUserId },
          chat_id: chat.id,
          timestamp: now(),
          message_id: messageId,
          message: String(body.text ?? ''),
          sender,
          attendees: [sender],
          attachments: [],
          is_sender: false,
        });
        return [200, { message_id: messageId, deliveries }];
      },
    ],
    [
      'POST',
      /^\/_sandbox\/hosted-links\/([^/]+)\/complete$/,
      async ({ params, body }) => {
        const link = hostedLinks.get(params[0] ?? '');
        if (!link) throw notFound('Hosted link not found');
        const reconnect = str(link.body.reconnect_account);
        const providers = link.body.providers;
        const type = str(body.type) ?? (Array.isArray(providers) && !providers.includes('LINKEDIN') ? 'MAIL' : 'LINKEDIN');
        const account = reconnect ? accounts.get(reconnect) : addAccount({ type, ...(str(body.name) ? { name: str(body.name) } : {}) });
        if (!account) throw notFound('Account not found');
        account.status = 'OK';
        const status = reconnect ? 'RECONNECTED' : 'CREATION_SUCCESS';
        const notifyUrl = str(link.body.notify_url);
        let notifyStatus: number | null = null;
        if (notifyUrl) {
          try {
            const response = await fetch(notifyUrl, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ status, account_id: account.id, name: link.body.name ?? null }),
              signal: AbortSignal.timeout(30_000),
            });
            await response.arrayBuffer();
            notifyStatus = response.status;
          } catch (error) {
            log(`sandbox provider: hosted-auth notify failed: ${String(error)}`);
          }
        }
        const deliveries = await emit('account_status', {
          AccountStatus: { account_id: account.id, account_type: account.type, message: status },
        });
        return [200, { account, status, notify_status: notifyStatus, deliveries }];
      },
    ],
  ];

  function match(routes: [string, RegExp, Handler][], method: string, path: string) {
    for (const [routeMethod, pattern, handler] of routes) {
      if (routeMethod !== method) continue;
      const found = pattern.exec(path);
      if (found) return { handler, params: found.slice(1).map((part) => decodeURIComponent(part)) };
    }
    return undefined;
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    const query = Object.fromEntries(url.searchParams);
    const raw = await readBody(req);
    const isControl = url.pathname.startsWith('/_sandbox/');
    if (url.pathname.startsWith('/hosted/')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Sandbox hosted connect</title><p>Sandbox provider: complete this link with POST /_sandbox/hosted-links/&lt;id&gt;/complete.</p>');
      return;
    }
    const recorded: RecordedRequest | undefined = isControl ? undefined : { method, path: url.pathname, query, at: now() };
    if (recorded) {
      requests.push(recorded);
      // A long `npm start` session keeps only the latest calls.
      if (requests.length > MAX_RECORDED_REQUESTS) requests.splice(0, requests.length - MAX_RECORDED_REQUESTS);
      if (req.headers['x-api-key'] !== options.accessToken) {
        throw new HttpError(401, 'errors/missing_credentials', 'Missing credentials', 'Provide a valid X-API-KEY header');
      }
      const fault = takeFault(method, url.pathname);
      if (fault?.kind === 'timeout') return; // never answers; the connection is closed on stop
      if (fault?.kind === 'rate_limit') {
        throw new HttpError(429, 'errors/too_many_requests', 'Too many requests', 'The provider cannot accept more requests now');
      }
      if (fault?.kind === 'status' || fault?.kind === 'error') {
        const status = fault.status ?? 500;
        if (fault.type) throw new HttpError(status, fault.type, titleOf(fault.type), `Injected by a sandbox fault (HTTP ${status})`);
        throw new HttpError(status, status >= 500 ? 'errors/provider_error' : 'errors/invalid_request', 'Sandbox fault', `Injected HTTP ${status}`);
      }
    }
    const found = match(isControl ? controlRoutes : providerRoutes, method, url.pathname);
    if (!found) throw notFound(`No route ${method} ${url.pathname}`);
    const body = await parseBody(req, raw);
    if (recorded && url.pathname === '/api/v1/emails' && body.custom_headers !== undefined) recorded.emailHeaders = headersAsSent(body.custom_headers);
    const [status, payload, afterAnswer] = await found.handler({ params: found.params, query, body });
    send(res, status, payload);
    afterAnswer?.();
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) {
        send(res, error.status, { status: error.status, type: error.type, title: error.title, ...(error.detail ? { detail: error.detail } : {}) });
        return;
      }
      log(`sandbox provider error: ${String(error)}`);
      send(res, 500, { status: 500, type: 'errors/unexpected_error', title: 'Unexpected error' });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  baseUrl = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    accessToken: options.accessToken,
    control: new SandboxProviderControl(baseUrl),
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** A typed client of the sandbox's control API (what tests and demo scripts drive it with). */
export class SandboxProviderControl {
  constructor(readonly baseUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const payload = (await response.json()) as T;
    if (!response.ok) throw new Error(`sandbox control ${method} ${path}: HTTP ${response.status} ${JSON.stringify(payload)}`);
    return payload;
  }

  reset() {
    return this.call<{ ok: true }>('POST', '/_sandbox/reset');
  }

  state() {
    return this.call<{
      accounts: SandboxAccount[];
      invitations: Invitation[];
      sent: SentItem[];
      webhooks: { id: string; request_url: string; source: string }[];
      faults: (Fault & { remaining: number | null })[];
    }>(
      'GET',
      '/_sandbox/state',
    );
  }

  requests() {
    return this.call<{ requests: RecordedRequest[] }>('GET', '/_sandbox/requests').then((r) => r.requests);
  }

  clearRequests() {
    return this.call<{ ok: true }>('DELETE', '/_sandbox/requests');
  }

  createAccount(input: { id?: string; name?: string; type?: string; status?: string } = {}) {
    return this.call<SandboxAccount>('POST', '/_sandbox/accounts', input);
  }

  /** Changes an account's status and posts the provider's account-status webhook. */
  setAccountStatus(accountId: string, status: string) {
    return this.call<{ account: SandboxAccount; deliveries: { url: string; status: number | null }[] }>(
      'POST',
      `/_sandbox/accounts/${encodeURIComponent(accountId)}/status`,
      { status },
    );
  }

  /** Sets a profile's network distance (for one account, or for every account). */
  setProfile(identifier: string, input: { network_distance?: Distance; account_id?: string; first_name?: string; last_name?: string }) {
    return this.call<Record<string, unknown>>('PUT', `/_sandbox/profiles/${encodeURIComponent(identifier)}`, input);
  }

  /**
   * Makes matching provider calls fail: an HTTP status (with a provider error type if given), a
   * provider error type at its documented status (`kind: 'error'`), a 429, or no answer at all.
   * Answers the fault as stored, with the status it will answer.
   */
  addFault(fault: Fault) {
    return this.call<Fault & { remaining: number | null }>('POST', '/_sandbox/faults', fault);
  }

  clearFaults() {
    return this.call<{ ok: true }>('DELETE', '/_sandbox/faults');
  }

  /** Marks an invitation accepted and posts the provider's new_relation webhook. */
  acceptInvitation(invitationId: string) {
    return this.call<{ deliveries: { url: string; status: number | null }[] }>(
      'POST',
      `/_sandbox/invitations/${encodeURIComponent(invitationId)}/accept`,
    );
  }

  /** Makes a prospect reply and posts the provider's message_received webhook. */
  reply(input: { account_id: string; from: string; text: string; chat_id?: string }) {
    return this.call<{ message_id: string; deliveries: { url: string; status: number | null }[] }>('POST', '/_sandbox/replies', input);
  }

  /** Finishes a hosted-connect page: creates (or reconnects) the account and notifies notify_url. */
  completeHostedLink(linkId: string, input: { type?: string; name?: string } = {}) {
    return this.call<{ account: SandboxAccount; status: string; notify_status: number | null }>(
      'POST',
      `/_sandbox/hosted-links/${encodeURIComponent(linkId)}/complete`,
      input,
    );
  }
}

/** A free TCP port on `host` (the local gateway's, chosen before the handlers load). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The provider webhook sources our inbound endpoint handles (or acknowledges, for now). */
export const PROVIDER_WEBHOOK_SOURCES = ['account_status', 'messaging', 'users', 'email'] as const;

/**
 * Registers our inbound endpoint with the provider, through the provider's own webhooks API, the
 * way a deployment is set up: one registration per source, each carrying our shared secret in
 * X-Webhook-Secret (the provider signs nothing in API v1) and a JSON content type.
 */
export async function registerProviderWebhooks(provider: { url: string; accessToken: string }, requestUrl: string, secret: string): Promise<void> {
  for (const source of PROVIDER_WEBHOOK_SOURCES) {
    const response = await fetch(`${provider.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'X-API-KEY': provider.accessToken, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        request_url: requestUrl,
        source,
        name: `outreach-${source}`,
        headers: [
          { key: 'Content-Type', value: 'application/json' },
          { key: 'X-Webhook-Secret', value: secret },
        ],
      }),
    });
    if (response.status !== 201) throw new Error(`Could not register the ${source} webhook with the provider: HTTP ${response.status}`);
  }
}
