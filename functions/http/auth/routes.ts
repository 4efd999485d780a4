import type { APIGatewayProxyEvent } from 'aws-lambda';
import { toUserView, toWorkspaceView } from '../../../shared/domain/accounts/account';
import type { AccountService, SignedInSession } from '../../../shared/domain/accounts/account-service';
import { requireCaller, requireSession } from '../../../shared/http/caller';
import { parseBody } from '../../../shared/http/request';
import { json, withCookies } from '../../../shared/http/responses';
import { clearedSessionCookie, sessionCookie } from '../../../shared/http/session-cookie';
import { CreateWorkspaceBody, LoginBody, SignupBody } from './schemas';

export interface AuthRouteDeps {
  accounts: AccountService;
  /** Mark cookies Secure (deployed over HTTPS). */
  secureCookies: boolean;
}

const signedIn = (status: number, signed: SignedInSession, deps: AuthRouteDeps) =>
  withCookies(
    json(status, {
      success: true,
      token: signed.token,
      user: toUserView(signed.user),
      workspace_id: signed.session.workspaceId,
      expires_at: signed.session.expiresAt,
    }),
    [sessionCookie(signed.token, new Date(signed.session.expiresAt), deps.secureCookies)],
  );

export function authRoutes(deps: AuthRouteDeps) {
  return {
    'POST /api/v1/auth/signup': async (event: APIGatewayProxyEvent) => {
      const body = parseBody(SignupBody, event);
      const signed = await deps.accounts.signUp({ email: body.email, password: body.password, workspaceName: body.workspace_name });
      return signedIn(201, signed, deps);
    },

    'POST /api/v1/auth/login': async (event: APIGatewayProxyEvent) => {
      const body = parseBody(LoginBody, event);
      return signedIn(200, await deps.accounts.logIn(body), deps);
    },

    'POST /api/v1/auth/logout': async (event: APIGatewayProxyEvent) => {
      const caller = requireSession(event);
      await deps.accounts.logOut(caller.sessionId);
      return withCookies(json(200, { success: true }), [clearedSessionCookie(deps.secureCookies)]);
    },

    'GET /api/v1/auth/me': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const user = await deps.accounts.getUser(caller.userId);
      return json(200, { success: true, user: toUserView(user), workspace_id: caller.workspaceId, auth: caller.via });
    },

    'GET /api/v1/workspaces': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const memberships = await deps.accounts.listWorkspaces(caller.userId);
      return json(200, { success: true, workspaces: memberships.map((m) => toWorkspaceView(m, caller.workspaceId)) });
    },

    'POST /api/v1/workspaces': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const body = parseBody(CreateWorkspaceBody, event);
      const membership = await deps.accounts.createWorkspace(caller.userId, body.name);
      return json(201, { success: true, workspace: toWorkspaceView(membership, caller.workspaceId) });
    },

    'POST /api/v1/workspaces/{id}/select': async (event: APIGatewayProxyEvent) => {
      const caller = requireSession(event);
      // An id that is not a number cannot be one of the user's workspaces: same 403 as any other.
      const workspaceId = Number(event.pathParameters?.id);
      const membership = await deps.accounts.selectWorkspace(
        caller.sessionId,
        caller.userId,
        Number.isSafeInteger(workspaceId) ? workspaceId : -1,
      );
      return json(200, { success: true, workspace: toWorkspaceView(membership, membership.workspaceId) });
    },
  };
}
