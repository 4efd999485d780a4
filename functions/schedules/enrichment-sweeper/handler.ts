import type { Context, ScheduledEvent } from 'aws-lambda';
import type { SettingsOf } from '../../../shared/config/settings';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { createCompletionNotifier } from '../../../shared/domain/enrichment/notifier';
import { createEnrichmentSweeper } from '../../../shared/domain/enrichment/sweeper';
import { sqsChunkQueue } from '../../../shared/messaging/enrichment-queue';
import { SqsDeliveryQueue, makeSqsClient } from '../../../shared/messaging/sqs';
import type { ENRICHMENT_SWEEPER } from '../../../shared/runtime/catalog';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';

/** Longer than a worker can take on a message (the queue's visibility timeout is 720 s). */
export const STALE_JOB_MS = 15 * 60_000;

/** The enrichment sweeper: resumes jobs without progress (shared/domain/enrichment/sweeper.ts). */
export function buildEnrichmentSweeperHandler(config: SettingsOf<typeof ENRICHMENT_SWEEPER.settings>, deps: FunctionDeps) {
  const logger = loggerFor('enrichment-sweeper', deps);
  const { db, tableName } = tableAccess(config, deps);
  const sqs = makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion });
  const sweeper = createEnrichmentSweeper({
    jobs: new DynamoEnrichmentRepository(db, tableName),
    queue: sqsChunkQueue(sqs, config.enrichmentQueueUrl),
    notifier: createCompletionNotifier({ queue: new SqsDeliveryQueue(sqs, config.webhooksQueueUrl), clock: deps.clock }),
    clock: deps.clock,
    staleMs: STALE_JOB_MS,
  });
  return async (_event: ScheduledEvent, context?: Context) => {
    if (context) logger.addContext(context);
    const report = await sweeper.sweep();
    if (report.resumed > 0) logger.info('Enrichment jobs resumed', { ...report });
    return report;
  };
}
