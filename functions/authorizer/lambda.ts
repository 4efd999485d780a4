import { readSettings } from '../../shared/config/settings';
import { AUTHORIZER } from '../../shared/http/route-table';
import { systemClock } from '../../shared/time/clock';
import { buildAuthorizer } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildAuthorizer(readSettings(AUTHORIZER.settings, process.env), { clock: systemClock });
