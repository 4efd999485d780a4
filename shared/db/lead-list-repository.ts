import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { conflict } from '../domain/errors';
import type { LeadList } from '../domain/leads/lead';
import type { LeadListRepository, MemberPage, MemberPageQuery } from '../domain/leads/ports';
import { isConditionFailed, queryAll } from './client';
import { parseItem } from './item-schema';
import { ListMemberItem, SORT_INDEX, filterAttribute, leadListItem, toLeadList } from './lead-items';
import { LEAD_LIST_PREFIX, LIST_MEMBER_PREFIX, leadListKey, listMemberKey } from './keys';

/** Lead lists and the queries over their members. */
export class DynamoLeadListRepository implements LeadListRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
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

  async get(workspaceId: number, listId: number): Promise<LeadList | undefined> {
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
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return items.map(toLeadList);
  }

  /**
   * A Query on the list's member partition: on the table's sort key for `id`, otherwise on the
   * field's LSI, in the requested direction. Without filters it stops after offset + limit
   * members; with filters it reads every member once, so the count of matches is exact.
   */
  async queryMembers(list: LeadList, query: MemberPageQuery): Promise<MemberPage> {
    const slot = query.sortField === 'id' ? undefined : SORT_INDEX[list.searchType][query.sortField];
    const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk', '#lead': 'leadId' };
    const values: Record<string, unknown> = { ':pk': listMemberKey(list.id, 0).pk };
    let keyCondition = '#pk = :pk';
    if (!slot) {
      values[':prefix'] = LIST_MEMBER_PREFIX;
      keyCondition += ' AND begins_with(#sk, :prefix)';
    }
    const clauses = query.filters.map((filter, i) => {
      names[`#f${i}`] = filterAttribute(filter.key);
      return `(${filter.values
        .map((value, j) => {
          values[`:f${i}_${j}`] = value;
          return `contains(#f${i}, :f${i}_${j})`;
        })
        .join(' OR ')})`;
    });
    const filtered = clauses.length > 0;
    const wanted = query.offset + query.limit;

    const ids: number[] = [];
    let ExclusiveStartKey: QueryCommandInput['ExclusiveStartKey'];
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          ...(slot ? { IndexName: slot.index } : {}),
          KeyConditionExpression: keyCondition,
          ...(filtered ? { FilterExpression: clauses.join(' AND ') } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          // The keys too, so that a malformed member can be named.
          ProjectionExpression: '#pk, #sk, #lead',
          ScanIndexForward: query.direction === 'asc',
          // Members written a moment ago must be listed: LSIs, unlike GSIs, can be read consistently.
          ConsistentRead: true,
          ...(filtered ? {} : { Limit: wanted - ids.length }),
          ExclusiveStartKey,
        }),
      );
      ids.push(...(page.Items ?? []).map((item) => parseItem(ListMemberItem, item).leadId));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey && (filtered || ids.length < wanted));

    return {
      leadIds: ids.slice(query.offset, wanted),
      ...(filtered ? { matched: ids.length } : {}),
    };
  }
}
