import { conflict, forbidden, notFound, validationError } from '../errors';
import type { Clock, IdGenerator } from '../ports';
import { type ApiKey, type ApiKeyCredential, formatKey, generateKeyMaterial } from './api-key';
import type { ApiKeyRepository, CreateOutcome, UsageKeyRegistry, UsageKeyRetirer } from './ports';

export interface ApiKeyServiceDeps {
  keys: ApiKeyRepository;
  usageKeys: UsageKeyRegistry;
  ids: IdGenerator;
  clock: Clock;
  /** How many active keys one user may hold; keeps the account-wide gateway key limit in reach. */
  maxActiveKeysPerUser: number;
  onRetireFailure?: (usageKeyId: string, error: unknown) => void;
}

/** Issued keys: the stored key and the full `<prefix>.<secret>` shown once. */
export interface IssuedKey {
  key: ApiKey;
  fullKey: string;
}

const KEY_NOT_FOUND = 'API key not found';
/** Reads of a key that keeps changing under a revoke (rotations in a loop) before giving up. */
const MAX_REVOKE_ATTEMPTS = 3;

export interface KeyRevokerDeps {
  keys: Pick<ApiKeyRepository, 'get' | 'listForUser' | 'revoke'>;
  usageKeys: UsageKeyRetirer;
  clock: Clock;
  onRetireFailure?: (usageKeyId: string, error: unknown) => void;
}

/**
 * Revoking keys: one of a user's keys (the API keys' own route), or every key of a user that acts
 * in one workspace (a member's removal). Needs no usage plan: revoking only retires usage keys.
 */
export function createKeyRevoker(deps: KeyRevokerDeps) {
  /** Retires a usage key without failing the caller's request: a leftover key is harmless, only counted. */
  async function retireQuietly(usageKeyId: string) {
    try {
      await deps.usageKeys.retire(usageKeyId);
    } catch (error) {
      deps.onRetireFailure?.(usageKeyId, error);
    }
  }

  async function ownedKey(userId: number, keyId: number): Promise<ApiKey> {
    const key = await deps.keys.get(userId, keyId);
    if (!key) throw notFound(KEY_NOT_FOUND);
    return key;
  }

  /** Revokes the key in the table (the authorizer refuses it from then on); the usage key to retire, if this call revoked it. */
  async function revokeRecord(userId: number, keyId: number): Promise<string | undefined> {
    // A concurrent rotation changes the key between our read and our write: read it again.
    for (let attempt = 0; attempt < MAX_REVOKE_ATTEMPTS; attempt += 1) {
      const key = await ownedKey(userId, keyId);
      if (!key.isActive) return undefined;
      if (await deps.keys.revoke(key, deps.clock.now().toISOString())) return key.usageKeyId;
    }
    throw conflict('API key changed while revoking, please retry');
  }

  /** Idempotent: revoking a revoked key succeeds and changes nothing. */
  async function revoke(userId: number, keyId: number): Promise<void> {
    const usageKeyId = await revokeRecord(userId, keyId);
    if (usageKeyId !== undefined) await retireQuietly(usageKeyId);
  }

  return {
    retireQuietly,
    ownedKey,
    revoke,

    /**
     * Revokes every active key of the user that acts in the workspace; how many. The listing is
     * strongly consistent, so a key created just before is seen (and none can be created after
     * the user's link to the workspace is gone: creation checks it). Every key is revoked in the
     * table before any usage key is retired: a gateway call can take seconds when throttled, and
     * a removal cut off by its function's timeout must leave orphan gateway keys, never a key
     * that still works (25 keys one after the other could leave the last ones working).
     */
    async revokeInWorkspace(userId: number, workspaceId: number): Promise<number> {
      const keys = await deps.keys.listForUser(userId, { consistent: true });
      const acting = keys.filter((key) => key.isActive && key.workspaceId === workspaceId);
      // One after another: each revocation's transaction updates the user's key counter too, and
      // at once they would only conflict. One that fails does not stop the others (each key left
      // active keeps working: API keys are not checked against the membership), and the usage
      // keys of those revoked are retired before the first error is passed on (a repeated
      // removal revokes what is left).
      const retiring: string[] = [];
      let failure: unknown;
      for (const key of acting) {
        try {
          const usageKeyId = await revokeRecord(userId, key.id);
          if (usageKeyId !== undefined) retiring.push(usageKeyId);
        } catch (error) {
          failure ??= error;
        }
      }
      for (const usageKeyId of retiring) await retireQuietly(usageKeyId);
      if (failure !== undefined) throw failure;
      return acting.length;
    },
  };
}

