import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildProviderWebhooksHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildProviderWebhooksHandler(readSettings(FUNCTION_GROUPS.providerWebhooks.settings, process.env), { clock: systemClock });
