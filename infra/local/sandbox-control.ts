import {
  type Chat,
  DISTANCES,
  type Distance,
  type Fault,
  HttpError,
  type HostedLink,
  type Invitation,
  PROVIDER_ERROR_STATUS,
  type Profile,
  type RecordedRequest,
  type Route,
  type SandboxAccount,
  type SentItem,
  type Webhook,
  newId,
  notFound,
  str,
} from './sandbox-shared';
import { type SandboxDns, mailReceivedEvent, mxRecordsOf } from './sandbox-inbound';

/** What the control routes reach of the running sandbox: its state and the operations on it. */
export interface SandboxInternals {
  accounts: Map<string, SandboxAccount>;
  invitations: Map<string, Invitation>;
  pendingInvitations: Map<string, Invitation>;
  chats: Map<string, Chat>;
  webhooks: Map<string, Webhook>;
  hostedLinks: Map<string, HostedLink>;
  sent: SentItem[];
  /** The sandbox DNS resolver's answers (MX records). */
  dns: SandboxDns;
  requests: RecordedRequest[];
  faults: (Fault & { remaining: number | null })[];
  reset(): void;
  addAccount(input: { id?: string; name?: string; type?: string; status?: string }): SandboxAccount;
  profileFor(identifier: string, create?: boolean): Profile | undefined;
  profileView(profile: Profile, accountId: string): unknown;
  emit(source: string, payload: Record<string, unknown>): Promise<{ url: string; status: number | null }[]>;
  openChat(accountId: string, attendees: string[], id?: string): Chat;
  chatWith(accountId: string, attendee: string): Chat;
  pairKey(accountId: string, providerId: string): string;
  now(): string;
  log(line: string): void;
}

/**
 * The sandbox's control API (`/_sandbox/...`, no key): reset, state and request log, accounts and
 * their status, profiles, faults, accepting invitations, replies and hosted-connect completion.
 * docs/integrations.md lists every endpoint.
 */
export function controlRoutes(sandbox: SandboxInternals): Route[] {
  const { accounts, invitations, pendingInvitations, chats, webhooks, hostedLinks, sent, dns, requests, faults } = sandbox;
  const { reset, addAccount, profileFor, profileView, emit, openChat, chatWith, pairKey, now, log } = sandbox;
  return [
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
    // The provider forgets an account (deleted there): calls through it answer 404, as the
    // provider's do for an account it does not know. No webhook: the provider posts none for it.
    'DELETE',
    /^\/_sandbox\/accounts\/([^/]+)$/,
    ({ params }) => {
      if (!accounts.delete(params[0] ?? '')) throw notFound('Account not found');
      return [200, { ok: true }];
    },
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
      // Decoded once already, with the path (a second decoding failed on a slug holding `%`).
      const identifier = params[0] ?? '';
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
      if (kind !== 'status' && kind !== 'error' && kind !== 'rate_limit' && kind !== 'timeout' && kind !== 'lost_answer') {
        throw new HttpError(400, 'errors/invalid_parameters', 'kind must be status, error, rate_limit, timeout or lost_answer');
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
      const skip = body.skip;
      if (skip !== undefined && (typeof skip !== 'number' || !Number.isInteger(skip) || skip < 0)) {
        throw new HttpError(400, 'errors/invalid_parameters', 'skip must be an integer of at least 0');
      }
      const fault = {
        kind,
        ...(str(body.method) ? { method: String(body.method).toUpperCase() } : {}),
        ...(str(body.path) ? { path: String(body.path) } : {}),
        ...(answered === undefined ? {} : { status: answered }),
        ...(type === undefined ? {} : { type }),
        ...(skip ? { skip } : {}),
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
      faults.length = 0;
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
      const channel = str(body.channel) ?? (account.type === 'LINKEDIN' ? 'NETWORK' : 'EMAIL');
      if (channel !== 'NETWORK' && channel !== 'EMAIL') throw new HttpError(400, 'errors/invalid_parameters', 'channel must be NETWORK or EMAIL');
      const kind = str(body.kind) ?? 'reply';
      if (kind !== 'reply' && kind !== 'auto_reply' && kind !== 'bounce') throw new HttpError(400, 'errors/invalid_parameters', 'kind must be reply, auto_reply or bounce');
      const givenId = str(body.message_id);
      if (channel === 'EMAIL') {
        if (account.type === 'LINKEDIN') throw new HttpError(422, 'errors/invalid_account', 'Invalid account', 'Not a mailbox');
        const from = str(body.from);
        if (!from?.includes('@')) throw new HttpError(400, 'errors/invalid_parameters', 'from must be the email address of the sender');
        const event = mailReceivedEvent(
          { account, from, threadWith: str(body.thread_with), text: String(body.text ?? ''), kind, providerMessageId: givenId, subject: str(body.subject), at: now(), newId },
          sent.filter((item) => item.kind === 'email'),
        );
        const deliveries = await emit('email', event);
        return [200, { message_id: event.email_id, in_reply_to: event.in_reply_to, deliveries }];
      }
      const profile = profileFor(String(body.from ?? ''));
      if (!profile) throw notFound('User not found');
      const messageId = givenId ?? newId('msg_');
      const chatId = str(body.chat_id);
      // Without a chat id, the prospect answers in the chat the account has with them.
      const chat = chatId ? (chats.get(chatId) ?? openChat(account.id, [profile.providerId], chatId)) : chatWith(account.id, profile.providerId);
      const sender = {
        attendee_id: `att_${profile.providerId}`,
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
      return [200, { message_id: messageId, chat_id: chat.id, deliveries }];
    },
  ],
  [
    'GET',
    /^\/_sandbox\/dns\/mx\/([^/]+)$/,
    ({ params }) => [200, { domain: params[0], records: dns.get(params[0] ?? '') }],
  ],
  [
    'PUT',
    /^\/_sandbox\/dns\/mx\/([^/]+)$/,
    ({ params, body }) => {
      const records = mxRecordsOf(body);
      if (typeof records === 'string') throw new HttpError(400, 'errors/invalid_parameters', records);
      dns.set(params[0] ?? '', records);
      return [200, { domain: params[0], records }];
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
}
