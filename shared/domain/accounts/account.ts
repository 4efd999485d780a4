/** Users, workspaces and the links between them. */
export interface User {
  id: number;
  email: string;
  passwordHash: string;
  createdAt: string;
  updatedAt: string;
}

export interface Workspace {
  id: number;
  name: string;
  ownerId: number;
  createdAt: string;
  updatedAt: string;
}

export type WorkspaceRole = 'OWNER' | 'MEMBER';

export interface Membership {
  userId: number;
  workspaceId: number;
  workspaceName: string;
  role: WorkspaceRole;
  /** The workspace's creation (what GET /workspaces/ answers as the link's created_at). */
  createdAt: string;
  /** When this user was linked (absent on links made before 2026-11-27 and on an owner's: `createdAt`). */
  linkedAt?: string;
}

export interface Session {
  id: string;
  userId: number;
  /** The workspace the session acts in; starts as the user's first workspace. */
  workspaceId: number;
  createdAt: string;
  expiresAt: string;
  /**
   * When the session began acting in `workspaceId` (a select moves it; absent: `createdAt`). A
   * membership made after it is not the one this session was let in by (docs/api.md).
   */
  workspaceSince?: string;
}

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * UTF-16 code units past which a password is too long whatever its graphemes: 16 a character, above
 * the longest emoji sequences. Counting graphemes of a body-sized string (260,000 characters) took
 * seconds and, at login, the whole heap (a probe, 2026-11-29), so such a string is never counted.
 */
const MAX_PASSWORD_CODE_UNITS = MAX_PASSWORD_LENGTH * 16;

/**
 * A password's length as a person counts it: graphemes (an emoji is one character); past
 * MAX_PASSWORD_CODE_UNITS, uncounted, only known to be over MAX_PASSWORD_LENGTH.
 */
export const passwordLength = (password: string): number =>
  password.length > MAX_PASSWORD_CODE_UNITS ? Number.POSITIVE_INFINITY : [...new Intl.Segmenter().segment(password)].length;
export const MAX_WORKSPACE_NAME_LENGTH = 100;

/** Emails are compared lower-cased and trimmed. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export const defaultWorkspaceName = (email: string): string => `${email.split('@')[0] ?? 'My'}'s workspace`;

export const toUserView = (user: User) => ({ id: user.id, email: user.email, created_at: user.createdAt });

export const toWorkspaceView = (membership: Membership, currentWorkspaceId?: number) => ({
  id: membership.workspaceId,
  name: membership.workspaceName,
  role: membership.role,
  created_at: membership.createdAt,
  ...(currentWorkspaceId === undefined ? {} : { is_current: membership.workspaceId === currentWorkspaceId }),
});
