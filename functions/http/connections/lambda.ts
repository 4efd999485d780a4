import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildConnectionsHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildConnectionsHandler(readSettings(FUNCTION_GROUPS.connections.settings, process.env), { clock: systemClock });
