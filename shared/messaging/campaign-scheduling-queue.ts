import type { Campaign } from '../domain/campaigns/campaign';
import type { CampaignScheduling } from '../domain/campaigns/ports';
import type { SchedulingMessage } from '../domain/campaigns/scheduling';
import { type SqsSender, sendJsonMessages } from './sqs';

/** Starts a campaign's scheduling sweep by sending its first message to the campaign-scheduling queue. */
export function sqsCampaignScheduling(sqs: SqsSender, queueUrl: string): CampaignScheduling & { send(message: SchedulingMessage): Promise<void> } {
  const send = (message: SchedulingMessage) => sendJsonMessages(sqs, queueUrl, [message]);
  return {
    send,
    scheduleWaiting: (campaign: Campaign) => send({ campaign_id: campaign.id, workspace_id: campaign.workspaceId }),
    retimeNode: (campaign: Campaign, nodeId: number) => send({ campaign_id: campaign.id, workspace_id: campaign.workspaceId, node_id: nodeId }),
    repace: (campaign: Campaign) => send({ campaign_id: campaign.id, workspace_id: campaign.workspaceId, repace: true }),
    checkCompletion: (workspaceId: number, campaignId: number) => send({ campaign_id: campaignId, workspace_id: workspaceId, complete: true }),
  };
}
