import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildLeadListsHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildLeadListsHandler(readSettings(FUNCTION_GROUPS.leadLists.settings, process.env), { clock: systemClock });
