import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { SettingsOf } from '../../../shared/config/settings';
import { DynamoDispatchLeases } from '../../../shared/db/dispatch-leases';
import { DynamoOutreachActions } from '../../../shared/db/outreach-actions';
import { type DispatchReport, createScheduler } from '../../../shared/domain/engine/scheduler';
import { sqsOutreachQueue } from '../../../shared/messaging/outreach-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import type { OUTREACH_SCHEDULER } from '../../../shared/runtime/catalog';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';

/**
 * The outreach scheduler (EventBridge, every minute): sends the actions that came due to the
 * outreach queue (shared/domain/engine/scheduler.ts). A failed run throws, so EventBridge retries
 * it; a skipped or doubled run is harmless (leases per shard, the sender dedups).
 */
export function buildOutreachSchedulerHandler(config: SettingsOf<typeof OUTREACH_SCHEDULER.settings>, deps: FunctionDeps) {
  const logger = loggerFor('outreach-scheduler', deps);
  const { db, tableName } = tableAccess(config, deps);
  const scheduler = createScheduler({
    index: new DynamoOutreachActions(db, tableName),
    leases: new DynamoDispatchLeases(db, tableName),
    queue: sqsOutreachQueue(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.outreachQueueUrl),
    clock: deps.clock,
    holder: randomUUID,
  });
  return async (_event: ScheduledEvent, context?: Context): Promise<DispatchReport> => {
    if (context) logger.addContext(context);
    const report = await scheduler.run();
    if (report.dispatched > 0 || report.shardsSkipped > 0) logger.info('Due actions dispatched', { ...report });
    return report;
  };
}
