import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildHealthHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildHealthHandler(readSettings(FUNCTION_GROUPS.health.settings, process.env), { clock: systemClock });
