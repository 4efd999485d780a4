import type { Session } from '../../../shared/domain/accounts/account';
import type { ApiKey, ApiKeyCredential } from '../../../shared/domain/api-keys/api-key';
import type { ApiKeyRepository, UsageKeyRegistry } from '../../../shared/domain/api-keys/ports';
import { conflict } from '../../../shared/domain/errors';

/** An in-memory ApiKeyRepository with the same atomicity rules as the DynamoDB one. */
export class InMemoryApiKeyRepository implements ApiKeyRepository {
  readonly records = new Map<string, ApiKey>();
  readonly credentials = new Map<string, ApiKeyCredential>();
  recordUseCalls = 0;
  failNextWrite = false;

  private id = (userId: number, keyId: number) => `${userId}/${keyId}`;

  private maybeFail() {
    if (this.failNextWrite) {
      this.failNextWrite = false;
      throw new Error('write failed');
    }
  }

  async listForUser(userId: number) {
    return [...this.records.values()].filter((key) => key.userId === userId).sort((a, b) => a.id - b.id);
  }
  async get(userId: number, keyId: number) {
    return this.records.get(this.id(userId, keyId));
  }
  async activeKeyCount(userId: number) {
    return (await this.listForUser(userId)).filter((key) => key.isActive).length;
  }
  /** Without a limit for tests that only need a stored key. */
  async create(key: ApiKey, credential: ApiKeyCredential, maxActiveKeys = Number.POSITIVE_INFINITY) {
    this.maybeFail();
    if ((await this.activeKeyCount(key.userId)) >= maxActiveKeys) return 'limit_reached' as const;
    if (this.credentials.has(credential.prefix)) throw conflict('prefix taken');
    this.records.set(this.id(key.userId, key.id), { ...key });
    this.credentials.set(credential.prefix, { ...credential });
    return 'created' as const;
  }
  async rotate(previous: ApiKey, next: ApiKey, credential: ApiKeyCredential) {
    this.maybeFail();
    const current = this.records.get(this.id(previous.userId, previous.id));
    if (!current || current.prefix !== previous.prefix || !current.isActive) throw conflict('changed');
    this.credentials.delete(previous.prefix);
    this.credentials.set(credential.prefix, { ...credential });
    this.records.set(this.id(next.userId, next.id), { ...next });
  }
  async revoke(key: ApiKey, updatedAt: string) {
    this.maybeFail();
    const current = this.records.get(this.id(key.userId, key.id));
    if (!current || current.prefix !== key.prefix || !current.isActive) return false;
    this.credentials.delete(key.prefix);
    this.records.set(this.id(key.userId, key.id), { ...key, isActive: false, updatedAt });
    return true;
  }
  async getCredential(prefix: string) {
    const credential = this.credentials.get(prefix);
    return credential ? { ...credential } : undefined;
  }
  async recordUse(credential: ApiKeyCredential, usedAt: string) {
    this.recordUseCalls += 1;
    const stored = this.credentials.get(credential.prefix);
    if (stored) stored.lastUsedWrittenAt = usedAt;
    const record = this.records.get(this.id(credential.userId, credential.keyId));
    if (record) record.lastUsed = usedAt;
  }
}

export class RecordingUsageKeys implements UsageKeyRegistry {
  issued: string[] = [];
  retired: string[] = [];
  private next = 0;
  async issue() {
    this.next += 1;
    const id = `usage-${this.next}`;
    this.issued.push(id);
    return { id, value: `value${this.next}${'x'.repeat(30)}` };
  }
  async retire(id: string) {
    this.retired.push(id);
  }
}

export class InMemorySessions {
  readonly sessions = new Map<string, Session>();
  async get(id: string) {
    return this.sessions.get(id);
  }
}

export const sequentialIds = (start = 1) => {
  let next = start;
  return { next: async () => next++ };
};
