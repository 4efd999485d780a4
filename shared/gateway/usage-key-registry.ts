import { setTimeout as sleepFor } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import type { UsageKeyRegistry, UsageKeyRetirer } from '../domain/api-keys/ports';
import { KEY_CALL_RETRY, type KeyCallRetry } from './key-call-retry';

// Loaded on first use: only key creation, rotation and revocation need it, and it would
// otherwise add its load time to every cold start of the api-keys function.
const apiGatewaySdk = () => import('@aws-sdk/client-api-gateway');

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 40 random alphanumerics: API Gateway key values must be 20–128 alphanumerics. */
export function newUsageKeyValue(): string {
  const bytes = randomBytes(40);
  return Array.from(bytes, (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

/** What the registry needs of the SDK client (tests pass a fake). */
export interface KeyCallClient {
  send(command: object, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

export interface AwsKeyCallOptions {
  /** The SDK client; by default one with the SDK's own retries off, so `retry` alone decides. */
  client?: KeyCallClient;
  retry?: KeyCallRetry;
  /** Waits between attempts (tests pass one that returns at once and records the wait). */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter in [0, 1). */
  random?: () => number;
}

const statusOf = (error: unknown): number | undefined => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const nameOf = (error: unknown): string => String((error as { name?: unknown }).name ?? '');

/** API Gateway turned the call away before doing anything: a retry cannot make a second key. */
export const isRefused = (error: unknown): boolean =>
  statusOf(error) === 429 || ['TooManyRequestsException', 'LimitExceededException', 'ServiceUnavailableException'].includes(nameOf(error));

/** Refused, or an outcome unknown (a timeout, a dropped connection, a 5xx): retried only where repeating is harmless. */
const isTransient = (error: unknown): boolean =>
  isRefused(error) ||
  (statusOf(error) ?? 0) >= 500 ||
  ['AbortError', 'TimeoutError', 'RequestTimeout', 'RequestTimeoutException'].includes(nameOf(error)) ||
  ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN'].includes(String((error as { code?: unknown }).code ?? ''));

/**
 * Deleting API Gateway keys: all that revoking needs, so a function that only revokes (member
 * removal) gets no usage plan and no permission to create keys.
 */
export class AwsUsageKeyRetirer implements UsageKeyRetirer {
  private client: KeyCallClient | undefined;
  protected readonly retry: KeyCallRetry;

  constructor(protected readonly options: AwsKeyCallOptions = {}) {
    this.retry = options.retry ?? KEY_CALL_RETRY;
  }

  protected async sdk() {
    const sdk = await apiGatewaySdk();
    this.client ??= this.options.client ?? new sdk.APIGatewayClient({ maxAttempts: 1 });
    return { sdk, client: this.client };
  }

  /**
   * Sends a command with KEY_CALL_RETRY: each attempt aborted past its bound, and retried after a
   * jittered backoff while `retryable` says so, up to the attempts allowed.
   */
  protected async call<Output>(command: object, retryable: (error: unknown) => boolean): Promise<Output> {
    const { client } = await this.sdk();
    const { attempts, backoffCeilingsMs, attemptTimeoutMs } = this.retry;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return (await client.send(command, { abortSignal: AbortSignal.timeout(attemptTimeoutMs) })) as Output;
      } catch (error) {
        if (attempt >= attempts || !retryable(error)) throw error;
        const ceiling = backoffCeilingsMs[attempt - 1] ?? backoffCeilingsMs[backoffCeilingsMs.length - 1] ?? 0;
        await (this.options.sleep ?? sleepFor)(Math.round(ceiling * (0.5 + 0.5 * (this.options.random ?? Math.random)())));
      }
    }
  }

  async retire(id: string): Promise<void> {
    const { sdk } = await this.sdk();
    try {
      // Deleted rather than disabled: disabled keys still count against the 10,000-key limit.
      // Repeating a delete is harmless (a second one finds nothing), so any transient failure is retried.
      await this.call(new sdk.DeleteApiKeyCommand({ apiKey: id }), isTransient);
    } catch (error) {
      if (nameOf(error) !== 'NotFoundException') throw error;
    }
  }
}

/**
 * API Gateway keys attached to the service's usage plan, made with retries on throttling
 * (KEY_CALL_RETRY). A key made here is attached to the plan or deleted again before `issue`
 * returns or throws; the service deletes it in turn if it cannot store it.
 */
export class AwsUsageKeyRegistry extends AwsUsageKeyRetirer implements UsageKeyRegistry {
  constructor(
    private readonly usagePlanId: string,
    options: AwsKeyCallOptions = {},
  ) {
    super(options);
  }

  async issue(label: string): Promise<{ id: string; value: string }> {
    const { sdk } = await this.sdk();
    const value = newUsageKeyValue();
    // Retried only when refused: after a timeout the key may exist, and a second call would make another.
    const created = await this.call<{ id?: string }>(new sdk.CreateApiKeyCommand({ name: label, enabled: true, value }), isRefused);
    if (!created.id) throw new Error('CreateApiKey returned no id');
    try {
      await this.call(new sdk.CreateUsagePlanKeyCommand({ usagePlanId: this.usagePlanId, keyId: created.id, keyType: 'API_KEY' }), isTransient);
    } catch (error) {
      // A repeated attach finds the key attached already: that is success.
      if (nameOf(error) !== 'ConflictException') await this.deleteUnattached(created.id, error);
    }
    return { id: created.id, value };
  }

  /** Deletes a key that could not join the plan; if even that fails, the error names the key left behind. */
  private async deleteUnattached(id: string, cause: unknown): Promise<never> {
    try {
      await this.retire(id);
    } catch (retireError) {
      throw new AggregateError([cause, retireError], `Usage key ${id} was created but neither attached to the plan nor deleted`);
    }
    throw cause;
  }
}

/**
 * Local stand-in: the local gateway keeps one token bucket per usage identifier, so a fresh
 * random value is all a key needs. Nothing to retire: the authorizer never returns a value
 * whose credential is gone, so its bucket is simply never used again.
 */
export class LocalUsageKeyRegistry implements UsageKeyRegistry {
  async issue(): Promise<{ id: string; value: string }> {
    const value = newUsageKeyValue();
    return { id: `local-${value}`, value };
  }

  async retire(): Promise<void> {}
}
