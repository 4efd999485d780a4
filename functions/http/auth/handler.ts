import { DynamoAccountRepository } from '../../../shared/db/account-repository';
import { DynamoLoginAttempts } from '../../../shared/db/login-attempts';
import { DynamoRequestLimiter } from '../../../shared/db/request-counters';
import { DynamoSessionRepository } from '../../../shared/db/session-repository';
import { createAccountService } from '../../../shared/domain/accounts/account-service';
import { createLoginThrottle } from '../../../shared/domain/accounts/login-throttle';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { authRoutes } from '../../../shared/http/routes/auth';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';
import { SessionTokens } from '../../../shared/security/session-tokens';
import { authHandlers } from './routes';

/** The auth function: sign-up, log-in and out, the caller, workspaces. */
export function buildAuthHandler(config: GroupConfig<'auth'>, deps: FunctionDeps) {
  const { db, tableName, ids } = tableAccess(config, deps);
  const loginThrottle = createLoginThrottle({
    pairs: new DynamoLoginAttempts(db, tableName),
    perIp: new DynamoRequestLimiter(db, tableName, { scope: 'login-failures', limit: config.loginFailuresPerIpPerHour, windowSeconds: 3600 }),
    clock: deps.clock,
    policy: {
      failuresBeforeDelay: config.loginFailuresBeforeDelay,
      maxDelaySeconds: config.loginMaxDelaySeconds,
      failuresPerIpPerHour: config.loginFailuresPerIpPerHour,
    },
  });
  const accounts = createAccountService({
    accounts: new DynamoAccountRepository(db, tableName),
    sessions: new DynamoSessionRepository(db, tableName),
    tokens: new SessionTokens(config.sessionSecret, deps.clock),
    ids,
    clock: deps.clock,
    sessionTtlDays: config.sessionTtlDays,
    loginThrottle,
  });
  return httpHandler(authRoutes, authHandlers({ accounts, secureCookies: config.runtime === 'aws', clock: deps.clock }), {
    logger: loggerFor('auth', deps),
    checkResponses: deps.checkResponses,
  });
}
