import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildCampaignsHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildCampaignsHandler(readSettings(FUNCTION_GROUPS.campaigns.settings, process.env), { clock: systemClock });
