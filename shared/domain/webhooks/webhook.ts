import { randomBytes } from 'node:crypto';

/**
 * A user's incoming-message webhook. The signing secret is a Standard Webhooks secret
 * (`whsec_` + base64 of 32 random bytes), created on the first set and kept when the URL is
 * cleared or changed. After a rotation the previous secret still signs (a second signature) until
 * `previousSecretValidUntil`, so receivers can switch over without dropping events.
 */
export interface WebhookSettings {
  userId: number;
  url: string | null;
  secret: string;
  secretCreatedAt: string;
  previousSecret: string | null;
  previousSecretValidUntil: string | null;
  createdAt: string;
  updatedAt: string;
  /**
   * Secrets rotated out before `previousSecret`, newest first, each still signing until its
   * `validUntil`: two rotations within a day leave every secret handed out signing for its day.
   */
  olderSecrets?: RotatedSecret[] | undefined;
  /**
   * The secret was made by the delivery worker (an enrichment job's own `webhook_url`, the user
   * without settings) and never shown: the next PUT of the webhook shows it, once.
   */
  secretUnseen?: boolean;
  /**
   * When the endpoint at `url` answered 410 Gone to a delivery: the webhook is disabled, and no
   * event goes to it until its URL is set again (Standard Webhooks' rule for 410).
   */
  disabledAt?: string | undefined;
}

/** A secret rotated out, signing alongside the current one until `validUntil`. */
export interface RotatedSecret {
  secret: string;
  validUntil: string;
}

/** Secrets rotated out before the previous one that keep signing: a message carries at most 5 signatures. */
export const MAX_OLDER_SECRETS = 3;

/** The settings of a user who had none: a new signing secret, made at `stamp`. */
export function freshSettings(userId: number, url: string | null, secret: string, stamp: string): WebhookSettings {
  return { userId, url, secret, secretCreatedAt: stamp, previousSecret: null, previousSecretValidUntil: null, createdAt: stamp, updatedAt: stamp };
}

/** The answer by which a receiver says its endpoint is gone for good: the webhook is disabled. */
export const GONE_STATUS = 410;

/** Why a disabled webhook gets nothing, as its settings show it. */
export const WEBHOOK_DISABLED_REASON =
  'The endpoint answered 410 Gone: no event is sent to it until its URL is set again (PUT /api/v1/user/webhook/)';

/** Where the user's events go now: their URL, unless its endpoint answered 410 Gone since it was set. */
export const activeUrl = (settings: WebhookSettings | undefined): string | null =>
  settings?.url && settings.disabledAt === undefined ? settings.url : null;

/** The next `updatedAt` of settings written at `now`: it moves on every write, even within one clock tick. */
export function nextUpdatedAt(current: WebhookSettings | undefined, now: Date): string {
  const stamp = now.toISOString();
  return current && stamp <= current.updatedAt ? new Date(Date.parse(current.updatedAt) + 1).toISOString() : stamp;
}

/** How long a rotated-out secret keeps signing alongside the new one. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export const generateSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The secrets rotated out that still sign at `now`, newest first: the previous one, then the older ones. */
export function rotatedSecretsAt(settings: WebhookSettings, now: Date): RotatedSecret[] {
  const previous =
    settings.previousSecret !== null && settings.previousSecretValidUntil !== null
      ? [{ secret: settings.previousSecret, validUntil: settings.previousSecretValidUntil }]
      : [];
  return [...previous, ...(settings.olderSecrets ?? [])].filter((rotated) => Date.parse(rotated.validUntil) > now.getTime());
}

/** The secrets that sign a message sent at `now`: the current one, plus those rotated out within their overlap. */
export function signingSecrets(settings: WebhookSettings, now: Date): string[] {
  return [settings.secret, ...rotatedSecretsAt(settings, now).map((rotated) => rotated.secret)];
}

/** The kind of receiver, which decides the body we send: chat services get a formatted message. */
export type WebhookType = 'slack' | 'discord' | 'teams' | 'generic';

const SLACK_PATH = /^\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+\/?$/;
const DISCORD_PATH = /^\/api\/(?:v\d+\/)?webhooks\/\d{5,25}\/[A-Za-z0-9_-]+\/?$/;
const TEAMS_CONNECTOR_PATH = /^\/(?:webhookb2|webhook)\//;
const TEAMS_WORKFLOW_PATH = /\/workflows\/[0-9a-f]+\/triggers\/manual\/paths\/invoke\/?$/i;

function typeByPath(url: URL): WebhookType {
  if (SLACK_PATH.test(url.pathname)) return 'slack';
  if (DISCORD_PATH.test(url.pathname)) return 'discord';
  if (TEAMS_CONNECTOR_PATH.test(url.pathname) || TEAMS_WORKFLOW_PATH.test(url.pathname)) return 'teams';
  return 'generic';
}

/**
 * Recognises Slack incoming webhooks, Discord webhooks and Microsoft Teams (connector and
 * Workflows) URLs by host and path. `anyHost` (local development, loopback receivers only) matches
 * the path shape alone, so a developer can stand in for Slack on their machine.
 */
export function webhookTypeOf(rawUrl: string, options: { anyHost?: boolean } = {}): WebhookType {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return 'generic';
  }
  const host = url.hostname.toLowerCase();
  if (options.anyHost) return typeByPath(url);
  if (host === 'hooks.slack.com' || host === 'hooks.slack-gov.com') return SLACK_PATH.test(url.pathname) ? 'slack' : 'generic';
  if (/^(?:(?:ptb|canary)\.)?discord(?:app)?\.com$/.test(host)) return DISCORD_PATH.test(url.pathname) ? 'discord' : 'generic';
  if (host.endsWith('.webhook.office.com') || host === 'outlook.office.com') {
    return TEAMS_CONNECTOR_PATH.test(url.pathname) ? 'teams' : 'generic';
  }
  if (host.endsWith('.logic.azure.com') || host.endsWith('.api.powerplatform.com')) {
    return TEAMS_WORKFLOW_PATH.test(url.pathname) ? 'teams' : 'generic';
  }
  return 'generic';
}

export const toWebhookSettingsView = (settings: WebhookSettings | undefined, type: WebhookType | null, now: Date) => ({
  success: true,
  webhook_url: settings?.url ?? null,
  webhook_type: settings?.url ? type : null,
  has_signing_secret: settings !== undefined,
  signing_secret_created_at: settings?.secretCreatedAt ?? null,
  // Only while the rotated-out secret still signs.
  previous_secret_valid_until: settings && signingSecrets(settings, now).length > 1 ? settings.previousSecretValidUntil : null,
  updated_at: settings?.updatedAt ?? null,
  // Set when the endpoint answered 410 Gone; setting the URL again (even the same one) enables it.
  disabled_at: settings?.url ? (settings.disabledAt ?? null) : null,
  disabled_reason: settings?.url && settings.disabledAt !== undefined ? WEBHOOK_DISABLED_REASON : null,
});
