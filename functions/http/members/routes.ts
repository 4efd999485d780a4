import type { Member, MemberService } from '../../../shared/domain/accounts/member-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { memberRoutes } from '../../../shared/http/routes/members';

const toMemberView = (member: Member) => ({ user_id: member.userId, email: member.email, role: member.role });

/** A workspace's members: list (any member), add and remove (its owner). */
export function memberHandlers(members: MemberService) {
  return {
    listMembers: async (request) => {
      const list = await members.list(request.caller().userId, request.path().id);
      return json(200, { success: true, members: list.map(toMemberView) });
    },

    addMember: async (request) => {
      const caller = request.caller();
      const member = await members.add(caller.userId, request.path().id, request.body().email);
      return json(201, { success: true, member: toMemberView(member) });
    },

    removeMember: async (request) => {
      const path = request.path();
      await members.remove(request.caller().userId, path.id, path.user_id);
      return json(200, { success: true });
    },
  } satisfies HandlersFor<typeof memberRoutes>;
}
