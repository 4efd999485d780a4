import { bucketOf } from '../buckets';
import type { Session } from '../accounts/account';
import type { AccountRepository, SessionRepository } from '../accounts/ports';
import { lastUsedIsStale, parseKey, secretMatches } from '../api-keys/api-key';
import type { ApiKeyRepository } from '../api-keys/ports';
import type { Clock } from '../ports';

/** Who is calling, as the authorizer hands it to every handler. */
export interface Caller {
  userId: number;
  workspaceId: number;
  via: 'apiKey' | 'session';
  apiKeyId?: number;
  sessionId?: string;
}

/** Which credentials a route accepts (mirrors AuthMode of the route table, minus `none`). */
export type AcceptedCredentials = 'apiKey' | 'session' | 'apiKeyOrSession';

export interface PresentedCredentials {
  apiKey?: string | undefined;
  sessionToken?: string | undefined;
}

export type AuthOutcome =
  | { ok: true; caller: Caller; usageKey: string | undefined }
  | { ok: false; error: string; message: string };

export interface AuthenticatorDeps {
  keys: Pick<ApiKeyRepository, 'getCredential' | 'recordUse'>;
  sessions: Pick<SessionRepository, 'get'>;
  /** The session's link to its workspace (strongly consistent: a removal takes effect at once). */
  memberships: Pick<AccountRepository, 'getMembership'>;
  tokens: { verify(token: string): Promise<{ userId: number; sessionId: string } | undefined> };
  clock: Clock;
  /**
   * Usage identifiers for session callers on routes that also take API keys. The usage plan
   * needs one for every call; users are spread over this pool by id (see docs/rate-limits.md).
   */
  sessionUsageKeys: readonly string[];
  /**
   * Recording a key's last use failed: the request is still authenticated (last use is
   * bookkeeping, at most once a minute per key), and this says why it was not recorded.
   */
  onRecordUseFailure?: (keyId: number, error: unknown) => void;
}

/**
 * The spec's 401 for a missing key (Authentication, item 4) word for word, also on the routes that
 * take a session as well (docs/api.md says so; the spec's text does not).
 */
const MISSING_KEY = { error: 'Missing API key', message: 'Provide X-API-Key header' };

const FAILURES: Record<AcceptedCredentials, { error: string; message: string }> = {
  apiKey: MISSING_KEY,
  apiKeyOrSession: MISSING_KEY,
  session: {
    error: 'Authentication required',
    message: 'Log in and send the session cookie or an Authorization: Bearer <token> header',
  },
};

/**
 * A session token that no longer opens a session (logged out, expired, forged), where sessions are
 * accepted: said as such, not as a missing API key or a missing session, so the caller logs in again.
 */
const SESSION_REFUSED = {
  error: 'Authentication required',
  message: 'The session has expired or was logged out; log in again',
};

/**
 * A valid session whose user has been removed from the workspace it acts in. The user logs in
 * again (a new session starts in a workspace they still belong to). API keys need no such check:
 * the removal revokes the member's keys for the workspace.
 */
const WORKSPACE_LOST = {
  error: 'Authentication required',
  message: 'You are no longer a member of the workspace this session acts in; log in again',
};

/**
 * Which of the `n` session usage keys a user's sessions count against (spread evenly: see
 * bucketOf; `userId % n` put every user one container signed up on the same key).
 */
export function sessionPoolIndex(userId: number, n: number): number {
  return bucketOf('session-pool', userId, n);
}

/**
 * Checks the presented credentials. An API key costs one strongly consistent GetItem (so a
 * rotated or revoked key fails at once) and, at most once a minute per key, one write of last_used
 * (whose failure never fails the request).
 * Unknown, malformed, revoked and wrong-secret keys all get the same answer. A session costs two
 * strongly consistent GetItems: the session (so logout is immediate) and the user's link to the
 * session's workspace (so a removal from it is).
 */
export function createAuthenticator(deps: AuthenticatorDeps) {
  async function byApiKey(presented: string): Promise<AuthOutcome | undefined> {
    const parsed = parseKey(presented.trim());
    if (!parsed) return undefined;
    const credential = await deps.keys.getCredential(parsed.prefix);
    if (!credential || !secretMatches(parsed.secret, credential.secretHash)) return undefined;
    const now = deps.clock.now();
    if (lastUsedIsStale(credential, now)) {
      try {
        await deps.keys.recordUse(credential, now.toISOString());
      } catch (error) {
        deps.onRecordUseFailure?.(credential.keyId, error);
      }
    }
    return {
      ok: true,
      caller: { userId: credential.userId, workspaceId: credential.workspaceId, via: 'apiKey', apiKeyId: credential.keyId },
      usageKey: credential.usageKeyValue,
    };
  }

  async function bySession(token: string): Promise<AuthOutcome | undefined> {
    const claims = await deps.tokens.verify(token);
    if (!claims) return undefined;
    const session: Session | undefined = await deps.sessions.get(claims.sessionId);
    if (!session || session.userId !== claims.userId) return undefined;
    if (Date.parse(session.expiresAt) <= deps.clock.now().getTime()) return undefined;
    // The link the session was let in by: one made after the session came to this workspace is a
    // later one (the user was removed and added again), which this session does not carry over.
    const membership = await deps.memberships.getMembership(session.userId, session.workspaceId);
    if (!membership || (membership.linkedAt ?? membership.createdAt) > (session.workspaceSince ?? session.createdAt)) return { ok: false, ...WORKSPACE_LOST };
    const pool = deps.sessionUsageKeys;
    return {
      ok: true,
      caller: { userId: session.userId, workspaceId: session.workspaceId, via: 'session', sessionId: session.id },
      usageKey: pool.length > 0 ? pool[sessionPoolIndex(session.userId, pool.length)] : undefined,
    };
  }

  return {
    async authenticate(accepted: AcceptedCredentials, presented: PresentedCredentials): Promise<AuthOutcome> {
      if (accepted !== 'session' && presented.apiKey) {
        return (await byApiKey(presented.apiKey)) ?? { ok: false, ...FAILURES[accepted] };
      }
      if (accepted !== 'apiKey' && presented.sessionToken) {
        return (await bySession(presented.sessionToken)) ?? { ok: false, ...SESSION_REFUSED };
      }
      return { ok: false, ...FAILURES[accepted] };
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
