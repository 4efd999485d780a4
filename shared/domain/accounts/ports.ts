import type { Membership, Session, User, Workspace } from './account';

export interface AccountRepository {
  /** Creates the user, its first workspace and the membership at once; ConflictError if the email is taken. */
  createUserWithWorkspace(user: User, workspace: Workspace, membership: Membership): Promise<void>;
  findUserByEmail(normalizedEmail: string): Promise<User | undefined>;
  getUser(userId: number): Promise<User | undefined>;
  createWorkspace(workspace: Workspace, membership: Membership): Promise<void>;
  /** The user's workspaces, oldest first. */
  listMemberships(userId: number): Promise<Membership[]>;
  getMembership(userId: number, workspaceId: number): Promise<Membership | undefined>;
}

export interface SessionRepository {
  create(session: Session): Promise<void>;
  get(sessionId: string): Promise<Session | undefined>;
  delete(sessionId: string): Promise<void>;
  setWorkspace(sessionId: string, workspaceId: number): Promise<void>;
}

export interface SessionTokenSigner {
  sign(claims: { userId: number; sessionId: string }, expiresAt: Date): Promise<string>;
}
