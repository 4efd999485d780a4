import { readSettings } from '../../../shared/config/settings';
import { OUTREACH_SCHEDULER } from '../../../shared/runtime/catalog';
import { systemClock } from '../../../shared/time/clock';
import { buildOutreachSchedulerHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildOutreachSchedulerHandler(readSettings(OUTREACH_SCHEDULER.settings, process.env), { clock: systemClock });
