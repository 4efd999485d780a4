import { readSettings } from '../../../shared/config/settings';
import { ENRICHMENT_SWEEPER } from '../../../shared/runtime/catalog';
import { systemClock } from '../../../shared/time/clock';
import { buildEnrichmentSweeperHandler } from './handler';

/** Lambda entry: settings from the environment, once per cold start. */
export const handler = buildEnrichmentSweeperHandler(readSettings(ENRICHMENT_SWEEPER.settings, process.env), { clock: systemClock });
