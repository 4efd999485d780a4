import type { Membership, Session, User, Workspace } from './account';

export interface AccountRepository {
  /** Creates the user, its first workspace and the membership at once; ConflictError if the email is taken. */
  createUserWithWorkspace(user: User, workspace: Workspace, membership: Membership): Promise<void>;
  findUserByEmail(normalizedEmail: string): Promise<User | undefined>;
  getUser(userId: number): Promise<User | undefined>;
  createWorkspace(workspace: Workspace, membership: Membership): Promise<void>;
  /** The user's workspaces, oldest first. */
  listMemberships(userId: number): Promise<Membership[]>;
  /** Strongly consistent: a member removed a moment ago is already gone. */
  getMembership(userId: number, workspaceId: number): Promise<Membership | undefined>;
  /** The workspace's memberships, by user id (gsi1: may lag a moment behind a change). */
  listMembers(workspaceId: number): Promise<Membership[]>;
  /** The users with these ids that exist, in no particular order. */
  getUsers(userIds: readonly number[]): Promise<User[]>;
  /** Links a user to a workspace; ConflictError if the user is already linked. */
  addMember(membership: Membership): Promise<void>;
  /** Unlinks a `MEMBER` (never an owner); false when there was no such member. */
  removeMember(userId: number, workspaceId: number): Promise<boolean>;
}

export interface SessionRepository {
  create(session: Session): Promise<void>;
  get(sessionId: string): Promise<Session | undefined>;
  delete(sessionId: string): Promise<void>;
  /** Moves the session to another workspace, from `at` on (Session.workspaceSince). */
  setWorkspace(sessionId: string, workspaceId: number, at: string): Promise<void>;
}

export interface SessionTokenSigner {
  sign(claims: { userId: number; sessionId: string }, expiresAt: Date): Promise<string>;
}
