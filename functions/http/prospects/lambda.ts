import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildProspectsHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildProspectsHandler(readSettings(FUNCTION_GROUPS.prospects.settings, process.env), { clock: systemClock });