export type KeyRevoker = ReturnType<typeof createKeyRevoker>;

/** Create, list, rotate and revoke a user's API keys. */
export function createApiKeyService(deps: ApiKeyServiceDeps) {
  const limitReached = () =>
    validationError(`API key limit reached: at most ${deps.maxActiveKeysPerUser} active keys per user`);
  const { retireQuietly, ownedKey, revoke } = createKeyRevoker(deps);

  function credentialFor(key: ApiKey, secretHash: string, usageKeyValue: string): ApiKeyCredential {
    return {
      prefix: key.prefix,
      keyId: key.id,
      userId: key.userId,
      workspaceId: key.workspaceId,
      secretHash,
      usageKeyValue,
    };
  }

  return {
    // Strongly consistent: the list a client reads just after creating, rotating or revoking a key shows it.
    list: (userId: number) => deps.keys.listForUser(userId, { consistent: true }),

    async create(input: { userId: number; workspaceId: number; name: string }): Promise<IssuedKey> {
      // An early answer at the limit, before a gateway key is made for nothing; the conditional
      // write in keys.create is what holds the limit when requests race.
      if ((await deps.keys.activeKeyCount(input.userId)) >= deps.maxActiveKeysPerUser) throw limitReached();
      const id = await deps.ids.next();
      const now = deps.clock.now().toISOString();
      const material = generateKeyMaterial();
      const usageKey = await deps.usageKeys.issue(`key-${id}`);
      const key: ApiKey = {
        id,
        userId: input.userId,
        workspaceId: input.workspaceId,
        name: input.name,
        prefix: material.prefix,
        isActive: true,
        lastUsed: null,
        createdAt: now,
        updatedAt: now,
        usageKeyId: usageKey.id,
      };
      let outcome: CreateOutcome;
      try {
        outcome = await deps.keys.create(key, credentialFor(key, material.secretHash, usageKey.value), deps.maxActiveKeysPerUser);
      } catch (error) {
        await retireQuietly(usageKey.id);
        throw error;
      }
      if (outcome !== 'created') {
        await retireQuietly(usageKey.id);
        // not_member: removed from the workspace while this request was on its way.
        throw outcome === 'limit_reached' ? limitReached() : forbidden();
      }
      return { key, fullKey: formatKey(material.prefix, material.secret) };
    },

    /** New prefix and secret; the old key stops working the moment this returns. */
    async rotate(userId: number, keyId: number): Promise<IssuedKey> {
      const previous = await ownedKey(userId, keyId);
      if (!previous.isActive) throw conflict('API key is revoked and cannot be rotated');
      const material = generateKeyMaterial();
      const usageKey = await deps.usageKeys.issue(`key-${keyId}`);
      let updatedAt = deps.clock.now().toISOString();
      // updated_at must visibly change even when the clock has not ticked since the last write.
      if (updatedAt <= previous.updatedAt) updatedAt = new Date(Date.parse(previous.updatedAt) + 1).toISOString();
      const next: ApiKey = { ...previous, prefix: material.prefix, updatedAt, usageKeyId: usageKey.id };
      try {
        await deps.keys.rotate(previous, next, credentialFor(next, material.secretHash, usageKey.value));
      } catch (error) {
        await retireQuietly(usageKey.id);
        throw error;
      }
      await retireQuietly(previous.usageKeyId);
      return { key: next, fullKey: formatKey(material.prefix, material.secret) };
    },

    /** Idempotent: revoking a revoked key succeeds and changes nothing. */
    revoke,
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
