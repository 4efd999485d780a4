import { readSettings } from '../../../shared/config/settings';
import { CAMPAIGN_SCHEDULING } from '../../../shared/runtime/catalog';
import { systemClock } from '../../../shared/time/clock';
import { buildCampaignSchedulingHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildCampaignSchedulingHandler(readSettings(CAMPAIGN_SCHEDULING.settings, process.env), { clock: systemClock });
