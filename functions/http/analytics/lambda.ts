import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildAnalyticsHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildAnalyticsHandler(readSettings(FUNCTION_GROUPS.analytics.settings, process.env), { clock: systemClock });
