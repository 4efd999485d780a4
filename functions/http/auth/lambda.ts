import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildAuthHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildAuthHandler(readSettings(FUNCTION_GROUPS.auth.settings, process.env), { clock: systemClock });
