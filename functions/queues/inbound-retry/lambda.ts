import { INBOUND_RETRY } from '../../../shared/runtime/catalog';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildInboundRetryHandler } from './handler';

/** Lambda entry: settings from the environment once per cold start, secrets from Secrets Manager (cached). */
export const handler = lambdaEntry(buildInboundRetryHandler, INBOUND_RETRY.settings, process.env, { clock: systemClock });
