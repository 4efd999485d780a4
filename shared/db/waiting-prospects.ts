import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CampaignProspect } from '../domain/campaigns/campaign-prospect';
import type { WaitingProspects } from '../domain/campaigns/scheduling';
import { isConditionFailed } from './client';
import { pendingFirstAction, toCampaignProspect } from './campaign-prospects';
import { UNSCHEDULED_PREFIX, campaignProspectKey } from './keys';

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
        // lsi2 holds keys only (shared/db/table-schema.ts): DynamoDB fetches each item from the table.
        Select: 'ALL_ATTRIBUTES',
        KeyConditionExpression: 'pk = :pk AND begins_with(lsi2sk, :waiting)',
        ExpressionAttributeValues: { ':pk': campaignProspectKey(campaignId, 0).pk, ':waiting': UNSCHEDULED_PREFIX },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map(toCampaignProspect);
  }

  /**
   * Schedules a waiting prospect: its first action is due at `nextActionAt`, carried by its campaign
   * prospect item (`pendingFirstAction`) until the engine first handles it. One conditional update:
   * only a prospect still unscheduled (on lsi2) is scheduled, so two activations never schedule it twice.
   */
  async schedule(prospect: CampaignProspect, nodeId: number | null, nextActionAt: string): Promise<boolean> {
    const due = pendingFirstAction(nextActionAt, prospect.campaignId, prospect.prospectId);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: campaignProspectKey(prospect.campaignId, prospect.prospectId),
          UpdateExpression: 'SET #schedule = :scheduled, nodeId = :node, nextActionAt = :at, updatedAt = :at, gsi2pk = :duePk, gsi2sk = :dueSk, dueAt = :at REMOVE lsi2sk',
          ConditionExpression: 'attribute_exists(lsi2sk)',
          ExpressionAttributeNames: { '#schedule': 'schedule' },
          ExpressionAttributeValues: { ':scheduled': 'SCHEDULED', ':node': nodeId, ':at': nextActionAt, ':duePk': due.gsi2pk, ':dueSk': due.gsi2sk },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}
