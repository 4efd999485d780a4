import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as v from 'valibot';
import type { SettingsOf } from '../../../shared/config/settings';
import { DynamoCampaignProspects } from '../../../shared/db/campaign-prospects';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { DynamoOutreachActions } from '../../../shared/db/outreach-actions';
import { DynamoSendCounters } from '../../../shared/db/send-counters';
import { DynamoWaitingProspects } from '../../../shared/db/waiting-prospects';
import { type SchedulingMessage, createSchedulingSweep } from '../../../shared/domain/campaigns/scheduling';
import { sqsCampaignScheduling } from '../../../shared/messaging/campaign-scheduling-queue';
import { makeSqsClient } from '../../../shared/messaging/sqs';
import type { CAMPAIGN_SCHEDULING } from '../../../shared/runtime/catalog';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { tableAccess } from '../../../shared/runtime/table';

const MessageSchema = v.object({
  campaign_id: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  workspace_id: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  node_id: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(1))),
  after: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  complete: v.optional(v.literal(true)),
  repace: v.optional(v.literal(true)),
});

/** Prospects scheduled per message: a page of conditional writes well inside the consumer's timeout. */
export const SCHEDULING_PAGE_SIZE = 200;

function parseMessage(body: string): SchedulingMessage | undefined {
  try {
    const result = v.safeParse(MessageSchema, JSON.parse(body));
    return result.success ? result.output : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Consumer of the campaign-scheduling queue: schedules one page of a campaign's waiting prospects;
 * for a message naming a node whose delay was edited, retimes one page of the actions waiting on
 * it; for one marked `repace` (its caps or window changed), makes one page of the actions waiting
 * on them due now; for one marked `complete`, asks whether the campaign is complete. While more are left it sends the next message before acknowledging this one (a crash in
 * between only repeats a page, which changes nothing twice).
 */
export function buildCampaignSchedulingHandler(config: SettingsOf<typeof CAMPAIGN_SCHEDULING.settings>, deps: FunctionDeps) {
  const logger = loggerFor('campaign-scheduling', deps);
  const { db, tableName } = tableAccess(config, deps);
  const queue = sqsCampaignScheduling(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.campaignSchedulingQueueUrl);
  const sweep = createSchedulingSweep({
    campaigns: new DynamoCampaignRepository(db, tableName),
    prospects: new DynamoCampaignProspects(db, tableName),
    waiting: new DynamoWaitingProspects(db, tableName),
    parked: new DynamoOutreachActions(db, tableName),
    counters: new DynamoSendCounters(db, tableName),
    clock: deps.clock,
    pageSize: SCHEDULING_PAGE_SIZE,
  });
  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    if (context) logger.addContext(context);
    const failures: SQSBatchItemFailure[] = [];
    for (const record of event.Records) {
      const message = parseMessage(record.body);
      if (!message) {
        // A message that can never be processed: dropping it loses nothing (activate sends a new one).
        logger.warn('Poison campaign-scheduling message dropped', { messageId: record.messageId });
        continue;
      }
      try {
        if (message.complete) {
          await sweep.complete(message);
        } else if (message.repace) {
          const next = await sweep.repace(message);
          if (next !== 'done') await queue.send(next);
        } else if (message.node_id !== undefined) {
          const next = await sweep.retime({ ...message, node_id: message.node_id });
          if (next !== 'done') await queue.send(next);
        } else if ((await sweep.run(message)) === 'more') await queue.send(message);
      } catch (error) {
        logger.error('Campaign scheduling failed; the message will be retried', { messageId: record.messageId, campaignId: message.campaign_id, error: String(error) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
