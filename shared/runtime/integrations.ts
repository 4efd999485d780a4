import { systemClock } from '../time/clock';
import { type ProviderSettings, type WebhookSettingsEnv, loopbackAllowed } from '../config/integrations';
import { DynamoSenderAccountRepository } from '../db/sender-account-repository';
import { DynamoWebhookDeliveryRepository, DynamoWebhookSettingsRepository } from '../db/webhook-repository';
import { createSenderAccountService } from '../domain/sender-accounts/sender-account-service';
import { UnipileProvider } from '../providers/unipile-provider';
import { createConnectStateSigner } from '../security/connect-state';
import { createSecretBox } from '../security/secret-box';
import { createDestinationPolicy } from '../webhooks/destination';
import { createHttpSender } from '../webhooks/http-sender';
import type { TableAccess } from './table';

/** The provider adapter a function builds once per container. */
export const providerFrom = (env: ProviderSettings) =>
  new UnipileProvider({ baseUrl: env.PROVIDER_BASE_URL, accessToken: env.PROVIDER_ACCESS_TOKEN, timeoutMs: env.PROVIDER_TIMEOUT_MS });

/** Hosted-connect links live this long. */
const CONNECT_LINK_TTL_MS = 60 * 60 * 1000;

/** The sender-account service over the table and the provider (accounts and provider-webhooks functions). */
export function senderAccountServiceFrom(
  env: ProviderSettings & { PROVIDER_WEBHOOK_SECRET: string; PUBLIC_API_URL?: string | undefined },
  { db, tableName, ids }: TableAccess,
) {
  return createSenderAccountService({
    accounts: new DynamoSenderAccountRepository(db, tableName),
    provider: providerFrom(env),
    ids,
    clock: systemClock,
    connectState: createConnectStateSigner(env.PROVIDER_WEBHOOK_SECRET),
    connectNotifyUrl: env.PUBLIC_API_URL ? `${env.PUBLIC_API_URL.replace(/\/+$/, '')}/api/v1/webhooks/provider/hosted-auth` : undefined,
    connectLinkTtlMs: CONNECT_LINK_TTL_MS,
  });
}

/** What both the user-webhook function and the delivery worker need to reach users' webhooks. */
export function webhookAdaptersFrom(env: WebhookSettingsEnv, { db, tableName }: TableAccess) {
  const allowLoopback = loopbackAllowed(env);
  return {
    settings: new DynamoWebhookSettingsRepository(db, tableName, createSecretBox(env.WEBHOOK_SECRET_KEY)),
    deliveries: new DynamoWebhookDeliveryRepository(db, tableName),
    sender: createHttpSender({ allowLoopback }),
    policy: createDestinationPolicy({ allowLoopback }),
  };
}
