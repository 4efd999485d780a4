import { systemClock } from '../../../shared/time/clock';
import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { DynamoApiKeyRepository } from '../../../shared/db/api-key-repository';
import type { UsageKeyRegistry } from '../../../shared/domain/api-keys/ports';
import { createApiKeyService } from '../../../shared/domain/api-keys/api-key-service';
import { AwsUsageKeyRegistry, LocalUsageKeyRegistry } from '../../../shared/gateway/usage-key-registry';
import { httpHandler } from '../../../shared/http/http-handler';
import { tableAccess } from '../../../shared/runtime/table';
import { apiKeyRoutes } from './routes';

const env = loadEnv(
  v.object({
    ...BaseEnv.entries,
    /** The usage plan new gateway keys join (AWS only). */
    USAGE_PLAN_ID: v.optional(v.string()),
    MAX_ACTIVE_KEYS_PER_USER: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(1)), '25'),
  }),
);
if (env.RUNTIME === 'aws' && !env.USAGE_PLAN_ID) throw new Error('Invalid environment: USAGE_PLAN_ID is required in AWS');

const { db, tableName, ids } = tableAccess(env);
const usageKeys: UsageKeyRegistry =
  env.RUNTIME === 'aws' ? new AwsUsageKeyRegistry(env.USAGE_PLAN_ID ?? '') : new LocalUsageKeyRegistry();

const keys = createApiKeyService({
  keys: new DynamoApiKeyRepository(db, tableName),
  usageKeys,
  ids,
  clock: systemClock,
  maxActiveKeysPerUser: env.MAX_ACTIVE_KEYS_PER_USER,
  onRetireFailure: (usageKeyId, error) =>
    console.error(JSON.stringify({ level: 'ERROR', message: 'Usage key not retired', usageKeyId, error: String(error) })),
});

export const handler = httpHandler(apiKeyRoutes(keys));
