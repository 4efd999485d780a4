import { type DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { CampaignProspect } from '../domain/campaigns/campaign-prospect';
import type { WaitingProspects } from '../domain/campaigns/scheduling';
import { isConditionFailed, isTransactionConditionFailed } from './client';
import { toCampaignProspect } from './campaign-prospects';
import { UNSCHEDULED_PREFIX, campaignProspectKey } from './keys';
import { firstAction, outreachActionItem } from './outreach-actions';

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

  async schedule(prospect: CampaignProspect, nodeId: number | null, nextActionAt: string): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: campaignProspectKey(prospect.campaignId, prospect.prospectId),
                UpdateExpression: 'SET #schedule = :scheduled, nodeId = :node, nextActionAt = :at, updatedAt = :at REMOVE lsi2sk',
                ConditionExpression: 'attribute_exists(lsi2sk)',
                ExpressionAttributeNames: { '#schedule': 'schedule' },
                ExpressionAttributeValues: { ':scheduled': 'SCHEDULED', ':node': nodeId, ':at': nextActionAt },
              },
            },
            // Its first action, due now: the engine takes it from here.
            { Put: { TableName: this.tableName, Item: outreachActionItem(firstAction(prospect, nodeId, nextActionAt)) } },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error) || isTransactionConditionFailed(error)) return false;
      throw error;
    }
  }
}
