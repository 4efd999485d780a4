import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildSuppressionsHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildSuppressionsHandler(readSettings(FUNCTION_GROUPS.suppressions.settings, process.env), { clock: systemClock });
