import { readSettings } from '../../../shared/config/settings';
import { WEBHOOK_DELIVERY } from '../../../shared/runtime/catalog';
import { systemClock } from '../../../shared/time/clock';
import { buildWebhookDeliveryHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildWebhookDeliveryHandler(readSettings(WEBHOOK_DELIVERY.settings, process.env), { clock: systemClock });
