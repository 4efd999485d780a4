import { setTimeout as sleep } from 'node:timers/promises';
import type { ENRICHMENT_PROVIDER_SETTINGS, QUEUE_SETTINGS, SettingsOf } from '../config/settings';
import { DynamoEnrichmentRepository } from '../db/enrichment-repository';
import { DynamoLeadRepository } from '../db/lead-repository';
import { createCompletionNotifier } from '../domain/enrichment/notifier';
import { createEnrichmentProcessor } from '../domain/enrichment/processor';
import type { Logger } from '../logging/logger';
import { SqsDeliveryQueue, makeSqsClient } from '../messaging/sqs';
import { findersFrom } from '../providers/enrichment/finders';
import type { Clock } from '../time/clock';
import type { TableAccess } from './table';

/** Provider calls in flight at once in one function. */
const PROVIDER_CONCURRENCY = 32;

/**
 * What a function keeps, past a provider call's timeout, for the writes after the search: a group's
 * lead writes, the chunks' resolution and refund, the job's completion (a few seconds at most).
 */
const WRITES_RESERVE_MS = 6_000;

export type EnrichmentWorkerSettings = SettingsOf<typeof ENRICHMENT_PROVIDER_SETTINGS> &
  SettingsOf<typeof QUEUE_SETTINGS> & { awsRegion: string; maxLeadsPerList: number };

/** The processor of enrichment chunks (the worker, and the enrichment function's sync mode). */
export function enrichmentProcessorFrom(config: EnrichmentWorkerSettings, { db, tableName, ids }: TableAccess, clock: Clock, logger: Logger) {
  const sqs = makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion });
  return createEnrichmentProcessor({
    jobs: new DynamoEnrichmentRepository(db, tableName),
    leads: new DynamoLeadRepository(db, tableName, clock),
    finders: findersFrom(config),
    ids,
    clock,
    notifier: createCompletionNotifier({ queue: new SqsDeliveryQueue(sqs, config.webhooksQueueUrl), clock }),
    maxLeadsPerList: config.maxLeadsPerList,
    concurrency: PROVIDER_CONCURRENCY,
    callReserveMs: config.enrichmentTimeoutMs + WRITES_RESERVE_MS,
    warn: (message, extra) => logger.warn(message, extra ?? {}),
    pause: (ms) => sleep(ms),
  });
}
