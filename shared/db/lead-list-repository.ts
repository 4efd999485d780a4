import { newestFirst } from '../domain/ordering';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conflict } from '../domain/errors';
import type { LeadList } from '../domain/leads/lead';
import type { LeadListRepository, MemberPage, MemberPageQuery } from '../domain/leads/ports';
import { isConditionFailed, queryAll } from './client';
import { leadListItem, toLeadList } from './lead-items';
import { LEAD_LIST_PREFIX, leadListKey } from './keys';
import type { LeadJournal } from './lead-journal';
import type { ListMembers } from './list-members';

/** Lead lists and the queries over their members. */
export class DynamoLeadListRepository implements LeadListRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly members: ListMembers,
    private readonly journal: LeadJournal,
  ) {}

  async create(list: LeadList): Promise<void> {
    try {
      await this.db.send(
        new PutCommand({ TableName: this.tableName, Item: leadListItem(list), ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      if (isConditionFailed(error)) throw conflict('Lead list could not be created, please retry');
      throw error;
    }
  }

  /** The list, after finishing any batch of writes on it that was interrupted (see LeadJournal). */
  async get(workspaceId: number, listId: number): Promise<LeadList | undefined> {
    const list = await this.read(workspaceId, listId);
    if (list?.openJournals?.length && (await this.journal.settle(list))) return this.read(workspaceId, listId);
    return list;
  }

  private async read(workspaceId: number, listId: number): Promise<LeadList | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: leadListKey(workspaceId, listId), ConsistentRead: true }),
    );
    return Item ? toLeadList(Item) : undefined;
  }

  async listForWorkspace(workspaceId: number): Promise<LeadList[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': leadListKey(workspaceId, 0).pk, ':prefix': LEAD_LIST_PREFIX },
      ConsistentRead: true,
    });
    return items.map(toLeadList).sort(newestFirst);
  }

  /** One page of a list's members in the requested order: see ListMembers.page. */
  queryMembers(list: LeadList, query: MemberPageQuery): Promise<MemberPage> {
    return this.members.page(list, query);
  }
}
