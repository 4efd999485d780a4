import { readSettings } from '../../../shared/config/settings';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { systemClock } from '../../../shared/time/clock';
import { buildEnrichmentHandler } from './handler';

export const handler = buildEnrichmentHandler(readSettings(FUNCTION_GROUPS.enrichment.settings, process.env), { clock: systemClock });
