import { systemClock } from '../../../shared/time/clock';
import { SessionEnv, loadEnv } from '../../../shared/config/env';
import { DynamoAccountRepository } from '../../../shared/db/account-repository';
import { DynamoSessionRepository } from '../../../shared/db/session-repository';
import { createAccountService } from '../../../shared/domain/accounts/account-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { tableAccess } from '../../../shared/runtime/table';
import { SessionTokens } from '../../../shared/security/session-tokens';
import { authRoutes } from './routes';

const env = loadEnv(SessionEnv);
const { db, tableName, ids } = tableAccess(env);

const accounts = createAccountService({
  accounts: new DynamoAccountRepository(db, tableName),
  sessions: new DynamoSessionRepository(db, tableName),
  tokens: new SessionTokens(env.SESSION_SECRET),
  ids,
  clock: systemClock,
  sessionTtlDays: env.SESSION_TTL_DAYS,
});

export const handler = httpHandler(authRoutes({ accounts, secureCookies: env.RUNTIME === 'aws' }));
