import type { PullFailed } from '../domain/engine/slot-returns';
import type { QUEUE_SETTINGS, SettingsOf } from '../config/settings';
import { DynamoCampaignEvents } from '../db/campaign-events';
import { DynamoCampaignProspects } from '../db/campaign-prospects';
import { DynamoCampaignRepository } from '../db/campaign-repository';
import { DynamoConversationStore } from '../db/conversation-repository';
import { DynamoInboundLinks } from '../db/inbound-links';
import { DynamoInboundMessageRepository } from '../db/inbound-message-repository';
import { DynamoLeadRepository } from '../db/lead-repository';
import { DynamoOutcomeLog } from '../db/outcome-log';
import { DynamoOutreachActions } from '../db/outreach-actions';
import { DynamoSenderAccountRepository } from '../db/sender-account-repository';
import { DynamoWorkspaceMembers } from '../db/workspace-members';
import { createInboundRouter } from '../domain/inbox/inbound-router';
import { createEventPublisher } from '../domain/webhooks/event-publisher';
import { SqsDeliveryQueue, makeSqsClient } from '../messaging/sqs';
import type { Clock } from '../time/clock';
import { sequenceStopsFrom } from './sequence-stops';
import { suppressionsFrom } from './suppressions';
import type { TableAccess } from './table';

/**
 * The inbound router of the provider-webhooks function (replies, auto-replies, bounces, accepted
 * invitations): replies become `incoming_message` events on the webhooks queue, through the event
 * publisher. Kept apart from integrations.ts so functions that never publish do not load the SQS client.
 */
export function inboundRouterFrom(
  config: SettingsOf<typeof QUEUE_SETTINGS> & { awsRegion: string; maxLeadsPerList: number },
  table: TableAccess,
  clock: Clock,
  onPullFailed?: PullFailed,
) {
  const { db, tableName, ids } = table;
  const campaignProspects = new DynamoCampaignProspects(db, tableName);
  return createInboundRouter({
    accounts: new DynamoSenderAccountRepository(db, tableName),
    leads: new DynamoLeadRepository(db, tableName, clock),
    messages: new DynamoInboundMessageRepository(db, tableName),
    links: new DynamoInboundLinks(db, tableName),
    sentEmails: new DynamoOutcomeLog(db, tableName, clock),
    stops: sequenceStopsFrom(table, clock, config.maxLeadsPerList, { onPullFailed }),
    events: new DynamoCampaignEvents(db, tableName, clock),
    campaigns: new DynamoCampaignRepository(db, tableName),
    colleagues: { inCampaign: (campaignId, companyId) => campaignProspects.colleagues(campaignId, companyId) },
    actions: new DynamoOutreachActions(db, tableName),
    conversations: new DynamoConversationStore(db, tableName),
    suppressions: suppressionsFrom(table, clock),
    publisher: createEventPublisher({
      members: new DynamoWorkspaceMembers(db, tableName),
      queue: new SqsDeliveryQueue(makeSqsClient({ endpoint: config.sqsEndpoint, region: config.awsRegion }), config.webhooksQueueUrl),
      clock,
    }),
    ids,
    clock,
  });
}
