import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PROSPECT_STATUSES } from '../domain/campaigns/campaign';
import type { CampaignProspect } from '../domain/campaigns/campaign-prospect';
import type { WaitingProspects } from '../domain/campaigns/scheduling';
import { isConditionFailed } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { UNSCHEDULED_PREFIX, campaignProspectDue, campaignProspectKey } from './keys';

export const CampaignProspectItem = itemSchema(
  'CampaignProspect',
  v.object({
    campaignId: intAttribute,
    prospectId: intAttribute,
    workspaceId: intAttribute,
    status: v.picklist(PROSPECT_STATUSES),
    nodeId: v.nullable(intAttribute),
    schedule: v.picklist(['WAITING', 'QUEUED', 'SCHEDULED']),
    nextActionAt: v.nullable(v.string()),
    lastError: v.nullable(v.string()),
    companyId: v.nullable(intAttribute),
    addedAt: v.string(),
    updatedAt: v.string(),
  }),
);

/** The campaign prospects that wait for their campaign to run, found through the sparse lsi2. */
export class DynamoWaitingProspects implements WaitingProspects {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async page(campaignId: number, limit: number): Promise<CampaignProspect[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'lsi2',
        KeyConditionExpression: 'pk = :pk AND begins_with(lsi2sk, :waiting)',
        ExpressionAttributeValues: { ':pk': campaignProspectKey(campaignId, 0).pk, ':waiting': UNSCHEDULED_PREFIX },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => parseItem(CampaignProspectItem, item));
  }

  async schedule(prospect: CampaignProspect, nodeId: number | null, nextActionAt: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: campaignProspectKey(prospect.campaignId, prospect.prospectId),
          UpdateExpression: 'SET #schedule = :scheduled, nodeId = :node, nextActionAt = :at, updatedAt = :at, gsi2pk = :duePk, gsi2sk = :dueSk REMOVE lsi2sk',
          ConditionExpression: 'attribute_exists(lsi2sk)',
          ExpressionAttributeNames: { '#schedule': 'schedule' },
          ExpressionAttributeValues: {
            ':scheduled': 'SCHEDULED',
            ':node': nodeId,
            ':at': nextActionAt,
            ':duePk': campaignProspectDue(nextActionAt, prospect.campaignId, prospect.prospectId).gsi2pk,
            ':dueSk': campaignProspectDue(nextActionAt, prospect.campaignId, prospect.prospectId).gsi2sk,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}
