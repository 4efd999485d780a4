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
 * change their status, set a profile's network distance, make calls fail (HTTP status, 429, or a
 * hang), accept an invitation, make a prospect reply, complete a hosted-connect page. The last
 * four post the provider's webhooks to the registered URLs exactly as the real provider would.
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

export interface Fault {
  /** Only calls with this method (any when unset). */
  method?: string;
  /** Only calls whose path starts with this (any when unset), e.g. `/api/v1/users/`. */
  path?: string;
  /** `status`: answer with `status`; `rate_limit`: 429 too_many_requests; `timeout`: never answer. */
  kind: 'status' | 'rate_limit' | 'timeout';
  status?: number;
  /** How many matching calls fail; unset or 0: until the faults are cleared. */
  times?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  at: string;
}

export interface SentItem {
  kind: 'invitation' | 'chat' | 'message' | 'email';
  accountId: string;
  to: string;
  text: string;
  subject?: string;
  at: string;
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

const newId = (prefix: string) => `${prefix}${randomBytes(8).toString('hex')}`;

/** A stable default distance for a profile nobody configured, so demos show some variety. */
function defaultDistance(identifier: string): Distance {
  const byte = createHash('sha256').update(identifier).digest()[0] ?? 0;
  return DISTANCES[byte % DISTANCES.length] as Distance;
}

const titleCase = (word: string) => (word ? `${word[0]?.toUpperCase()}${word.slice(1)}` : word);

export async function startSandboxProvider(options: SandboxProviderOptions): Promise<SandboxProvider> {
  const log = options.log ?? (() => {});
  const retryDelays = options.webhookRetryDelaysMs ?? [2_000, 4_000, 8_000, 16_000, 32_000];
  const accounts = new Map<string, SandboxAccount>();
  const profiles = new Map<string, Profile>();
  const invitations = new Map<string, Invitation>();
  const webhooks = new Map<string, Webhook>();
  const hostedLinks = new Map<string, HostedLink>();
  const sent: SentItem[] = [];
  const requests: RecordedRequest[] = [];
  let faults: (Fault & { remaining: number | null })[] = [];
  const timers = new Set<NodeJS.Timeout>();
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
    invitations.clear();
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
    const found = profiles.get(identifier) ?? [...profiles.values()].find((profile) => profile.providerId === identifier);
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
    return profile;
  }

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
    const pending = [...invitations.values()].some(
      (invitation) => invitation.accountId === accountId && invitation.providerId === profile.providerId && invitation.status === 'PENDING',
    );
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

  type Handler = (ctx: { params: string[]; query: Record<string, string>; body: Record<string, unknown> }) => Promise<[number, unknown]> | [number, unknown];

  const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

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
        const pending = [...invitations.values()].some(
          (i) => i.accountId === account.id && i.providerId === profile.providerId && i.status === 'PENDING',
        );
        if (pending) throw new HttpError(422, 'errors/already_invited_recently', 'Already invited recently');
        const invitation: Invitation = {
          id: newId('inv_'),
          accountId: account.id,
          providerId: profile.providerId,
          publicIdentifier: profile.publicIdentifier,
          message,
          status: 'PENDING',
        };
        invitations.set(invitation.id, invitation);
        sent.push({ kind: 'invitation', accountId: account.id, to: profile.providerId, text: message ?? '', at: now() });
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
        for (const attendee of attendees) {
          const profile = profileFor(attendee, false);
          if (!profile || distanceOf(profile, account.id) !== 'FIRST_DEGREE') {
            throw new HttpError(422, 'errors/no_connection_with_recipient', 'Recipient cannot be reached');
          }
        }
        const chatId = newId('chat_');
        const messageId = newId('msg_');
        sent.push({ kind: 'chat', accountId: account.id, to: attendees.join(','), text, at: now() });
        return [201, { object: 'ChatStarted', chat_id: chatId, message_id: messageId }];
      },
    ],
    [
      'POST',
      /^\/api\/v1\/chats\/([^/]+)\/messages$/,
      ({ params, body }) => {
        const accountId = str(body.account_id) ?? [...accounts.values()][0]?.id ?? '';
        sent.push({ kind: 'message', accountId, to: params[0] ?? '', text: String(body.text ?? ''), at: now() });
        return [201, { object: 'MessageSent', message_id: newId('msg_') }];
      },
    ],
    [
      'POST',
      /^\/api\/v1\/emails$/,
      ({ body }) => {
        const account = activeAccount(body.account_id);
        if (account.type === 'LINKEDIN') throw new HttpError(422, 'errors/invalid_account', 'Invalid account', 'Not a mailbox');
        let to: { identifier?: string }[] = [];
        try {
          to = JSON.parse(String(body.to ?? '[]'));
        } catch {
          throw new HttpError(400, 'errors/invalid_parameters', 'Invalid parameters', 'to must be a JSON array');
        }
        if (!Array.isArray(to) || to.length === 0) throw new HttpError(400, 'errors/missing_parameters', 'Missing parameters', 'to');
        sent.push({
          kind: 'email',
          accountId: account.id,
          to: to.map((attendee) => attendee.identifier).join(','),
          subject: String(body.subject ?? ''),
          text: String(body.body ?? ''),
          at: now(),
        });
        return [201, { object: 'EmailSent', tracking_id: newId('trk_') }];
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
        if (kind !== 'status' && kind !== 'rate_limit' && kind !== 'timeout') {
          throw new HttpError(400, 'errors/invalid_parameters', 'kind must be status, rate_limit or timeout');
        }
        const times = typeof body.times === 'number' && body.times > 0 ? body.times : null;
        const fault = {
          kind,
          ...(str(body.method) ? { method: String(body.method).toUpperCase() } : {}),
          ...(str(body.path) ? { path: String(body.path) } : {}),
          ...(typeof body.status === 'number' ? { status: body.status } : {}),
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
          chat_id: str(body.chat_id) ?? newId('chat_'),
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
    if (!isControl) {
      requests.push({ method, path: url.pathname, query, at: now() });
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
      if (fault?.kind === 'status') {
        const status = fault.status ?? 500;
        throw new HttpError(status, status >= 500 ? 'errors/provider_error' : 'errors/invalid_request', 'Sandbox fault', `Injected HTTP ${status}`);
      }
    }
    const found = match(isControl ? controlRoutes : providerRoutes, method, url.pathname);
    if (!found) throw notFound(`No route ${method} ${url.pathname}`);
    const body = await parseBody(req, raw);
    const [status, payload] = await found.handler({ params: found.params, query, body });
    send(res, status, payload);
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
    return this.call<{ accounts: SandboxAccount[]; invitations: Invitation[]; sent: SentItem[]; webhooks: { id: string; request_url: string; source: string }[] }>(
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

  /** Makes matching provider calls fail: an HTTP status, a 429, or no answer at all. */
  addFault(fault: Fault) {
    return this.call<Fault>('POST', '/_sandbox/faults', fault);
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
