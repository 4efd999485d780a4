import { type SenderAccount, toSenderAccountView } from '../../../shared/domain/sender-accounts/sender-account';
import type { SenderAccountService } from '../../../shared/domain/sender-accounts/sender-account-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { accountRoutes } from '../../../shared/http/routes/accounts';
import type { Clock } from '../../../shared/time/clock';

/** Sender accounts of the caller's workspace (network accounts and mailboxes at the provider). */
export function accountHandlers(accounts: SenderAccountService, clock: Clock) {
  // A timed sending pause shows until it runs out on the service's clock.
  const view = (account: SenderAccount) => toSenderAccountView(account, clock.now());
  return {
    listAccounts: async (request) => {
      const list = await accounts.list(request.caller().workspaceId);
      return json(200, { success: true, accounts: list.map(view) });
    },

    /** 201 for a new registration, 200 when the workspace already had this provider account. */
    registerAccount: async (request) => {
      const caller = request.caller();
      const body = request.body();
      const { account, created } = await accounts.register(caller.workspaceId, { providerAccountId: body.provider_account_id, name: body.name });
      return json(created ? 201 : 200, { success: true, account: view(account) });
    },

    updateAccount: async (request) => {
      const caller = request.caller();
      const { id } = request.path();
      const body = request.body();
      const limits = body.daily_limits;
      const account = await accounts.update(caller.workspaceId, id, {
        name: body.name,
        dailyLimits: limits && { emails: limits.emails, invitations: limits.invitations, networkMessages: limits.network_messages },
        endPause: body.sending_paused === null,
      });
      return json(200, { success: true, account: view(account) });
    },

    deleteAccount: async (request) => {
      const caller = request.caller();
      await accounts.remove(caller.workspaceId, request.path().id);
      return json(200, { success: true });
    },

    createConnectLink: async (request) => {
      const caller = request.caller();
      const body = request.body();
      const link = await accounts.createConnectLink(caller.workspaceId, {
        type: body.type,
        successRedirectUrl: body.success_redirect_url,
        failureRedirectUrl: body.failure_redirect_url,
        reconnectAccountId: body.reconnect_account_id,
      });
      return json(201, { success: true, url: link.url, expires_at: link.expiresAt });
    },
  } satisfies HandlersFor<typeof accountRoutes>;
}
