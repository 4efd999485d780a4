import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { SenderAccountService } from '../../../shared/domain/sender-accounts/sender-account-service';
import { toSenderAccountView } from '../../../shared/domain/sender-accounts/sender-account';
import { requireCaller } from '../../../shared/http/caller';
import { parseBody, pathId } from '../../../shared/http/request';
import { json } from '../../../shared/http/responses';
import { ConnectLinkBody, RegisterAccountBody } from './schemas';

const ACCOUNT_NOT_FOUND = 'Account not found';

/** Sender accounts of the caller's workspace (network accounts and mailboxes at the provider). */
export function accountRoutes(accounts: SenderAccountService) {
  return {
    'GET /api/v1/public/accounts': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const list = await accounts.list(caller.workspaceId);
      return json(200, { success: true, accounts: list.map(toSenderAccountView) });
    },

    /** 201 for a new registration, 200 when the workspace already had this provider account. */
    'POST /api/v1/public/accounts': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const body = parseBody(RegisterAccountBody, event);
      const { account, created } = await accounts.register(caller.workspaceId, { providerAccountId: body.provider_account_id, name: body.name });
      return json(created ? 201 : 200, { success: true, account: toSenderAccountView(account) });
    },

    'DELETE /api/v1/public/accounts/{id}': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      await accounts.remove(caller.workspaceId, pathId(event, 'id', ACCOUNT_NOT_FOUND));
      return json(200, { success: true });
    },

    'POST /api/v1/public/accounts/connect-link': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const body = parseBody(ConnectLinkBody, event);
      const link = await accounts.createConnectLink(caller.workspaceId, {
        type: body.type,
        successRedirectUrl: body.success_redirect_url,
        failureRedirectUrl: body.failure_redirect_url,
        reconnectAccountId: body.reconnect_account_id,
      });
      return json(201, { success: true, url: link.url, expires_at: link.expiresAt });
    },
  };
}
