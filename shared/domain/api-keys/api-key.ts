import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key format: `<prefix>.<secret>`.
 * - prefix: 12 lowercase hex characters, public, the lookup handle shown in listings;
 * - secret: 32 random bytes in base64url (43 characters, 256 bits), shown once, stored only as
 *   its SHA-256. A fast hash is right here: the secret is random, not a password.
 */
export interface ApiKey {
  id: number;
  userId: number;
  workspaceId: number;
  name: string;
  prefix: string;
  isActive: boolean;
  lastUsed: string | null;
  createdAt: string;
  updatedAt: string;
  /** The API Gateway key paired with this key for the usage plan (see docs/rate-limits.md). */
  usageKeyId: string;
}

/** What the authorizer reads to check a presented key: one item, addressed by prefix. */
export interface ApiKeyCredential {
  prefix: string;
  keyId: number;
  userId: number;
  workspaceId: number;
  secretHash: string;
  /** Usage identifier returned to API Gateway (the paired gateway key's value). */
  usageKeyValue: string;
  /** When last_used was last written; bounds writes to one per key per minute. */
  lastUsedWrittenAt?: string;
}

const PREFIX_PATTERN = /^[0-9a-f]{12}$/;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const MAX_API_KEY_NAME_LENGTH = 100;

export function generateKeyMaterial(): { prefix: string; secret: string; secretHash: string } {
  const prefix = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { prefix, secret, secretHash: hashSecret(secret) };
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export const formatKey = (prefix: string, secret: string): string => `${prefix}.${secret}`;

/** Splits a presented key; undefined when it is not of our format (so no lookup is spent on it). */
export function parseKey(presented: string): { prefix: string; secret: string } | undefined {
  const dot = presented.indexOf('.');
  if (dot < 0) return undefined;
  const prefix = presented.slice(0, dot);
  const secret = presented.slice(dot + 1);
  if (!PREFIX_PATTERN.test(prefix) || !SECRET_PATTERN.test(secret)) return undefined;
  return { prefix, secret };
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** last_used is written at most once per this interval per key, never on every request. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export function lastUsedIsStale(credential: ApiKeyCredential, now: Date): boolean {
  if (!credential.lastUsedWrittenAt) return true;
  return now.getTime() - Date.parse(credential.lastUsedWrittenAt) >= LAST_USED_WRITE_INTERVAL_MS;
}

/** The API shape of a key (spec: API key resource); `key` only on create and rotate. */
export function toApiKeyView(key: ApiKey, fullKey?: string) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    is_active: key.isActive,
    last_used: key.lastUsed,
    created_at: key.createdAt,
    updated_at: key.updatedAt,
    ...(fullKey === undefined ? {} : { key: fullKey }),
  };
}
