import { DynamoAccountRepository } from '../../../shared/db/account-repository';
import { DynamoApiKeyRepository } from '../../../shared/db/api-key-repository';
import { createMemberService } from '../../../shared/domain/accounts/member-service';
import { createKeyRevoker } from '../../../shared/domain/api-keys/api-key-service';
import { AwsUsageKeyRetirer, LocalUsageKeyRegistry } from '../../../shared/gateway/usage-key-registry';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { memberRoutes } from '../../../shared/http/routes/members';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';
import { memberHandlers } from './routes';

/** The members function: a workspace's members over the table; removal revokes the member's keys. */
export function buildMembersHandler(config: GroupConfig<'members'>, deps: FunctionDeps) {
  const logger = loggerFor('members', deps);
  const { db, tableName } = tableAccess(config, deps);
  const keys = createKeyRevoker({
    keys: new DynamoApiKeyRepository(db, tableName),
    usageKeys: config.runtime === 'aws' ? new AwsUsageKeyRetirer() : new LocalUsageKeyRegistry(),
    clock: deps.clock,
    onRetireFailure: (usageKeyId, error) => logger.error('Usage key not retired', { usageKeyId, error: String(error) }),
  });
  const members = createMemberService({ accounts: new DynamoAccountRepository(db, tableName), keys, clock: deps.clock });
  return httpHandler(memberRoutes, memberHandlers(members), { logger, checkResponses: deps.checkResponses });
}
