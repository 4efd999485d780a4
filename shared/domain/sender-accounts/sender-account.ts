import { type ProviderAccount, isActiveStatus } from '../providers/provider';
import { firstUnits, stripControls } from '../validation';

/**
 * A sender account: a network account or a mailbox connected at the provider and registered in a
 * workspace. Its status mirrors the provider's (updated by the provider's account-status webhook).
 */
export type SenderAccountType = 'NETWORK' | 'EMAIL';

export interface SenderAccount {
  id: number;
  workspaceId: number;
  name: string;
  type: SenderAccountType;
  status: string;
  providerAccountId: string;
  /** The provider's own type (LINKEDIN, MAIL, GOOGLE_OAUTH, ...). */
  providerType: string;
  /** The connected user's id at the provider, to recognise the account's own messages. */
  ownProviderUserId: string | null;
  /** How many actions of each kind the account sends per UTC day, across all campaigns; defaults when absent. */
  dailyLimits?: AccountDailyLimits | undefined;
  /**
   * Set by the outreach engine when the provider refused a send for a reason of the account
   * (disconnected, credentials, restricted, quota reached): no campaign sends through it until
   * `until` (a quota: the next UTC day) or, when `until` is null, until the provider reports it
   * active again (the account-status webhook clears it).
   */
  sendingPause?: SendingPause | null | undefined;
  createdAt: string;
  updatedAt: string;
}

export interface SendingPause {
  /** Why, e.g. `errors/disconnected_account` or `errors/limit_exceeded`. */
  reason: string;
  /** ISO time the pause ends by itself; null: until the provider reports the account active. */
  until: string | null;
  /** When the engine paused it. */
  at: string;
}

/** Per-account daily limits, counted in UTC days across every campaign the account sends for. */
export interface AccountDailyLimits {
  emails: number;
  invitations: number;
  networkMessages: number;
}

/**
 * Defaults inside the provider's quotas (docs/engine.md): a warm mailbox sends ~50 cold emails a
 * day safely; the network recommends ~80-100 invitations a week (20 a day) and ~50 messages a day.
 */
export const DEFAULT_ACCOUNT_DAILY_LIMITS: AccountDailyLimits = { emails: 50, invitations: 20, networkMessages: 50 };
/** The most PATCH accepts: a Google Workspace mailbox sends 2,000 a day; the network's own ceilings. */
export const MAX_ACCOUNT_DAILY_LIMITS: AccountDailyLimits = { emails: 2000, invitations: 100, networkMessages: 150 };

export const dailyLimitsOf = (account: SenderAccount): AccountDailyLimits => account.dailyLimits ?? DEFAULT_ACCOUNT_DAILY_LIMITS;

/** The account's sending pause if it still holds at `now` (a timed one runs out by itself); null otherwise. */
export function sendingPauseAt(account: SenderAccount, now: Date): SendingPause | null {
  const pause = account.sendingPause;
  if (!pause) return null;
  return pause.until === null || new Date(pause.until).getTime() > now.getTime() ? pause : null;
}

/** Whether the engine may send through the account at `now`: active at the provider and not paused. */
export function canSendAt(account: SenderAccount, now: Date): boolean {
  return isActiveAccount(account) && sendingPauseAt(account, now) === null;
}

export const MAX_ACCOUNT_NAME_LENGTH = 100;

const EMAIL_PROVIDER_TYPES = new Set(['MAIL', 'GOOGLE_OAUTH', 'GOOGLE', 'OUTLOOK', 'ICLOUD', 'EXCHANGE', 'IMAP']);

/** Our kind of account for a provider type; undefined for types we do not send through (WhatsApp, ...). */
export function senderTypeFor(providerType: string): SenderAccountType | undefined {
  if (providerType === 'LINKEDIN') return 'NETWORK';
  if (EMAIL_PROVIDER_TYPES.has(providerType)) return 'EMAIL';
  return undefined;
}

export const isActiveAccount = (account: SenderAccount): boolean => isActiveStatus(account.status);

export function newSenderAccount(input: {
  id: number;
  workspaceId: number;
  type: SenderAccountType;
  provider: ProviderAccount;
  name?: string | undefined;
  now: string;
}): SenderAccount {
  return {
    id: input.id,
    workspaceId: input.workspaceId,
    // The provider's name is cleaned as a typed one (api.md, "Names"), and never cut inside a character.
    name: firstUnits(input.name?.trim() || stripControls(input.provider.name ?? '') || input.provider.id, MAX_ACCOUNT_NAME_LENGTH),
    type: input.type,
    status: input.provider.status,
    providerAccountId: input.provider.id,
    providerType: input.provider.type,
    ownProviderUserId: input.provider.ownProviderUserId,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/**
 * The account as the API shows it at `now`: its daily limits (the defaults when none were set) and
 * its sending pause while it holds (a timed pause that ran out shows as null).
 */
export function toSenderAccountView(account: SenderAccount, now: Date) {
  const limits = dailyLimitsOf(account);
  const pause = sendingPauseAt(account, now);
  return {
    id: account.id,
    name: account.name,
    type: account.type,
    status: account.status,
    is_active: isActiveAccount(account),
    provider_account_id: account.providerAccountId,
    provider_type: account.providerType,
    daily_limits: { emails: limits.emails, invitations: limits.invitations, network_messages: limits.networkMessages },
    sending_paused: pause && { reason: pause.reason, until: pause.until, at: pause.at },
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}
