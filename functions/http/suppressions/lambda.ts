import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildSuppressionsHandler } from './handler';

/** Lambda entry: settings from the environment once per cold start, secrets from Secrets Manager (cached). */
export const handler = lambdaEntry(buildSuppressionsHandler, FUNCTION_GROUPS.suppressions.settings, process.env, { clock: systemClock });
