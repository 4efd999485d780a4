import { type ProviderAccount, isActiveStatus } from '../providers/provider';

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
  createdAt: string;
  updatedAt: string;
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
    name: (input.name?.trim() || input.provider.name || input.provider.id).slice(0, MAX_ACCOUNT_NAME_LENGTH),
    type: input.type,
    status: input.provider.status,
    providerAccountId: input.provider.id,
    providerType: input.provider.type,
    ownProviderUserId: input.provider.ownProviderUserId,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

export const toSenderAccountView = (account: SenderAccount) => ({
  id: account.id,
  name: account.name,
  type: account.type,
  status: account.status,
  is_active: isActiveAccount(account),
  provider_account_id: account.providerAccountId,
  provider_type: account.providerType,
  created_at: account.createdAt,
  updated_at: account.updatedAt,
});
