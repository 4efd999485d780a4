import { DynamoCreditRepository } from '../../../shared/db/credit-repository';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { DynamoLeadListRepository } from '../../../shared/db/lead-list-repository';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { createCreditService } from '../../../shared/domain/credits/credits';
import { createEnrichmentService } from '../../../shared/domain/enrichment/enrichment-service';
import { httpHandler } from '../../../shared/http/http-handler';
import type { GroupConfig } from '../../../shared/http/route-table';
import { enrichmentRoutes } from '../../../shared/http/routes/enrichment';
import { sqsChunkQueue } from '../../../shared/messaging/enrichment-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import { enrichmentProcessorFrom } from '../../../shared/runtime/enrichment';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { loopbackAllowed } from '../../../shared/runtime/integrations';
import { tableAccess } from '../../../shared/runtime/table';
import { createDestinationPolicy } from '../../../shared/webhooks/destination';
import { enrichmentHandlers } from './routes';

/** The enrichment function: credits, the estimate, starting a job (sync mode works it here), a job's state. */
export function buildEnrichmentHandler(config: GroupConfig<'enrichment'>, deps: FunctionDeps) {
  const access = tableAccess(config, deps);
  const { db, tableName, ids } = access;
  const logger = loggerFor('enrichment', deps);
  const leads = new DynamoLeadRepository(db, tableName, deps.clock);
  const credits = new DynamoCreditRepository(db, tableName);
  // The completion webhook's URL is checked here (SSRF rules); its events are signed by the delivery worker.
  const policy = createDestinationPolicy({ allowLoopback: loopbackAllowed(config) });
  const enrichment = createEnrichmentService({
    lists: new DynamoLeadListRepository(db, tableName, leads.members, leads.journal),
    members: {
      async entries(listId) {
        return [...(await leads.members.readDigest(listId)).values()].flatMap((stored) => [...stored.chunk.entries.values()]);
      },
    },
    credits,
    jobs: new DynamoEnrichmentRepository(db, tableName),
    queue: sqsChunkQueue(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.enrichmentQueueUrl),
    processor: enrichmentProcessorFrom(config, access, deps.clock, logger),
    checkWebhookUrl: (url) => policy.check(url),
    ids,
    clock: deps.clock,
    onAfterCharge: (jobId, error) =>
      logger.error('Enrichment start: a step after the charge failed; the job answers as started and the sweeper resumes it', { jobId, error: String(error) }),
  });
  return httpHandler(enrichmentRoutes, enrichmentHandlers(createCreditService({ credits, ids, clock: deps.clock }), enrichment), {
    logger,
    checkResponses: deps.checkResponses,
  });
}
