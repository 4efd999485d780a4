import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CampaignProspect } from '../domain/campaigns/campaign-prospect';
import type { WaitingProspects } from '../domain/campaigns/scheduling';
import { isConditionFailed } from './client';
import { toCampaignProspect } from './campaign-prospects';
import { UNSCHEDULED_PREFIX, campaignProspectDue, campaignProspectKey } from './keys';

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
    return (Items ?? []).map(toCampaignProspect);
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
