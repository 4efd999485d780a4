import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ACCEPTANCE_REF, type CampaignEvent, type CampaignEvents } from '../domain/engine/campaign-events';
import { isConditionFailed } from './client';
import { campaignEventKey } from './keys';

/** Campaign events (shared/domain/engine/campaign-events.ts): ~0.3 KB each in the campaign's events partition, 1 WCU. */
export class DynamoCampaignEvents implements CampaignEvents {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async record(event: CampaignEvent): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...campaignEventKey(event.campaignId, event.kind, event.prospectId, event.ref), entityType: 'CampaignEvent', ...event },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  async accepted(campaignId: number, prospectId: number): Promise<boolean> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: campaignEventKey(campaignId, 'INVITE_ACCEPTED', prospectId, ACCEPTANCE_REF),
        ProjectionExpression: 'pk',
        ConsistentRead: true,
      }),
    );
    return Item !== undefined;
  }
}
