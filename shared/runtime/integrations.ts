import type { PROVIDER_SETTINGS, SettingsOf, WEBHOOK_SETTINGS } from '../config/settings';
import { DynamoSenderAccountRepository } from '../db/sender-account-repository';
import { DynamoWebhookDeliveryRepository } from '../db/webhook-repository';
import { DynamoWebhookSettingsRepository } from '../db/webhook-settings-repository';
import { DynamoWorkspaceMembers } from '../db/workspace-members';
import { type SenderAccountServiceDeps, createSenderAccountService } from '../domain/sender-accounts/sender-account-service';
import { CachedMxResolver, DnsMxResolver, SandboxMxResolver } from '../providers/mx-resolver';
import { UnipileProvider } from '../providers/unipile-provider';
import { createConnectStateSigner } from '../security/connect-state';
import { createSecretBox } from '../security/secret-box';
import type { Clock } from '../time/clock';
import { createDestinationPolicy } from '../webhooks/destination';
import { createHttpSender } from '../webhooks/http-sender';
import type { TableAccess } from './table';

export type ProviderSettings = SettingsOf<typeof PROVIDER_SETTINGS>;
export type WebhookSettings = SettingsOf<typeof WEBHOOK_SETTINGS> & { runtime: 'aws' | 'local' };

/** The provider adapter a function builds once per container. */
export const providerFrom = (config: ProviderSettings) =>
  new UnipileProvider({ baseUrl: config.providerBaseUrl, accessToken: config.providerAccessToken, timeoutMs: config.providerTimeoutMs });

/** The MX resolver of the HAS_EMAIL_PREMIUM condition: the sandbox's when configured (local runtime), else DNS; cached per container. */
export const mxResolverFrom = (config: { mxResolverUrl: string | undefined; dnsTimeoutMs: number }, clock: Clock) =>
  new CachedMxResolver(config.mxResolverUrl ? new SandboxMxResolver(config.mxResolverUrl, config.dnsTimeoutMs) : new DnsMxResolver(config.dnsTimeoutMs), clock);

/** Hosted-connect links live this long. */
const CONNECT_LINK_TTL_MS = 60 * 60 * 1000;

/**
 * The sender-account service over the table and the provider (accounts and provider-webhooks
 * functions); with `pacing`, a change that lets an account send more re-places its campaigns' waits.
 */
export function senderAccountServiceFrom(
  config: ProviderSettings & { providerWebhookSecret: string; publicApiUrl: string | undefined },
  { db, tableName, ids }: TableAccess,
  clock: Clock,
  pacing?: SenderAccountServiceDeps['pacing'],
) {
  return createSenderAccountService({
    accounts: new DynamoSenderAccountRepository(db, tableName),
    provider: providerFrom(config),
    ids,
    clock,
    connectState: createConnectStateSigner(config.providerWebhookSecret),
    connectNotifyUrl: config.publicApiUrl ? `${config.publicApiUrl.replace(/\/+$/, '')}/api/v1/webhooks/provider/hosted-auth` : undefined,
    connectLinkTtlMs: CONNECT_LINK_TTL_MS,
    pacing,
  });
}

/**
 * Whether webhooks may point at loopback: only in the local runtime. A deployed stack that asks
 * for it fails at start instead of running with the door open.
 */
export function loopbackAllowed(config: { runtime: 'aws' | 'local'; webhookAllowLoopback: boolean }): boolean {
  if (config.webhookAllowLoopback && config.runtime !== 'local') {
    throw new Error('Invalid environment: WEBHOOK_ALLOW_LOOPBACK=1 is only allowed with RUNTIME=local');
  }
  return config.webhookAllowLoopback;
}

/** What both the user-webhook function and the delivery worker need to reach users' webhooks. */
export function webhookAdaptersFrom(config: WebhookSettings, { db, tableName }: TableAccess) {
  const allowLoopback = loopbackAllowed(config);
  return {
    settings: new DynamoWebhookSettingsRepository(db, tableName, createSecretBox(config.webhookSecretKey)),
    deliveries: new DynamoWebhookDeliveryRepository(db, tableName),
    memberships: new DynamoWorkspaceMembers(db, tableName),
    sender: createHttpSender({ allowLoopback }),
    policy: createDestinationPolicy({ allowLoopback }),
  };
}
