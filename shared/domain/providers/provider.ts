/**
 * The network/email provider as the domain sees it: a small port over the provider's API (a
 * Unipile-style service that holds the connected network accounts and mailboxes). The adapter is
 * shared/providers/unipile-provider.ts; the sandbox provider speaks the same wire protocol.
 */

/** Provider account statuses that count as active (spec: States and transitions). */
export const ACTIVE_ACCOUNT_STATUSES: ReadonlySet<string> = new Set(['OK', 'SYNC_SUCCESS', 'CREATION_SUCCESS', 'RECONNECTED']);

export const isActiveStatus = (status: string): boolean => ACTIVE_ACCOUNT_STATUSES.has(status);

/** Network distance as the provider reports it; null when it does not say. */
export type NetworkDistance = 'FIRST_DEGREE' | 'SECOND_DEGREE' | 'THIRD_DEGREE' | 'OUT_OF_NETWORK';

export interface ProviderAccount {
  id: string;
  name: string;
  /** The provider's type, e.g. LINKEDIN, MAIL, GOOGLE_OAUTH, OUTLOOK. */
  type: string;
  /** The worst status of the account's sources (OK when all are OK). */
  status: string;
  /** The connected user's own id at the provider (to recognise messages the account itself sent). */
  ownProviderUserId: string | null;
}

export interface ProviderProfile {
  providerId: string;
  publicIdentifier: string | null;
  firstName: string | null;
  lastName: string | null;
  networkDistance: NetworkDistance | null;
  /** An invitation from this account is waiting for an answer (not a connection). */
  invitationPending: boolean;
}

/** Why a provider call failed: it answered non-2xx, did not answer in time, or could not be reached. */
export type ProviderFailureKind = 'http' | 'timeout' | 'network';

export class ProviderFailure extends Error {
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
    /** HTTP status when kind is `http`. */
    readonly status?: number,
    /** The provider's error `type`, e.g. `errors/too_many_requests`. */
    readonly type?: string,
  ) {
    super(message);
    this.name = 'ProviderFailure';
  }
}

export const isProviderFailure = (error: unknown): error is ProviderFailure => error instanceof ProviderFailure;

/** A readable one-liner for `details` in error bodies; never the provider's raw body. */
export function describeProviderFailure(failure: ProviderFailure): string {
  if (failure.kind === 'timeout') return failure.message;
  if (failure.kind === 'http') return `The provider answered HTTP ${failure.status}${failure.type ? ` (${failure.type})` : ''}`;
  return 'The provider could not be reached';
}

export interface ConnectLinkRequest {
  /** Which kinds of accounts the hosted page offers. */
  kind: 'NETWORK' | 'EMAIL';
  /** Opaque value the provider hands back to notifyUrl with the new account id. */
  name: string;
  expiresAt: Date;
  notifyUrl?: string | undefined;
  successRedirectUrl?: string | undefined;
  failureRedirectUrl?: string | undefined;
  /** Reconnect this provider account instead of creating a new one. */
  reconnectAccountId?: string | undefined;
}

/**
 * What we ask of the provider. Every call is bounded in time by the adapter and fails with a
 * {@link ProviderFailure}.
 */
export interface NetworkProvider {
  /** A profile as seen from one connected network account (network distance is per account). */
  getProfile(input: { accountId: string; identifier: string }): Promise<ProviderProfile>;
  sendInvitation(input: { accountId: string; providerId: string; message?: string }): Promise<{ invitationId: string }>;
  /** Starts a chat with one attendee (or posts into the existing one); returns the message id. */
  sendMessage(input: { accountId: string; attendeeProviderId: string; text: string }): Promise<{ chatId: string | null; messageId: string | null }>;
  /**
   * A message with this text that the account sent to the attendee at or after `since`, looked up
   * in their chats (`GET /api/v1/chat_attendees/{attendee_id}/chats`, then each chat's
   * `GET /api/v1/chats/{chat_id}/messages?after=`); undefined when there is none. It tells whether
   * a send whose answer was lost (a timeout, a crash) was carried out (docs/engine.md).
   */
  findSentMessage(input: {
    accountId: string;
    attendeeProviderId: string;
    text: string;
    since: string;
    /** Messages known to be another send's (earlier steps of the same text): never this one. */
    exclude?: readonly string[];
  }): Promise<{ chatId: string; messageId: string } | undefined>;
  /** Posts into an existing chat of the account (`POST /api/v1/chats/{chat_id}/messages`); returns the message id. */
  sendChatMessage(input: { accountId: string; chatId: string; text: string }): Promise<{ messageId: string | null }>;
  sendEmail(input: {
    accountId: string;
    to: { email: string; name?: string };
    subject: string;
    htmlBody: string;
    replyTo?: string;
    /** Extra headers of the email; the provider refuses names it does not accept (providers.md 1.6: `X-*`, `Unscribe-List`, `Reply-To`, `Content-Type`). */
    customHeaders?: readonly { name: string; value: string }[];
  }): Promise<{ trackingId: string }>;
  listAccounts(): Promise<ProviderAccount[]>;
  /** undefined when the provider does not know the id. */
  getAccount(accountId: string): Promise<ProviderAccount | undefined>;
  createConnectLink(request: ConnectLinkRequest): Promise<{ url: string }>;
}
