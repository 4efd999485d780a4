import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { ProspectLookup, ProspectRef } from '../domain/connections/ports';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { prospectKey } from './keys';

/** The attributes of a prospect item this lookup projects; no profile URL (absent or empty) is null. */
export const ProspectRefItem = itemSchema(
  'Prospect',
  v.pipe(
    v.object({ id: intAttribute, workspaceId: intAttribute, networkProfileUrl: v.optional(v.string()) }),
    v.transform(({ id, workspaceId, networkProfileUrl }): ProspectRef => ({ id, workspaceId, networkProfileUrl: networkProfileUrl || null })),
  ),
);

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
    return Item ? parseItem(ProspectRefItem, Item, prospectKey(prospectId)) : undefined;
  }
}
