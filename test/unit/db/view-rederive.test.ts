import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ViewRederive } from '../../../shared/db/view-rederive';
import type { Prospect } from '../../../shared/domain/leads/lead';

const T = '2026-11-27T12:00:00.000Z';
const LIST = 5;
const lead: Prospect = { id: 41, workspaceId: 7, firstName: 'Ada', lastName: 'Lovelace', status: 'NEW', listIds: [LIST], version: 3, createdAt: T, updatedAt: T };

/** A table whose view transactions are cancelled for the given reasons (condition check first, then the view's write). */
const tableCancelling = (...codes: string[]) => {
  const sent: string[] = [];
  const db = {
    send: async (command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      throw Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });
    },
  } as unknown as DynamoDBDocumentClient;
  return { rederive: new ViewRederive(db, 't'), sent };
};

describe('re-deriving a list member view', () => {
  it('leaves the view to the newer writer when the lead moved on (its version condition failed)', async () => {
    const { rederive, sent } = tableCancelling('ConditionalCheckFailed', 'None');
    const changes = await rederive.rederive('PEOPLE', LIST, [lead.id], new Map([[lead.id, lead]]));
    expect([changes.map((change) => [change.id, change.version]), sent]).toEqual([[[41, 3]], ['TransactWriteCommand']]);
  });

  it('passes on any other cancellation (throttling): the digest must not count a view that was never written', async () => {
    const { rederive } = tableCancelling('None', 'ThrottlingError');
    await expect(rederive.rederive('PEOPLE', LIST, [lead.id], new Map([[lead.id, lead]]))).rejects.toThrow('Transaction cancelled');
  });
});
