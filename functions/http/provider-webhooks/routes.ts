import { forbidden, isDomainError, unauthenticated } from '../../../shared/domain/errors';
import type { SenderAccountService } from '../../../shared/domain/sender-accounts/sender-account-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { header } from '../../../shared/http/request';
import { json } from '../../../shared/http/responses';
import type { providerWebhookRoutes } from '../../../shared/http/routes/provider-webhooks';
import type { Logger } from '../../../shared/logging/logger';
import { safeEqual } from '../../../shared/security/secret-box';
import type { ProviderEventAnswer } from './provider-events';

/** The header our provider webhook registrations carry (the provider documents no signature for v1). */
export const PROVIDER_SECRET_HEADER = 'x-webhook-secret';

/**
 * Inbound webhooks from the provider. Never API-key authenticated: the account-status/message
 * webhook carries our shared secret in X-Webhook-Secret; the hosted-connect notification carries
 * the HMAC-signed state we put in the link. What an event changes is provider-events.ts's.
 * Nothing the provider posts in a known shape is refused: a 4xx/5xx only makes it retry.
 */
export function providerWebhookHandlers(deps: {
  accounts: Pick<SenderAccountService, 'completeConnect'>;
  /** Handles one event (createProviderEvents). */
  events: (body: Record<string, unknown>) => Promise<ProviderEventAnswer>;
  /** The inbound-retry queue: an event whose handling failed is run again from it. */
  retries: { later(body: Record<string, unknown>): Promise<void> };
  secret: string;
  logger: Pick<Logger, 'warn'>;
}) {
  return {
    providerEvent: async (request) => {
      if (!safeEqual(header(request.event.headers, PROVIDER_SECRET_HEADER) ?? '', deps.secret)) throw unauthenticated('Invalid webhook secret');
      const body = request.body();
      try {
        return json(200, await deps.events(body));
      } catch (error) {
        // A bad payload is the provider's to fix (its 4xx); anything else (the table failing) is
        // handed to the inbound-retry queue, which runs the event again until it goes through or
        // lands in its dead-letter queue with an alarm, instead of leaving it to the provider's few
        // retries. Only when that hand-over fails too does the provider get a 5xx and retry.
        if (isDomainError(error)) throw error;
        await deps.retries.later(body);
        deps.logger.warn('Provider event failed; handed to the inbound-retry queue', { error: String(error) });
        return json(200, { success: true, handled: false, queued: true });
      }
    },

    hostedAuthEvent: async (request) => {
      const body = request.body();
      if (body.status !== 'CREATION_SUCCESS' && body.status !== 'RECONNECTED') return json(200, { success: true, handled: false });
      const account = await deps.accounts.completeConnect({ state: body.name ?? '', providerAccountId: body.account_id });
      if (!account) throw forbidden('Invalid connect state');
      return json(200, { success: true, handled: true });
    },
  } satisfies HandlersFor<typeof providerWebhookRoutes>;
}

