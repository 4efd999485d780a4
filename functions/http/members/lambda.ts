import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildMembersHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildMembersHandler(readSettings(FUNCTION_GROUPS.members.settings, process.env), { clock: systemClock });
