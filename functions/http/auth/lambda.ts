import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildAuthHandler } from './handler';

/** Lambda entry: settings from the environment once per cold start, secrets from Secrets Manager (cached). */
export const handler = lambdaEntry(buildAuthHandler, FUNCTION_GROUPS.auth.settings, process.env, { clock: systemClock });
