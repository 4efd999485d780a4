import { toUserView, toWorkspaceView } from '../../../shared/domain/accounts/account';
import type { AccountService, SignedInSession } from '../../../shared/domain/accounts/account-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json, withCookies } from '../../../shared/http/responses';
import type { authRoutes } from '../../../shared/http/routes/auth';
import { clearedSessionCookie, isCrossSiteBrowserRequest, sessionCookie } from '../../../shared/http/session-cookie';
import type { Clock } from '../../../shared/time/clock';

export interface AuthRouteDeps {
  accounts: AccountService;
  /** Mark cookies Secure (deployed over HTTPS). */
  secureCookies: boolean;
  clock: Clock;
}

/**
 * The signed-in answer. The session cookie is not set for a browser's request from another site:
 * a form there could otherwise log a browser into the attacker's account (login CSRF); the token
 * in the body is there either way.
 */
const signedIn = (status: number, signed: SignedInSession, deps: AuthRouteDeps, crossSite: boolean) => {
  const answer = json(status, {
    success: true,
    token: signed.token,
    user: toUserView(signed.user),
    workspace_id: signed.session.workspaceId,
    expires_at: signed.session.expiresAt,
  });
  if (crossSite) return answer;
  return withCookies(answer, [sessionCookie(signed.token, new Date(signed.session.expiresAt), deps.clock.now(), deps.secureCookies)]);
};

export function authHandlers(deps: AuthRouteDeps) {
  return {
    signUp: async (request) => {
      const body = request.body();
      const signed = await deps.accounts.signUp({ email: body.email, password: body.password, workspaceName: body.workspace_name });
      return signedIn(201, signed, deps, isCrossSiteBrowserRequest(request.event.headers));
    },

    // The address API Gateway saw (the socket's locally); never a client-set header such as X-Forwarded-For.
    logIn: async (request) =>
      signedIn(200, await deps.accounts.logIn(request.body(), request.event.requestContext?.identity?.sourceIp || 'unknown'), deps, isCrossSiteBrowserRequest(request.event.headers)),

    logOut: async (request) => {
      await deps.accounts.logOut(request.session().sessionId);
      return withCookies(json(200, { success: true }), [clearedSessionCookie(deps.secureCookies)]);
    },

    me: async (request) => {
      const caller = request.caller();
      const user = await deps.accounts.getUser(caller.userId);
      return json(200, { success: true, user: toUserView(user), workspace_id: caller.workspaceId, auth: caller.via });
    },

    listWorkspaces: async (request) => {
      const caller = request.caller();
      const memberships = await deps.accounts.listWorkspaces(caller.userId);
      return json(200, { success: true, workspaces: memberships.map((m) => toWorkspaceView(m, caller.workspaceId)) });
    },

    createWorkspace: async (request) => {
      const caller = request.caller();
      const membership = await deps.accounts.createWorkspace(caller.userId, request.body().name);
      return json(201, { success: true, workspace: toWorkspaceView(membership, caller.workspaceId) });
    },

    selectWorkspace: async (request) => {
      const caller = request.session();
      // An id that is not a number cannot be one of the user's workspaces: same 403 as any other.
      const workspaceId = Number(request.path().id);
      const membership = await deps.accounts.selectWorkspace(caller.sessionId, caller.userId, Number.isSafeInteger(workspaceId) ? workspaceId : -1);
      return json(200, { success: true, workspace: toWorkspaceView(membership, membership.workspaceId) });
    },
  } satisfies HandlersFor<typeof authRoutes>;
}
