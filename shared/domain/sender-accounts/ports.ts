import type { SenderAccount } from './sender-account';

export interface SenderAccountRepository {
  /** The workspace's accounts, oldest (lowest id) first. */
  listForWorkspace(workspaceId: number): Promise<SenderAccount[]>;
  get(workspaceId: number, accountId: number): Promise<SenderAccount | undefined>;
  /**
   * Writes the account and its provider-id guard together. Conflict when the provider account is
   * already registered; `existing` tells which workspace holds it.
   */
  create(account: SenderAccount): Promise<{ created: true } | { created: false; existing: { workspaceId: number; accountId: number } }>;
  /** Removes the account and its guard together. */
  remove(account: SenderAccount): Promise<void>;
  findByProviderAccountId(providerAccountId: string): Promise<SenderAccount | undefined>;
  /** Sets the status if the account still exists; false when it does not. */
  updateStatus(account: SenderAccount, status: string, updatedAt: string): Promise<boolean>;
}

/**
 * Signs and checks the opaque `name` handed to the provider's hosted-connect page, so the
 * provider's notification can only register an account in the workspace that asked for the link.
 */
export interface ConnectStateSigner {
  sign(workspaceId: number, expiresAt: Date): string;
  /** The workspace, or undefined when the state is forged, malformed or expired. */
  verify(state: string, now: Date): number | undefined;
}
