import type { AccountDailyLimits, SenderAccount, SendingPause } from './sender-account';

/** What PATCH may change on an account; limits not given keep their value. */
export interface SenderAccountChange {
  name?: string | undefined;
  dailyLimits?: Partial<AccountDailyLimits> | undefined;
  /**
   * Ends the engine's sending pause: for an account fixed without the provider reporting a change
   * (a refusal of our access token, for one). If the account still cannot send, its next send is
   * refused and pauses it again.
   */
  endPause?: boolean | undefined;
}

export interface SenderAccountRepository {
  /** The workspace's accounts, oldest first (by createdAt, then id). */
  listForWorkspace(workspaceId: number): Promise<SenderAccount[]>;
  get(workspaceId: number, accountId: number): Promise<SenderAccount | undefined>;
  /**
   * Writes the account and its provider-id guard together. Conflict when the provider account is
   * already registered; `existing` tells which workspace holds it.
   */
  create(account: SenderAccount): Promise<{ created: true } | { created: false; existing: { workspaceId: number; accountId: number } }>;
  /** Removes the account and its guard together, keeping what `formerAccount` gives back. */
  remove(account: SenderAccount): Promise<void>;
  /** The id, creation time and daily limits (if set) of the workspace's deleted account of this provider account. */
  formerAccount(
    workspaceId: number,
    providerAccountId: string,
  ): Promise<{ accountId: number; createdAt?: string | undefined; dailyLimits?: AccountDailyLimits | undefined } | undefined>;
  findByProviderAccountId(providerAccountId: string): Promise<SenderAccount | undefined>;
  /**
   * Sets the status if the account still exists; false when it does not. With `clearPause`, the
   * same write removes that sending pause if it is still the stored one (a pause set since stays).
   */
  updateStatus(account: SenderAccount, status: string, updatedAt: string, clearPause?: SendingPause): Promise<boolean>;
  /**
   * Applies the change to the stored account: the given limits replace only their own values (the
   * others keep theirs, or the defaults when none were stored). The account as stored afterwards;
   * undefined when it no longer exists.
   */
  updateSettings(account: SenderAccount, change: SenderAccountChange, updatedAt: string): Promise<SenderAccount | undefined>;
  /** Sets the account's sending pause (replacing any) if the account still exists; false when it does not. */
  pauseSending(account: SenderAccount, pause: SendingPause, updatedAt: string): Promise<boolean>;
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
