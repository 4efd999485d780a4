import { DynamoApiKeyRepository } from '../../../shared/db/api-key-repository';
import { createApiKeyService } from '../../../shared/domain/api-keys/api-key-service';
import type { UsageKeyRegistry } from '../../../shared/domain/api-keys/ports';
import { AwsUsageKeyRegistry, LocalUsageKeyRegistry } from '../../../shared/gateway/usage-key-registry';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { apiKeyRoutes } from '../../../shared/http/routes/api-keys';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';
import { apiKeyHandlers } from './routes';

/** The api-keys function: its service over the table and the gateway's usage-key registry. */
export function buildApiKeysHandler(config: GroupConfig<'apiKeys'>, deps: FunctionDeps) {
  if (config.runtime === 'aws' && !config.usagePlanId) throw new Error('Invalid environment: USAGE_PLAN_ID is required in AWS');
  const logger = loggerFor('api-keys', deps);
  const { db, tableName, ids } = tableAccess(config, deps);
  const usageKeys: UsageKeyRegistry = config.runtime === 'aws' ? new AwsUsageKeyRegistry(config.usagePlanId ?? '') : new LocalUsageKeyRegistry();
  const keys = createApiKeyService({
    keys: new DynamoApiKeyRepository(db, tableName),
    usageKeys,
    ids,
    clock: deps.clock,
    maxActiveKeysPerUser: config.maxActiveKeysPerUser,
    onRetireFailure: (usageKeyId, error) => logger.error('Usage key not retired', { usageKeyId, error: String(error) }),
  });
  return httpHandler(apiKeyRoutes, apiKeyHandlers(keys), { logger, checkResponses: deps.checkResponses });
}
