import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildChatsHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildChatsHandler(readSettings(FUNCTION_GROUPS.chats.settings, process.env), { clock: systemClock });
