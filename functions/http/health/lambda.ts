import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildHealthHandler } from './handler';

/** Lambda entry: settings from the environment once per cold start, secrets from Secrets Manager (cached). */
export const handler = lambdaEntry(buildHealthHandler, FUNCTION_GROUPS.health.settings, process.env, { clock: systemClock });
