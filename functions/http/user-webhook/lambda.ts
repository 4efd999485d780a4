import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildUserWebhookHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildUserWebhookHandler(readSettings(FUNCTION_GROUPS.userWebhook.settings, process.env), { clock: systemClock });
