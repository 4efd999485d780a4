import * as v from 'valibot';
import { Email } from './auth';
import { Id, Success, defineRoute, idOrNone } from './define';

export const AddMemberBody = v.object({ email: Email });

const MemberView = v.strictObject({ user_id: Id, email: v.string(), role: v.picklist(['OWNER', 'MEMBER']) });

const workspacePath = v.object({ id: idOrNone });

/**
 * A workspace's members. Its owner links other existing users to it and unlinks them; a member
 * may unlink themselves; any member lists them. Not linked to the workspace (or no such workspace): 403 `Access denied`.
 */
export const memberRoutes = {
  listMembers: defineRoute('members', {
    method: 'GET',
    path: '/workspaces/{id}/members',
    auth: 'apiKeyOrSession',
    summary: "The workspace's members, its owner first, then by user id. Any member may list them.",
    request: { path: workspacePath },
    responses: { 200: v.strictObject({ success: v.literal(true), members: v.array(MemberView) }) },
    errors: [403],
  }),
  addMember: defineRoute('members', {
    method: 'POST',
    path: '/workspaces/{id}/members',
    auth: 'apiKeyOrSession',
    summary: 'Links an existing user, by email, to the workspace as a MEMBER (owner only).',
    request: { path: workspacePath, body: AddMemberBody },
    responses: { 201: v.strictObject({ success: v.literal(true), member: MemberView }) },
    // 404: no user with that email; 409: already linked.
    errors: [403, 404, 409],
  }),
  removeMember: defineRoute('members', {
    method: 'DELETE',
    path: '/workspaces/{id}/members/{user_id}',
    auth: 'apiKeyOrSession',
    summary:
      'Unlinks a member (the owner; or the member themselves, leaving) and revokes their API keys acting in the workspace; the owner cannot be removed.',
    request: { path: v.object({ id: idOrNone, user_id: idOrNone }) },
    responses: { 200: Success },
    // 404: not a member; 409: the owner.
    errors: [403, 404, 409],
  }),
};
