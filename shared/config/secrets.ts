import type { Clock } from '../time/clock';
import { SETTINGS, type SettingName } from './settings';

/**
 * Secrets read at runtime. In AWS a function's environment carries the ARN of each secret setting
 * it declares (`SESSION_SECRET_ARN` for `SESSION_SECRET`), never the value: the function reads the
 * value from Secrets Manager on its first invocation and again once the cached copy is older than
 * `SECRET_MAX_AGE_MS`. Putting a new value is therefore live everywhere within that time, with no
 * deploy (docs/operations.md, "Secret rotation"). The local runtime and the tests pass values
 * directly (`settingsFrom`), so nothing here runs there.
 */

/** How long a value read from Secrets Manager is used before it is read again: a rotation is live within this. */
export const SECRET_MAX_AGE_MS = 5 * 60_000;

/**
 * After a refresh fails (Secrets Manager unreachable), the value already held is kept and read
 * again after this, rather than on every invocation (each would wait for the failing call).
 */
export const SECRET_RETRY_AFTER_FAILURE_MS = 30_000;

/**
 * The settings declared `secret: true`, by name (a unit test keeps this list equal to the
 * declarations), so the stack must decide a Secrets Manager secret for each.
 */
export const SECRET_SETTINGS = [
  'sessionSecret',
  'directoryApiKey',
  'providerAccessToken',
  'providerWebhookSecret',
  'unsubscribeSecret',
  'webhookSecretKey',
  'hunterApiKey',
  'prospeoApiKey',
  'lushaApiKey',
] as const satisfies readonly SettingName[];

export type SecretSettingName = (typeof SECRET_SETTINGS)[number];

export const isSecretSetting = (name: SettingName): name is SecretSettingName => (SECRET_SETTINGS as readonly SettingName[]).includes(name);

/** The variable that carries a secret setting's ARN in AWS: its own variable with `_ARN` appended. */
export const secretArnVariable = (name: SecretSettingName): string => `${SETTINGS[name].env}_ARN`;

/** Reads one secret's current value by its id (an ARN in AWS). */
export type SecretFetcher = (secretId: string) => Promise<string>;

export interface SecretCacheOptions {
  fetch: SecretFetcher;
  clock: Clock;
  /** Default `SECRET_MAX_AGE_MS`. */
  maxAgeMs?: number;
  /** Default `SECRET_RETRY_AFTER_FAILURE_MS`. */
  retryAfterFailureMs?: number;
  /** A refresh failed and the value already held is used meanwhile (never given the value). */
  onStale?: (secretId: string, error: unknown) => void;
}

export interface SecretCache {
  /** The secret's value: the cached one while it is fresh, otherwise read again (one read at a time per secret). */
  get(secretId: string): Promise<string>;
}

interface Entry {
  value?: string;
  /** Epoch milliseconds until which `value` is used without a read. */
  freshUntil: number;
  reading?: Promise<string>;
}

/**
 * A cache of secret values with a maximum age, by the injected clock. A value that cannot be
 * refreshed is kept (a Secrets Manager hiccup must not take the service down); a secret never
 * read successfully fails the call, so a function never runs without its secret.
 */
export function createSecretCache(options: SecretCacheOptions): SecretCache {
  const maxAgeMs = options.maxAgeMs ?? SECRET_MAX_AGE_MS;
  const retryAfterFailureMs = options.retryAfterFailureMs ?? SECRET_RETRY_AFTER_FAILURE_MS;
  const entries = new Map<string, Entry>();
  const now = () => options.clock.now().getTime();

  async function read(secretId: string, held: string | undefined): Promise<string> {
    try {
      const value = await options.fetch(secretId);
      entries.set(secretId, { value, freshUntil: now() + maxAgeMs });
      return value;
    } catch (error) {
      if (held === undefined) {
        entries.delete(secretId);
        throw error;
      }
      entries.set(secretId, { value: held, freshUntil: now() + retryAfterFailureMs });
      options.onStale?.(secretId, error);
      return held;
    }
  }

  return {
    get(secretId) {
      const entry = entries.get(secretId);
      if (entry?.reading) return entry.reading;
      if (entry?.value !== undefined && now() < entry.freshUntil) return Promise.resolve(entry.value);
      // In the map before the read starts, so a read that settles at once replaces it.
      const pending: Entry = { freshUntil: 0 };
      entries.set(secretId, pending);
      pending.reading = read(secretId, entry?.value);
      return pending.reading;
    },
  };
}

/**
 * Reads secrets with Secrets Manager's GetSecretValue (the function's role may read exactly the
 * secrets its settings declare). The client is loaded on first use: functions without secrets
 * never load it.
 */
export function secretsManagerFetcher(): SecretFetcher {
  let client: import('@aws-sdk/client-secrets-manager').SecretsManagerClient | undefined;
  return async (secretId) => {
    const sdk = await import('@aws-sdk/client-secrets-manager');
    client ??= new sdk.SecretsManagerClient({});
    const answer = await client.send(new sdk.GetSecretValueCommand({ SecretId: secretId }));
    if (answer.SecretString === undefined) throw new Error(`Secret ${secretId} has no string value`);
    return answer.SecretString;
  };
}
