import * as v from 'valibot';
import { RETRY_DELAYS_SECONDS, parseSchedule } from '../domain/webhooks/delivery';
import { MIN_KEY_MATERIAL_LENGTH } from '../security/secret-box';

const milliseconds = (fallback: string) =>
  v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(100), v.maxValue(60_000)), fallback);

/** The network/email provider (Unipile-style). */
export const ProviderEnv = {
  /** The provider's base URL (its DSN); the sandbox provider's locally. */
  PROVIDER_BASE_URL: v.pipe(v.string(), v.url()),
  /** The provider access token (Secrets Manager in AWS). */
  PROVIDER_ACCESS_TOKEN: v.pipe(v.string(), v.minLength(1)),
  /** Bound on each provider call. 8 s keeps a connection check inside the 10 s function timeout. */
  PROVIDER_TIMEOUT_MS: milliseconds('8000'),
};

/** The shared secret the provider sends in X-Webhook-Secret; also keys the hosted-connect state. */
export const ProviderWebhookEnv = {
  PROVIDER_WEBHOOK_SECRET: v.pipe(v.string(), v.minLength(32)),
};

/** User webhooks: the key sealing signing secrets, loopback allowance, timeouts and retries. */
export const WebhookEnv = {
  /** Random key material (at least 32 characters) sealing the signing secrets stored in the table. */
  WEBHOOK_SECRET_KEY: v.pipe(v.string(), v.minLength(MIN_KEY_MATERIAL_LENGTH)),
  /** `1` lets webhooks point at this machine (http:// or https:// to loopback). Local runtime only. */
  WEBHOOK_ALLOW_LOOPBACK: v.optional(v.picklist(['0', '1']), '0'),
  /** Bound on one webhook request (test send and each delivery attempt). */
  WEBHOOK_TIMEOUT_MS: milliseconds('10000'),
  /** Seconds between delivery attempts, comma separated; the documented schedule by default. */
  WEBHOOK_RETRY_SCHEDULE: v.optional(
    v.pipe(
      v.string(),
      v.transform(parseSchedule),
      v.check((value) => value !== undefined, 'must be comma-separated seconds, each at most 43200'),
      v.transform((value) => value as number[]),
    ),
    RETRY_DELAYS_SECONDS.join(','),
  ),
};

/** SQS: the emulator's URL locally, and the webhooks queue. */
export const WebhookQueueEnv = {
  SQS_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  WEBHOOKS_QUEUE_URL: v.pipe(v.string(), v.minLength(1)),
};

/**
 * Whether webhooks may point at loopback: only with RUNTIME=local and WEBHOOK_ALLOW_LOOPBACK=1.
 * A deployed stack that asks for it fails at start instead of running with the door open.
 */
export function loopbackAllowed(env: { RUNTIME: 'aws' | 'local'; WEBHOOK_ALLOW_LOOPBACK: '0' | '1' }): boolean {
  if (env.WEBHOOK_ALLOW_LOOPBACK === '1' && env.RUNTIME !== 'local') {
    throw new Error('Invalid environment: WEBHOOK_ALLOW_LOOPBACK=1 is only allowed with RUNTIME=local');
  }
  return env.WEBHOOK_ALLOW_LOOPBACK === '1';
}

export type ProviderSettings = v.InferOutput<v.ObjectSchema<typeof ProviderEnv, undefined>>;
export type WebhookSettingsEnv = v.InferOutput<v.ObjectSchema<typeof WebhookEnv, undefined>> & { RUNTIME: 'aws' | 'local' };
