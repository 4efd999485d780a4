import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ProspectLookup, ProspectRef } from '../domain/connections/ports';
import { prospectKey } from './keys';

/**
 * The connection check's view of a prospect: one strongly consistent GetItem on the prospect's own
 * partition (shared/db/keys.ts `prospectKey`, written by the prospects capability), reading only
 * `workspaceId` and `networkProfileUrl`.
 */
export class DynamoProspectLookup implements ProspectLookup {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async findProspect(prospectId: number): Promise<ProspectRef | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: prospectKey(prospectId),
        ConsistentRead: true,
        ProjectionExpression: 'id, workspaceId, networkProfileUrl',
      }),
    );
    if (!Item) return undefined;
    return {
      id: Number(Item.id ?? prospectId),
      workspaceId: Number(Item.workspaceId),
      networkProfileUrl: typeof Item.networkProfileUrl === 'string' && Item.networkProfileUrl ? Item.networkProfileUrl : null,
    };
  }
}
