import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildApiKeysHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildApiKeysHandler(readSettings(FUNCTION_GROUPS.apiKeys.settings, process.env), { clock: systemClock });
