import { type DynamoDBDocumentClient, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Company, type Prospect, isProspect } from '../domain/leads/lead';
import type { MemberState } from '../domain/leads/list-query';
import type { LeadChange } from '../domain/leads/ports';
import { campaignMoveActions } from './campaign-prospects';
import { cancellationReasons, isConditionFailed } from './client';
import { leadIdentityKey, listMemberKey, workspaceLeadCountsKey } from './keys';
import { guardItem, stampAction } from './lead-fingerprints';
import { companyItem, memberItem, prospectItem } from './lead-items';
import type { TransactItem } from './transactions';

/**
 * The transaction of a changed lead: the lead conditional on the version it was planned from and
 * its workspace, the identity guards it claims or releases (and the fingerprint its import row
 * stamps), deletes of its views in the lists it leaves, its campaign move.
 */
export function leadUpdateActions(tableName: string, change: LeadChange): TransactItem[] {
  const TableName = tableName;
  const { before, after } = change;
  const prospect = isProspect(after);
  const kind = prospect ? 'PROSPECT' : 'COMPANY';
  const actions: TransactItem[] = [
    {
      Put: {
        TableName,
        Item: prospect ? prospectItem(after) : companyItem(after as Company),
        ConditionExpression: '#version = :version AND workspaceId = :workspaceId',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':version': before?.version, ':workspaceId': before?.workspaceId },
      },
    },
  ];
  for (const identity of change.claim) {
    actions.push({
      Put: {
        TableName,
        Item: guardItem(after.workspaceId, kind, identity, after.id, change.stamp),
        ConditionExpression: 'attribute_not_exists(pk) OR leadId = :id',
        ExpressionAttributeValues: { ':id': after.id },
      },
    });
  }
  if (change.stamp && !change.claim.includes(change.stamp.identity)) actions.push(stampAction(tableName, after.workspaceId, change.stamp));
  for (const identity of change.release) {
    actions.push({
      Delete: {
        TableName,
        Key: leadIdentityKey(after.workspaceId, kind, identity),
        ConditionExpression: 'leadId = :id',
        ExpressionAttributeValues: { ':id': after.id },
      },
    });
  }
  const previous = new Set(before?.listIds ?? []);
  for (const listId of previous) {
    if (!after.listIds.includes(listId)) actions.push({ Delete: { TableName, Key: listMemberKey(listId, after.id) } });
  }
  actions.push(...campaignMoveActions(TableName, change));
  return actions;
}

/**
 * Writes of a prospect change its lists' digests do not see (a status: no sort or filter value,
 * company, campaign or list changes): no batch is opened, so no journal, list item or digest chunk
 * is written or read. The prospect and its campaign prospect item change in one transaction; its
 * views follow, each conditional on holding an older version (never over a newer one). The digest
 * entries keep the version they had: their content is the same, and a digest change older than it
 * is still refused (versions only grow).
 */
export class ViewOnlyWrites {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async save(change: LeadChange): Promise<'applied' | 'conflict'> {
    const { before, after } = change;
    if (!before || !isProspect(after) || after.listIds.join() !== before.listIds.join() || change.claim.length || change.release.length) {
      throw new Error('saveViewOnly takes a prospect change that keeps its lists and identities');
    }
    // Other writers' view puts (BatchWriteItem, unconditional) may land late; they look again
    // unless no batch opened in the workspace since theirs (see verifyViews). This write counts as
    // one: `batches` moves after the prospect was read and before it is written.
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: workspaceLeadCountsKey(after.workspaceId),
        UpdateExpression: 'ADD batches :one SET entityType = :type, workspaceId = :workspaceId',
        ExpressionAttributeValues: { ':one': 1, ':type': 'WorkspaceLeadCounts', ':workspaceId': after.workspaceId },
      }),
    );
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: leadUpdateActions(this.tableName, change) }));
    } catch (error) {
      if (cancellationReasons(error)?.some((reason) => reason.Code === 'ConditionalCheckFailed')) return 'conflict';
      throw error;
    }
    await this.repairViews(after, change.member);
    return 'applied';
  }

  async repairViews(prospect: Prospect, member: MemberState): Promise<void> {
    await Promise.all(
      prospect.listIds.map(async (listId) => {
        try {
          await this.db.send(
            new PutCommand({
              TableName: this.tableName,
              Item: memberItem('PEOPLE', listId, prospect.id, prospect.version, member),
              // Never over a newer view; a missing one (a join still writing it) is put.
              ConditionExpression: 'attribute_not_exists(pk) OR #version < :version',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: { ':version': prospect.version },
            }),
          );
        } catch (error) {
          if (!isConditionFailed(error)) throw error;
        }
      }),
    );
  }
}
