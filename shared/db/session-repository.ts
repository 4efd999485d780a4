import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { Session } from '../domain/accounts/account';
import type { SessionRepository } from '../domain/accounts/ports';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { sessionKey } from './keys';

export const SessionItem = itemSchema(
  'Session',
  v.object({ id: v.string(), userId: intAttribute, workspaceId: intAttribute, createdAt: v.string(), expiresAt: v.string(), workspaceSince: v.optional(v.string()) }),
);

export class DynamoSessionRepository implements SessionRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(session: Session): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...sessionKey(session.id),
          entityType: 'Session',
          ...session,
          // TTL removes expired sessions; expiry is still checked on read since TTL deletes lazily.
          ttl: Math.floor(Date.parse(session.expiresAt) / 1000),
        },
      }),
    );
  }

  async get(sessionId: string): Promise<Session | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: sessionKey(sessionId), ConsistentRead: true }),
    );
    return Item ? parseItem(SessionItem, Item) : undefined;
  }

  async delete(sessionId: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: sessionKey(sessionId) }));
  }

  async setWorkspace(sessionId: string, workspaceId: number, at: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: sessionKey(sessionId),
        UpdateExpression: 'SET workspaceId = :workspaceId, workspaceSince = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':workspaceId': workspaceId, ':at': at },
      }),
    );
  }
}
