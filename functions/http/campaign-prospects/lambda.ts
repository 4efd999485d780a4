import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildCampaignProspectsHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildCampaignProspectsHandler(readSettings(FUNCTION_GROUPS.campaignProspects.settings, process.env), { clock: systemClock });
