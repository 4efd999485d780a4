import type { APIGatewayProxyEvent } from 'aws-lambda';
import { forbidden, unauthenticated } from '../../../shared/domain/errors';
import type { SenderAccountService } from '../../../shared/domain/sender-accounts/sender-account-service';
import { header, parseBody, parseWith } from '../../../shared/http/request';
import { json } from '../../../shared/http/responses';
import { safeEqual } from '../../../shared/security/secret-box';
import { AccountStatusPayload, AnyPayload, HostedAuthPayload } from './schemas';

/** The header our provider webhook registrations carry (the provider documents no signature for v1). */
export const PROVIDER_SECRET_HEADER = 'x-webhook-secret';

/**
 * Inbound webhooks from the provider. Never API-key authenticated: the account-status/message
 * webhook carries our shared secret in X-Webhook-Secret; the hosted-connect notification carries
 * the HMAC-signed state we put in the link. Events other than account status are acknowledged
 * and left to the capabilities that will route them (replies, accepted invitations).
 */
export function providerWebhookRoutes(deps: { accounts: SenderAccountService; secret: string; log: (entry: Record<string, unknown>) => void }) {
  return {
    'POST /api/v1/webhooks/provider': async (event: APIGatewayProxyEvent) => {
      if (!safeEqual(header(event.headers, PROVIDER_SECRET_HEADER) ?? '', deps.secret)) throw unauthenticated('Invalid webhook secret');
      const body = parseBody(AnyPayload, event);
      if (body.AccountStatus !== undefined) {
        const { AccountStatus } = parseWith(AccountStatusPayload, body);
        const account = await deps.accounts.applyProviderStatus(AccountStatus.account_id, AccountStatus.message);
        return json(200, { success: true, handled: account !== undefined });
      }
      deps.log({ message: 'Provider webhook acknowledged, not routed yet', event: typeof body.event === 'string' ? body.event : 'unknown' });
      return json(200, { success: true, handled: false });
    },

    'POST /api/v1/webhooks/provider/hosted-auth': async (event: APIGatewayProxyEvent) => {
      const body = parseBody(HostedAuthPayload, event);
      if (body.status !== 'CREATION_SUCCESS' && body.status !== 'RECONNECTED') return json(200, { success: true, handled: false });
      const account = await deps.accounts.completeConnect({ state: body.name ?? '', providerAccountId: body.account_id });
      if (!account) throw forbidden('Invalid connect state');
      return json(200, { success: true, handled: true });
    },
  };
}
