import { randomBytes } from 'node:crypto';
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { UsageKeyRegistry, UsageKeyRetirer } from '../domain/api-keys/ports';

// Loaded on first use: only key creation, rotation and revocation need it, and it would
// otherwise add its load time to every cold start of the api-keys function.
const apiGatewaySdk = () => import('@aws-sdk/client-api-gateway');

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 40 random alphanumerics: API Gateway key values must be 20–128 alphanumerics. */
export function newUsageKeyValue(): string {
  const bytes = randomBytes(40);
  return Array.from(bytes, (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

/**
 * Deleting API Gateway keys: all that revoking needs, so a function that only revokes (member
 * removal) gets no usage plan and no permission to create keys.
 */
export class AwsUsageKeyRetirer implements UsageKeyRetirer {
  private client: APIGatewayClient | undefined;

  protected async sdk() {
    const sdk = await apiGatewaySdk();
    this.client ??= new sdk.APIGatewayClient({ retryMode: 'adaptive', maxAttempts: 6 });
    return { sdk, client: this.client };
  }

  async retire(id: string): Promise<void> {
    const { sdk, client } = await this.sdk();
    try {
      // Deleted rather than disabled: disabled keys still count against the 10,000-key account limit.
      await client.send(new sdk.DeleteApiKeyCommand({ apiKey: id }));
    } catch (error) {
      if ((error as Error).name !== 'NotFoundException') throw error;
    }
  }
}

/**
 * API Gateway keys attached to the service's usage plan. CreateApiKey and DeleteApiKey are
 * limited to 5 calls per second per account; the SDK's adaptive retry absorbs
 * TooManyRequestsException with backoff instead of failing the caller.
 */
export class AwsUsageKeyRegistry extends AwsUsageKeyRetirer implements UsageKeyRegistry {
  constructor(private readonly usagePlanId: string) {
    super();
  }

  async issue(label: string): Promise<{ id: string; value: string }> {
    const { sdk, client } = await this.sdk();
    const value = newUsageKeyValue();
    const created = await client.send(new sdk.CreateApiKeyCommand({ name: label, enabled: true, value }));
    if (!created.id) throw new Error('CreateApiKey returned no id');
    try {
      await client.send(
        new sdk.CreateUsagePlanKeyCommand({ usagePlanId: this.usagePlanId, keyId: created.id, keyType: 'API_KEY' }),
      );
    } catch (error) {
      await this.retire(created.id);
      throw error;
    }
    return { id: created.id, value };
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
