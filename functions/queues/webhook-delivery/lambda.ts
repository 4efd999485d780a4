import { WEBHOOK_DELIVERY } from '../../../shared/runtime/catalog';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildWebhookDeliveryHandler } from './handler';

/** Lambda entry: settings from the environment once per cold start, secrets from Secrets Manager (cached). */
export const handler = lambdaEntry(buildWebhookDeliveryHandler, WEBHOOK_DELIVERY.settings, process.env, { clock: systemClock });
