import type { ApiKey, ApiKeyCredential } from './api-key';

/** `not_member`: the user is no longer linked to the key's workspace (nothing written). */
export type CreateOutcome = 'created' | 'limit_reached' | 'not_member';

export interface ApiKeyRepository {
  /** The user's keys; `consistent` for a read that must see a key created a moment ago. */
  listForUser(userId: number, options?: { consistent?: boolean }): Promise<ApiKey[]>;
  get(userId: number, keyId: number): Promise<ApiKey | undefined>;
  /**
   * How many active keys the user holds, as the limit counts them (what `create` checks against).
   * Reading it ahead of `create` only saves work at the limit; `create` is what enforces it.
   */
  activeKeyCount(userId: number): Promise<number>;
  /**
   * Writes record and credential together, claiming one of the user's `maxActiveKeys` slots in
   * the same atomic write, so concurrent creates never go past the limit: `limit_reached` when
   * every slot is taken (nothing written). The same write checks that the user is still linked
   * to the key's workspace (`not_member` when not), so no key outlives a removal from it.
   * ConflictError if the prefix is taken.
   */
  create(key: ApiKey, credential: ApiKeyCredential, maxActiveKeys: number): Promise<CreateOutcome>;
  /**
   * Swaps the credential under a new prefix and updates the record, atomically and only if the
   * record still has `previous.prefix` and is active (a concurrent rotate or revoke wins).
   */
  rotate(previous: ApiKey, next: ApiKey, credential: ApiKeyCredential): Promise<void>;
  /**
   * Deletes the credential, marks the record inactive and frees its slot, atomically and only if
   * the record is still active with `key.prefix`; false (nothing written) when a concurrent
   * rotate or revoke changed it first.
   */
  revoke(key: ApiKey, updatedAt: string): Promise<boolean>;
  getCredential(prefix: string): Promise<ApiKeyCredential | undefined>;
  /** Records a use; callers bound how often (see LAST_USED_WRITE_INTERVAL_MS). */
  recordUse(credential: ApiKeyCredential, usedAt: string): Promise<void>;
}

/**
 * The gateway's usage-plan keys, one per API key, so the gateway can count each key's requests.
 * In AWS: API Gateway keys attached to the usage plan. Locally: the local gateway's buckets.
 */
export interface UsageKeyRegistry extends UsageKeyRetirer {
  /** Creates a usage key (20–128 alphanumerics) attached to the usage plan. */
  issue(label: string): Promise<{ id: string; value: string }>;
}

/** What revoking needs of the usage keys: removing one (the member removal has nothing more). */
export interface UsageKeyRetirer {
  /** Removes a usage key; requests identified by it stop counting and stop passing. */
  retire(id: string): Promise<void>;
}

