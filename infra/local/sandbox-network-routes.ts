import {
  type Chat,
  type Distance,
  HttpError,
  type Invitation,
  type Profile,
  type Route,
  type SandboxAccount,
  type SentItem,
  newId,
  notFound,
  str,
} from './sandbox-shared';

/**
 * The sandbox provider's network routes (sandbox-provider.ts holds the state): its accounts, user
 * profiles with their network distance, invitations, and chats with their messages.
 */
export interface NetworkRouteDeps {
  accounts: Map<string, SandboxAccount>;
  invitations: Map<string, Invitation>;
  /** The pending invitation per `pairKey(accountId, providerId)`. */
  pendingInvitations: Map<string, Invitation>;
  chats: Map<string, Chat>;
  sent: SentItem[];
  now(): string;
  accountView(account: SandboxAccount): unknown;
  activeAccount(accountId: unknown): SandboxAccount;
  profileFor(identifier: string, create?: boolean): Profile | undefined;
  profileView(profile: Profile, accountId: string): unknown;
  distanceOf(profile: Profile, accountId: string): Distance;
  pairKey(accountId: string, providerId: string): string;
  chatWith(accountId: string, attendee: string): Chat;
  openChat(accountId: string, attendees: string[]): Chat;
}

export function networkRoutes(deps: NetworkRouteDeps): Route[] {
  const { accounts, invitations, pendingInvitations, chats, sent, now, accountView, activeAccount, profileFor, profileView, distanceOf, pairKey, chatWith, openChat } = deps;
  return [
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
      'GET',
      /^\/api\/v1\/chat_attendees\/([^/]+)\/chats$/,
      ({ params, query }) => {
        // The attendee by provider id (what the engine knows); the account's chats that include them.
        const attendee = params[0] ?? '';
        const account = query.account_id ? activeAccount(query.account_id) : undefined;
        const items = [...chats.values()]
          .filter((chat) => chat.attendees.includes(attendee) && (!account || chat.accountId === account.id))
          .map((chat) => ({ object: 'Chat', id: chat.id, account_id: chat.accountId, account_type: 'LINKEDIN', provider_id: chat.id, attendee_provider_id: chat.attendees.length === 1 ? attendee : null, type: chat.attendees.length === 1 ? 0 : 1 }));
        return [200, { object: 'ChatList', items, cursor: null }];
      },
    ],
    [
      'GET',
      /^\/api\/v1\/chats\/([^/]+)\/messages$/,
      ({ params, query }) => {
        const chat = chats.get(params[0] ?? '');
        if (!chat) throw notFound('Chat not found');
        const after = query.after ? Date.parse(query.after) : Number.NEGATIVE_INFINITY;
        const limit = Math.min(Math.max(Number(query.limit) || 100, 1), 250);
        // The account's own messages in the chat (what it sent here), newest first; the sandbox
        // keeps no copy of the prospects' messages, which it only delivers as webhooks.
        const items = sent
          .filter((item) => item.chatId === chat.id && (item.kind === 'chat' || item.kind === 'message') && !(Date.parse(item.at) < after))
          .reverse()
          .slice(0, limit)
          .map((item) => ({ object: 'Message', id: item.messageId, chat_id: chat.id, provider_id: item.messageId, account_id: item.accountId, sender_id: item.accountId, text: item.text, attachments: [], timestamp: item.at, is_sender: 1, seen: 0 }));
        return [200, { object: 'MessageList', items, cursor: null }];
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
  ];
}
