import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { Membership, User, Workspace, WorkspaceRole } from '../domain/accounts/account';
import type { AccountRepository } from '../domain/accounts/ports';
import { conflict } from '../domain/errors';
import { batchGetAll } from './batch-get';
import { isConditionFailed, isTransactionConditionFailed, queryAll, storedAsWritten } from './client';
import { everyValueOf, intAttribute, itemSchema, parseItem } from './item-schema';
import { MEMBERSHIP_PREFIX, membershipByWorkspace, membershipKey, userEmailKey, userKey, workspaceKey } from './keys';
import { TABLE } from './table-schema';

const userItem = (user: User) => ({
  ...userKey(user.id),
  entityType: 'User',
  id: user.id,
  email: user.email,
  passwordHash: user.passwordHash,
  createdAt: user.createdAt,
  updatedAt: user.updatedAt,
});

const workspaceItem = (workspace: Workspace) => ({ ...workspaceKey(workspace.id), entityType: 'Workspace', ...workspace });

const membershipItem = (membership: Membership) => ({
  ...membershipKey(membership.userId, membership.workspaceId),
  ...membershipByWorkspace(membership.workspaceId, membership.userId),
  entityType: 'Membership',
  ...membership,
});

export const UserItem = itemSchema(
  'User',
  v.object({ id: intAttribute, email: v.string(), passwordHash: v.string(), createdAt: v.string(), updatedAt: v.string() }),
);

/** The email guard: which user holds the address. */
export const UserEmailItem = itemSchema('UserEmail', v.object({ userId: intAttribute }));

export const MembershipItem = itemSchema(
  'Membership',
  v.object({
    userId: intAttribute,
    workspaceId: intAttribute,
    workspaceName: v.string(),
    role: v.picklist(everyValueOf<WorkspaceRole>({ OWNER: true, MEMBER: true })),
    createdAt: v.string(),
    linkedAt: v.optional(v.string()),
  }),
);

export class DynamoAccountRepository implements AccountRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createUserWithWorkspace(user: User, workspace: Workspace, membership: Membership): Promise<void> {
    const TableName = this.tableName;
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              // The email guard makes two concurrent sign-ups with one email impossible.
              Put: {
                TableName,
                Item: { ...userEmailKey(user.email), entityType: 'UserEmail', userId: user.id },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Put: { TableName, Item: userItem(user), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName, Item: workspaceItem(workspace), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName, Item: membershipItem(membership) } },
          ],
        }),
      );
    } catch (error) {
      if (isTransactionConditionFailed(error)) throw conflict('An account with this email already exists');
      throw error;
    }
  }

  // Strongly consistent, both reads: a login or a member add right after the signup must find the
  // user (DynamoDB Local always reads the latest; DynamoDB's default read may not, for about a second).
  async findUserByEmail(normalizedEmail: string): Promise<User | undefined> {
    const guard = await this.db.send(new GetCommand({ TableName: this.tableName, Key: userEmailKey(normalizedEmail), ConsistentRead: true }));
    if (!guard.Item) return undefined;
    return this.getUser(parseItem(UserEmailItem, guard.Item).userId);
  }

  async getUser(userId: number): Promise<User | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: userKey(userId), ConsistentRead: true }));
    return Item ? parseItem(UserItem, Item) : undefined;
  }

  async createWorkspace(workspace: Workspace, membership: Membership): Promise<void> {
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.tableName, Item: workspaceItem(workspace), ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName: this.tableName, Item: membershipItem(membership) } },
        ],
      }),
    );
  }

  async listMemberships(userId: number): Promise<Membership[]> {
    // Strongly consistent: who may see a workspace (the workspace_id selector, login's first
    // workspace) must follow a link or a removal at once.
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': membershipKey(userId, 0).pk, ':prefix': MEMBERSHIP_PREFIX },
      ConsistentRead: true,
    });
    return items.map((item) => parseItem(MembershipItem, item));
  }

  async getMembership(userId: number, workspaceId: number): Promise<Membership | undefined> {
    // Strongly consistent: the authorizer and the workspace switch must see a removal at once.
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: membershipKey(userId, workspaceId), ConsistentRead: true }),
    );
    return Item ? parseItem(MembershipItem, Item) : undefined;
  }

  async listMembers(workspaceId: number): Promise<Membership[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      IndexName: TABLE.gsi1.name,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': membershipByWorkspace(workspaceId, 0).gsi1pk },
    });
    return items.map((item) => parseItem(MembershipItem, item));
  }

  async getUsers(userIds: readonly number[]): Promise<User[]> {
    // Strongly consistent: a member linked just after signing up is listed with their user.
    const items = await batchGetAll(this.db, this.tableName, userIds.map(userKey), { consistent: true });
    return items.map((item) => parseItem(UserItem, item));
  }

  async addMember(membership: Membership): Promise<void> {
    // One item: no counter or guard goes with a membership (the workspace's owner link is written
    // with the workspace, in createWorkspace).
    // `writeId` tells this write's own item from one another add put with the same values.
    const item = { ...membershipItem(membership), writeId: randomUUID() };
    try {
      await this.db.send(new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      // The SDK sends a write again when its answer is lost: this link, found as this request put
      // it, is this request's own, not a member added before.
      if (await storedAsWritten(this.db, this.tableName, item)) return;
      throw conflict('User is already a member of this workspace');
    }
  }

  async removeMember(userId: number, workspaceId: number): Promise<boolean> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: membershipKey(userId, workspaceId),
          // Never an owner's link, whatever the caller read before.
          ConditionExpression: '#role = :member',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':member': 'MEMBER' satisfies WorkspaceRole },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}
