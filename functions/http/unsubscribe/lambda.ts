import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildUnsubscribeHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildUnsubscribeHandler(readSettings(FUNCTION_GROUPS.unsubscribe.settings, process.env), { clock: systemClock });
