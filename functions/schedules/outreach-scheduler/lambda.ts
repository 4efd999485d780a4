import { OUTREACH_SCHEDULER } from '../../../shared/runtime/catalog';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildOutreachSchedulerHandler } from './handler';

/** Lambda entry: settings from the environment once per cold start, secrets from Secrets Manager (cached). */
export const handler = lambdaEntry(buildOutreachSchedulerHandler, OUTREACH_SCHEDULER.settings, process.env, { clock: systemClock });
