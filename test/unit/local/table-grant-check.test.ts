import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { checkTableGrant } from '../../../infra/local/table-grant-check';
import { AUTHORIZER_TABLE_GRANT, GROUP_TABLE_GRANTS, SCHEDULE_TABLE_GRANTS } from '../../../infra/table-access';
import { makeDocClient } from '../../../shared/db/client';
import { OUTREACH_SCHEDULER } from '../../../shared/runtime/catalog';

/** A client whose calls the check sees and that answers every call it lets through with `{}` (no network). */
function checkedClient(name: string, grant: Parameters<typeof checkTableGrant>[1]) {
  const db = makeDocClient({ endpoint: 'http://127.0.0.1:9' });
  const violations: string[] = [];
  const sent: string[] = [];
  checkTableGrant(name, grant, violations)(db);
  db.middlewareStack.add(
    (_next, context) => async () => {
      sent.push(context.commandName ?? '');
      return { output: { $metadata: {} }, response: {} };
    },
    { step: 'finalizeRequest', name: 'answerLocally' },
  );
  return { db, violations, sent };
}

const key = { pk: 'A', sk: 'B' };

describe('the local check of table grants', () => {
  it('lets through the actions a grant names and refuses the others before sending them', async () => {
    const { db, violations, sent } = checkedClient('connections', GROUP_TABLE_GRANTS.connections);
    await db.send(new GetCommand({ TableName: 't', Key: key }));
    await db.send(new QueryCommand({ TableName: 't', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'A' } }));
    await expect(db.send(new PutCommand({ TableName: 't', Item: key }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: 'connections is not authorized to perform dynamodb:PutItem on the table: not granted (local check of infra/table-access.ts)',
    });
    expect(sent).toEqual(['GetItemCommand', 'QueryCommand']);
    expect(violations).toEqual(['connections is not authorized to perform dynamodb:PutItem on the table: not granted (local check of infra/table-access.ts)']);
  });

  it('allows a Query on an index only with queriesIndexes, and a Query on the table only with Query', async () => {
    const connections = checkedClient('connections', GROUP_TABLE_GRANTS.connections);
    await expect(
      connections.db.send(new QueryCommand({ TableName: 't', IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': 'A' } })),
    ).rejects.toThrow('connections is not authorized to perform dynamodb:Query on index gsi1: the grant has no queriesIndexes');
    // The scheduler queries gsi2 but may not query the table.
    const scheduler = checkedClient('schedule', SCHEDULE_TABLE_GRANTS[OUTREACH_SCHEDULER.name]);
    await scheduler.db.send(new QueryCommand({ TableName: 't', IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': 'A' } }));
    await expect(scheduler.db.send(new QueryCommand({ TableName: 't', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'A' } }))).rejects.toThrow(
      'dynamodb:Query on the table: not granted',
    );
    // Nor any index but gsi2: it reads no item by key, so gsi1 would widen what it can read.
    await expect(
      scheduler.db.send(new QueryCommand({ TableName: 't', IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': 'A' } })),
    ).rejects.toThrow("schedule is not authorized to perform dynamodb:Query on index gsi1: the grant's queriesIndexes are gsi2 (local check of infra/table-access.ts)");
  });

  it('checks each part of a transaction as its own action', async () => {
    const { db, violations } = checkedClient('campaigns', GROUP_TABLE_GRANTS.campaigns);
    await db.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 't', Item: key } }, { ConditionCheck: { TableName: 't', Key: key, ConditionExpression: 'attribute_exists(pk)' } }] }));
    const analytics = checkedClient('analytics', GROUP_TABLE_GRANTS.analytics);
    await expect(analytics.db.send(new TransactWriteCommand({ TransactItems: [{ Update: { TableName: 't', Key: key, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': 1 } } }] }))).rejects.toThrow(
      'analytics is not authorized to perform dynamodb:UpdateItem on the table: not granted',
    );
    expect(violations).toEqual([]);
  });

  it('allows an attribute-limited action on those attributes only, answering nothing back', async () => {
    const { db } = checkedClient('authorizer', AUTHORIZER_TABLE_GRANT);
    await db.send(
      new TransactWriteCommand({
        TransactItems: [{ Update: { TableName: 't', Key: key, UpdateExpression: 'SET lastUsed = :at', ConditionExpression: 'prefix = :p', ExpressionAttributeValues: { ':at': 'x', ':p': 'y' } } }],
      }),
    );
    await db.send(new UpdateCommand({ TableName: 't', Key: key, UpdateExpression: 'SET #w = :at', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeNames: { '#w': 'lastUsedWrittenAt' }, ExpressionAttributeValues: { ':at': 'x' } }));
    await expect(
      db.send(new UpdateCommand({ TableName: 't', Key: key, UpdateExpression: 'SET lastUsed = :at, #h = :h', ExpressionAttributeNames: { '#h': 'secretHash' }, ExpressionAttributeValues: { ':at': 'x', ':h': 'z' } })),
    ).rejects.toThrow('authorizer is not authorized to perform dynamodb:UpdateItem on the table: only on prefix, lastUsed, lastUsedWrittenAt, not secretHash');
    await expect(db.send(new UpdateCommand({ TableName: 't', Key: key, UpdateExpression: 'SET lastUsed = :at', ExpressionAttributeValues: { ':at': 'x' }, ReturnValues: 'ALL_OLD' }))).rejects.toThrow(
      'ReturnValues must be NONE',
    );
  });

  it('refuses every call of a function without a table grant', async () => {
    const { db } = checkedClient('health', GROUP_TABLE_GRANTS.health);
    await expect(db.send(new GetCommand({ TableName: 't', Key: key }))).rejects.toThrow('health is not authorized to perform dynamodb:GetItem on the table: the function has no table grant');
  });
});
