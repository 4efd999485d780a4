import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildAccountsHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildAccountsHandler(readSettings(FUNCTION_GROUPS.accounts.settings, process.env), { clock: systemClock });
