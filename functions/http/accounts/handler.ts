import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { accountRoutes } from '../../../shared/http/routes/accounts';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { senderAccountServiceFrom } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
import { accountHandlers } from './routes';

/** The accounts function: sender accounts over the table and the provider. */
export function buildAccountsHandler(config: GroupConfig<'accounts'>, deps: FunctionDeps) {
  const accounts = senderAccountServiceFrom(config, tableAccess(config, deps), deps.clock);
  return httpHandler(accountRoutes, accountHandlers(accounts, deps.clock), { logger: loggerFor('accounts', deps), checkResponses: deps.checkResponses });
}
