import { beforeEach, describe, expect, it } from 'vitest';
import { formatKey, generateKeyMaterial } from '../../../shared/domain/api-keys/api-key';
import { createAuthenticator, sessionPoolIndex } from '../../../shared/domain/auth/authenticator';
import { InMemoryApiKeyRepository, InMemorySessions } from '../../support/fakes/in-memory-api-keys';

const KEY_FAILURE = { ok: false, error: 'Missing API key', message: 'Provide X-API-Key header' };
const SESSION_FAILURE = {
  ok: false,
  error: 'Authentication required',
  message: 'Log in and send the session cookie or an Authorization: Bearer <token> header',
};

describe('authenticator', () => {
  let keys: InMemoryApiKeyRepository;
  let sessions: InMemorySessions;
  /** `userId/workspaceId` of each link between a user and a workspace. */
  let links: Set<string>;
  let now: Date;
  let fullKey: string;
  const tokens = { verify: async (token: string) => (token.startsWith('valid:') ? { userId: 5, sessionId: token.slice(6) } : undefined) };
  let authenticator: ReturnType<typeof createAuthenticator>;

  beforeEach(async () => {
    keys = new InMemoryApiKeyRepository();
    sessions = new InMemorySessions();
    now = new Date('2026-11-21T12:00:00.000Z');
    const material = generateKeyMaterial();
    fullKey = formatKey(material.prefix, material.secret);
    await keys.create(
      { id: 9, userId: 5, workspaceId: 50, name: 'k', prefix: material.prefix, isActive: true, lastUsed: null, createdAt: '', updatedAt: '', usageKeyId: 'u' },
      { prefix: material.prefix, keyId: 9, userId: 5, workspaceId: 50, secretHash: material.secretHash, usageKeyValue: 'gatewayvalue' },
    );
    sessions.sessions.set('s1', { id: 's1', userId: 5, workspaceId: 51, createdAt: '', expiresAt: '2026-11-28T12:00:00.000Z' });
    links = new Set(['5/50', '5/51']);
    const memberships = {
      getMembership: async (userId: number, workspaceId: number) =>
        links.has(`${userId}/${workspaceId}`) ? { userId, workspaceId, workspaceName: 'W', role: 'MEMBER' as const, createdAt: '' } : undefined,
    };
    authenticator = createAuthenticator({
      keys,
      sessions,
      memberships,
      tokens,
      clock: { now: () => now },
      sessionUsageKeys: ['pool0', 'pool1', 'pool2'],
    });
  });

  it('accepts a valid key with the key’s user, workspace and usage key', async () => {
    const outcome = await authenticator.authenticate('apiKey', { apiKey: fullKey });
    expect(outcome).toEqual({
      ok: true,
      caller: { userId: 5, workspaceId: 50, via: 'apiKey', apiKeyId: 9 },
      usageKey: 'gatewayvalue',
    });
  });

  it('gives the same answer for malformed, unknown and wrong-secret keys', async () => {
    const [prefix] = fullKey.split('.');
    for (const apiKey of ['junk', `000000000000.${'a'.repeat(43)}`, `${prefix}.${'b'.repeat(43)}`, undefined]) {
      expect(await authenticator.authenticate('apiKey', { apiKey }), String(apiKey)).toEqual(KEY_FAILURE);
    }
  });

  it('records use on first use and then at most once a minute', async () => {
    await authenticator.authenticate('apiKey', { apiKey: fullKey });
    await authenticator.authenticate('apiKey', { apiKey: fullKey });
    now = new Date(now.getTime() + 59_000);
    await authenticator.authenticate('apiKey', { apiKey: fullKey });
    expect(keys.recordUseCalls).toBe(1);
    now = new Date(now.getTime() + 1_000);
    await authenticator.authenticate('apiKey', { apiKey: fullKey });
    expect(keys.recordUseCalls).toBe(2);
  });

  it('still authenticates a key whose last use cannot be recorded, and says why', async () => {
    const failures: [number, string][] = [];
    const denied = Object.assign(Object.create(keys) as InMemoryApiKeyRepository, {
      recordUse: async () => {
        throw new Error('AccessDeniedException');
      },
    });
    const strict = createAuthenticator({
      keys: denied,
      sessions,
      memberships: { getMembership: async () => undefined },
      tokens,
      clock: { now: () => now },
      sessionUsageKeys: [],
      onRecordUseFailure: (keyId, error) => failures.push([keyId, String(error)]),
    });
    expect(await strict.authenticate('apiKey', { apiKey: fullKey })).toEqual({
      ok: true,
      caller: { userId: 5, workspaceId: 50, via: 'apiKey', apiKeyId: 9 },
      usageKey: 'gatewayvalue',
    });
    expect(failures).toEqual([[9, 'Error: AccessDeniedException']]);
  });

  it('accepts a live session where sessions are allowed, with a pooled usage key chosen by user', async () => {
    const outcome = await authenticator.authenticate('apiKeyOrSession', { sessionToken: 'valid:s1' });
    // sessionPoolIndex(5, 3) = 1
    expect(outcome).toEqual({ ok: true, caller: { userId: 5, workspaceId: 51, via: 'session', sessionId: 's1' }, usageKey: 'pool1' });
    expect(await authenticator.authenticate('apiKey', { sessionToken: 'valid:s1' })).toEqual(KEY_FAILURE);
  });

  it('refuses ended, expired and foreign sessions, saying the session is over, also where a key is accepted too', async () => {
    const refused = { ok: false, error: 'Authentication required', message: 'The session has expired or was logged out; log in again' };
    expect(await authenticator.authenticate('session', { sessionToken: 'valid:gone' })).toEqual(refused);
    sessions.sessions.set('other', { id: 'other', userId: 6, workspaceId: 60, createdAt: '', expiresAt: '2026-11-28T12:00:00.000Z' });
    expect(await authenticator.authenticate('session', { sessionToken: 'valid:other' })).toEqual(refused);
    now = new Date('2026-11-28T12:00:00.000Z');
    expect(await authenticator.authenticate('session', { sessionToken: 'valid:s1' })).toEqual(refused);
    expect(await authenticator.authenticate('apiKeyOrSession', { sessionToken: 'valid:s1' })).toEqual(refused);
    // Nothing presented: the route's own answer.
    expect(await authenticator.authenticate('session', {})).toEqual(SESSION_FAILURE);
    expect(await authenticator.authenticate('apiKeyOrSession', {})).toEqual(KEY_FAILURE);
  });

  it('refuses a session whose user is no longer linked to its workspace, saying so', async () => {
    links.delete('5/51');
    const lost = {
      ok: false,
      error: 'Authentication required',
      message: 'You are no longer a member of the workspace this session acts in; log in again',
    };
    expect(await authenticator.authenticate('apiKeyOrSession', { sessionToken: 'valid:s1' })).toEqual(lost);
    expect(await authenticator.authenticate('session', { sessionToken: 'valid:s1' })).toEqual(lost);
    // The user's key for another workspace still works.
    expect(await authenticator.authenticate('apiKeyOrSession', { apiKey: fullKey })).toMatchObject({ ok: true });
  });

  it('does not let an API key into a session-only route', async () => {
    expect(await authenticator.authenticate('session', { apiKey: fullKey })).toEqual(SESSION_FAILURE);
  });

  it('spreads users over the session pool even when their ids share a residue modulo 64 (one allocator shard)', () => {
    const counts = new Array(8).fill(0);
    for (let k = 0; k < 64; k += 1) counts[sessionPoolIndex(5 + 64 * k, 8)] += 1;
    // `userId % 8` put all 64 on key 5.
    expect(counts).toEqual([9, 8, 9, 5, 8, 14, 4, 7]);
  });
});
