import type { QUEUE_SETTINGS, SettingsOf } from '../config/settings';
import { DynamoInboundMessageRepository } from '../db/inbound-message-repository';
import { DynamoLeadRepository } from '../db/lead-repository';
import { DynamoSenderAccountRepository } from '../db/sender-account-repository';
import { DynamoWorkspaceMembers } from '../db/webhook-repository';
import { createReplyRouter } from '../domain/inbox/reply-router';
import { createEventPublisher } from '../domain/webhooks/event-publisher';
import { SqsDeliveryQueue, makeSqsClient } from '../messaging/sqs';
import type { Clock } from '../time/clock';
import type { TableAccess } from './table';

/**
 * The reply router of the provider-webhooks function: replies become `incoming_message` events on
 * the webhooks queue, through the event publisher. Kept apart from integrations.ts so functions
 * that never publish do not load the SQS client.
 */
export function replyRouterFrom(
  config: SettingsOf<typeof QUEUE_SETTINGS> & { awsRegion: string },
  { db, tableName, ids }: TableAccess,
  clock: Clock,
) {
  return createReplyRouter({
    accounts: new DynamoSenderAccountRepository(db, tableName),
    leads: new DynamoLeadRepository(db, tableName, clock),
    messages: new DynamoInboundMessageRepository(db, tableName),
    publisher: createEventPublisher({
      members: new DynamoWorkspaceMembers(db, tableName),
      queue: new SqsDeliveryQueue(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.webhooksQueueUrl),
      clock,
    }),
    ids,
    clock,
  });
}
