import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildProviderWebhooksHandler } from './handler';

/** Lambda entry: settings from the environment once per cold start, secrets from Secrets Manager (cached). */
export const handler = lambdaEntry(buildProviderWebhooksHandler, FUNCTION_GROUPS.providerWebhooks.settings, process.env, { clock: systemClock });
