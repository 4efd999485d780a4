import { CAMPAIGN_SCHEDULING } from '../../../shared/runtime/catalog';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildCampaignSchedulingHandler } from './handler';

/** Lambda entry: settings from the environment once per cold start, secrets from Secrets Manager (cached). */
export const handler = lambdaEntry(buildCampaignSchedulingHandler, CAMPAIGN_SCHEDULING.settings, process.env, { clock: systemClock });
