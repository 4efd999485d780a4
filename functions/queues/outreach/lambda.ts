import { readSettings } from '../../../shared/config/settings';
import { OUTREACH } from '../../../shared/runtime/catalog';
import { systemClock } from '../../../shared/time/clock';
import { buildOutreachHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildOutreachHandler(readSettings(OUTREACH.settings, process.env), { clock: systemClock });
