import { ENRICHMENT_SWEEPER } from '../../../shared/runtime/catalog';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { systemClock } from '../../../shared/time/clock';
import { buildEnrichmentSweeperHandler } from './handler';

/** Lambda entry: settings from the environment once per cold start, secrets from Secrets Manager (cached). */
export const handler = lambdaEntry(buildEnrichmentSweeperHandler, ENRICHMENT_SWEEPER.settings, process.env, { clock: systemClock });
