import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { MembershipCheck, WorkspaceMembers } from '../domain/webhooks/ports';
import { queryAll } from './client';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { membershipByWorkspace, membershipKey } from './keys';
import { TABLE } from './table-schema';

/** What the fan-out reads of a membership. */
export const WorkspaceMemberItem = itemSchema('Membership', v.object({ userId: intAttribute }));

/** The users of a workspace, by the membership index (GSI1); one user's membership, strongly. */
export class DynamoWorkspaceMembers implements WorkspaceMembers, MembershipCheck {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listUserIds(workspaceId: number): Promise<number[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      IndexName: TABLE.gsi1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': TABLE.gsi1.partitionKey },
      ExpressionAttributeValues: { ':pk': membershipByWorkspace(workspaceId, 0).gsi1pk },
      // The keys too, so that a malformed membership can be named.
      ProjectionExpression: 'pk, sk, userId',
    });
    return items.map((item) => parseItem(WorkspaceMemberItem, item).userId);
  }

  async isMember(userId: number, workspaceId: number): Promise<boolean> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: membershipKey(userId, workspaceId), ConsistentRead: true, ProjectionExpression: 'pk' }),
    );
    return Item !== undefined;
  }
}
