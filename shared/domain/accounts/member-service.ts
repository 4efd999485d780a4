import type { KeyRevoker } from '../api-keys/api-key-service';
import { conflict, forbidden, notFound } from '../errors';
import type { Clock } from '../ports';
import { type Membership, type WorkspaceRole, normalizeEmail } from './account';
import type { AccountRepository } from './ports';

export interface MemberServiceDeps {
  accounts: Pick<AccountRepository, 'findUserByEmail' | 'getMembership' | 'listMembers' | 'getUsers' | 'addMember' | 'removeMember'>;
  keys: Pick<KeyRevoker, 'revokeInWorkspace'>;
  clock: Clock;
}

/** A user linked to a workspace, as the members routes show it. */
export interface Member {
  userId: number;
  email: string;
  role: WorkspaceRole;
}

/**
 * A workspace's members: its owner (who created it) links other existing users to it as
 * `MEMBER`s and unlinks them; a member may unlink themselves (leave). Any member may list them.
 * A workspace the caller is not linked to, an id that names no workspace and a member's attempt
 * to manage others all get the same 403, so nothing tells whether a workspace exists.
 */
export function createMemberService(deps: MemberServiceDeps) {
  /** The caller's link to the workspace; 403 without one, or without ownership when `owner`. */
  async function linkOf(callerId: number, workspaceId: number | undefined, need: 'member' | 'owner'): Promise<Membership> {
    const link = workspaceId === undefined ? undefined : await deps.accounts.getMembership(callerId, workspaceId);
    if (!link || (need === 'owner' && link.role !== 'OWNER')) throw forbidden();
    return link;
  }

  /**
   * A member's removal of themselves: an owner links any user without asking them, who would
   * otherwise stay linked (the workspace's campaigns in their ALL views, its replies at their
   * webhook) until the owner unlinked them (a probe, 2026-11-29). As a removal: the link first,
   * then their keys there. A leave cut off between the two is finished by repeating it: the keys
   * are revoked all the same, and the answer is then a stranger's 403. The owner cannot leave.
   */
  async function leave(userId: number, workspaceId: number | undefined): Promise<void> {
    if (workspaceId === undefined) throw forbidden();
    const link = await deps.accounts.getMembership(userId, workspaceId);
    if (link?.role === 'OWNER') throw conflict('The workspace owner cannot be removed');
    if (link) await deps.accounts.removeMember(userId, workspaceId);
    await deps.keys.revokeInWorkspace(userId, workspaceId);
    if (!link) throw forbidden();
  }

  return {
    /** The workspace's members, its owner first, then by user id. */
    async list(callerId: number, workspaceId: number | undefined): Promise<Member[]> {
      const link = await linkOf(callerId, workspaceId, 'member');
      const memberships = await deps.accounts.listMembers(link.workspaceId);
      const emails = new Map((await deps.accounts.getUsers(memberships.map((m) => m.userId))).map((user) => [user.id, user.email]));
      const members = memberships.map((membership): Member => {
        const email = emails.get(membership.userId);
        // Users are never deleted: a link without its user is a broken table, not an empty email.
        if (email === undefined) throw new Error(`Workspace ${membership.workspaceId} links user ${membership.userId}, who does not exist`);
        return { userId: membership.userId, email, role: membership.role };
      });
      const rank = (member: Member) => (member.role === 'OWNER' ? 0 : 1);
      return members.sort((a, b) => rank(a) - rank(b) || a.userId - b.userId);
    },

    /** Links an existing user, found by email, as a `MEMBER`. */
    async add(callerId: number, workspaceId: number | undefined, email: string): Promise<Member> {
      const owner = await linkOf(callerId, workspaceId, 'owner');
      const user = await deps.accounts.findUserByEmail(normalizeEmail(email));
      if (!user) throw notFound('User not found');
      await deps.accounts.addMember({
        userId: user.id,
        workspaceId: owner.workspaceId,
        workspaceName: owner.workspaceName,
        role: 'MEMBER',
        // A link answers as the workspace (GET /workspaces/): its created_at is the workspace's,
        // which the owner's link holds (made with the workspace), not the moment of linking.
        createdAt: owner.createdAt,
        // Sessions from before this link (a removal and a new link) do not carry over (authenticator).
        linkedAt: deps.clock.now().toISOString(),
      });
      return { userId: user.id, email: user.email, role: 'MEMBER' };
    },

    /**
     * Unlinks a member and revokes every API key of theirs that acts in the workspace. The link
     * goes first: from then on no key can be created for the workspace (creation checks the link
     * in its own write), and the strongly consistent listing of the member's keys sees every key
     * made before. Sessions acting in the workspace are refused by the authorizer, which checks
     * the link. A removal interrupted after the link went is finished by repeating it: the answer
     * is then 404, and the keys are revoked all the same.
     */
    async remove(callerId: number, workspaceId: number | undefined, userId: number | undefined): Promise<void> {
      if (userId !== undefined && userId === callerId) return leave(callerId, workspaceId);
      const owner = await linkOf(callerId, workspaceId, 'owner');
      if (userId === undefined) throw notFound('Member not found');
      const target = await deps.accounts.getMembership(userId, owner.workspaceId);
      if (target?.role === 'OWNER') throw conflict('The workspace owner cannot be removed');
      const removed = target ? await deps.accounts.removeMember(userId, owner.workspaceId) : false;
      await deps.keys.revokeInWorkspace(userId, owner.workspaceId);
      if (!removed) throw notFound('Member not found');
    },
  };
}

export type MemberService = ReturnType<typeof createMemberService>;
