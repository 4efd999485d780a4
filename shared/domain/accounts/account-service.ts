import { randomUUID } from 'node:crypto';
import { decoyPasswordHash, hashPassword, verifyPassword } from '../../security/password';
import { conflict, forbidden, unauthenticated } from '../errors';
import type { Clock, IdGenerator } from '../ports';
import { MAX_PASSWORD_LENGTH, type Membership, type Session, type User, defaultWorkspaceName, normalizeEmail, passwordLength } from './account';
import type { LoginThrottle } from './login-throttle';
import type { AccountRepository, SessionRepository, SessionTokenSigner } from './ports';

export interface AccountServiceDeps {
  accounts: AccountRepository;
  sessions: SessionRepository;
  tokens: SessionTokenSigner;
  ids: IdGenerator;
  clock: Clock;
  sessionTtlDays: number;
  /** Limits failed logins per (email, IP) pair and per IP address. */
  loginThrottle: LoginThrottle;
}

export interface SignedInSession {
  token: string;
  user: User;
  session: Session;
}

/** Sign-up, log-in, log-out and workspaces. */
export function createAccountService(deps: AccountServiceDeps) {
  async function openSession(user: User, workspaceId: number): Promise<SignedInSession> {
    const now = deps.clock.now();
    const expiresAt = new Date(now.getTime() + deps.sessionTtlDays * 86_400_000);
    const session: Session = {
      id: randomUUID(),
      userId: user.id,
      workspaceId,
      createdAt: now.toISOString(),
      expiresAt: expiresAt.toISOString(),
    };
    await deps.sessions.create(session);
    const token = await deps.tokens.sign({ userId: user.id, sessionId: session.id }, expiresAt);
    return { token, user, session };
  }

  return {
    async signUp(input: { email: string; password: string; workspaceName?: string | undefined }) {
      const email = normalizeEmail(input.email);
      if (await deps.accounts.findUserByEmail(email)) throw conflict('An account with this email already exists');
      const now = deps.clock.now().toISOString();
      const [userId, workspaceId] = [await deps.ids.next(), await deps.ids.next()];
      const user: User = { id: userId, email, passwordHash: await hashPassword(input.password), createdAt: now, updatedAt: now };
      const name = input.workspaceName?.trim() || defaultWorkspaceName(email);
      const membership: Membership = { userId, workspaceId, workspaceName: name, role: 'OWNER', createdAt: now };
      await deps.accounts.createUserWithWorkspace(
        user,
        { id: workspaceId, name, ownerId: userId, createdAt: now, updatedAt: now },
        membership,
      );
      return openSession(user, workspaceId);
    },

    /**
     * One answer for an unknown email and a wrong password, in about the same time. Throttled first
     * (before any password hash) per (email, IP address) and per IP address: `sourceIp` is the
     * caller's address as the gateway saw it.
     */
    async logIn(input: { email: string; password: string }, sourceIp: string) {
      const email = normalizeEmail(input.email);
      return deps.loginThrottle.guard(email, sourceIp, async () => {
        const user = await deps.accounts.findUserByEmail(email);
        // A password longer than any account can have is wrong without hashing it (no hash of a huge input).
        const possible = passwordLength(input.password) <= MAX_PASSWORD_LENGTH;
        const passwordOk = possible && (await verifyPassword(input.password, user?.passwordHash ?? (await decoyPasswordHash())));
        if (!user || !passwordOk) throw unauthenticated('Invalid email or password');
        // The first workspace the user owns: being linked to someone else's workspace (with a lower
        // id) does not move where they land.
        const memberships = await deps.accounts.listMemberships(user.id);
        const first = memberships.find((membership) => membership.role === 'OWNER') ?? memberships[0];
        if (!first) throw forbidden('This account has no workspace');
        return openSession(user, first.workspaceId);
      });
    },

    async logOut(sessionId: string): Promise<void> {
      await deps.sessions.delete(sessionId);
    },

    async getUser(userId: number): Promise<User> {
      const user = await deps.accounts.getUser(userId);
      if (!user) throw unauthenticated('Authentication required');
      return user;
    },

    listWorkspaces: (userId: number) => deps.accounts.listMemberships(userId),

    async createWorkspace(userId: number, name: string): Promise<Membership> {
      const now = deps.clock.now().toISOString();
      const workspaceId = await deps.ids.next();
      const membership: Membership = { userId, workspaceId, workspaceName: name.trim(), role: 'OWNER', createdAt: now };
      await deps.accounts.createWorkspace(
        { id: workspaceId, name: membership.workspaceName, ownerId: userId, createdAt: now, updatedAt: now },
        membership,
      );
      return membership;
    },

    /** Switches a session's current workspace; 403 for a workspace not linked to the user. */
    async selectWorkspace(sessionId: string, userId: number, workspaceId: number): Promise<Membership> {
      const membership = await deps.accounts.getMembership(userId, workspaceId);
      if (!membership) throw forbidden();
      await deps.sessions.setWorkspace(sessionId, workspaceId, deps.clock.now().toISOString());
      return membership;
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
