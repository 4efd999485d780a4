import { readSettings } from '../../../shared/config/settings';
import { ENRICHMENT } from '../../../shared/runtime/catalog';
import { systemClock } from '../../../shared/time/clock';
import { buildEnrichmentWorkerHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildEnrichmentWorkerHandler(readSettings(ENRICHMENT.settings, process.env), { clock: systemClock });
