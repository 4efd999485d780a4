import { FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildEnrichmentHandler } from './handler';

export const handler = lambdaEntry(buildEnrichmentHandler, FUNCTION_GROUPS.enrichment.settings, process.env, { clock: systemClock });
