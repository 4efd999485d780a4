import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { CONFLICT_ATTEMPTS, THROTTLED_ATTEMPTS, isConflictOnly, isThrottledOnly, retryConflicts } from '../../../shared/db/conflict-retries';

const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(name), { name, ...extra });
const cancelled = (...codes: string[]) => named('TransactionCanceledException', { CancellationReasons: codes.map((Code) => ({ Code })) });

/**
 * A document client whose requests never leave the process: a middleware where the request would
 * be sent answers each attempt from `answers` (an error is thrown), and records what it was sent.
 */
function clientAnswering(answers: (Error | 'ok')[]) {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
  const waits: number[] = [];
  const sent: unknown[] = [];
  retryConflicts(client, async (ms) => {
    waits.push(ms);
  });
  client.middlewareStack.add(
    () => async (args) => {
      sent.push(structuredClone(args.input));
      const answer = answers.shift();
      if (answer === undefined || answer === 'ok') return { output: { $metadata: {} }, response: {} } as never;
      throw answer;
    },
    { step: 'build', name: 'fakeTransport' },
  );
  return { client, waits, sent };
}

describe('writes refused for a transaction conflict only are sent again', () => {
  it('tells a conflict from every other refusal', () => {
    expect(
      [
        cancelled('None', 'TransactionConflict'),
        cancelled('TransactionConflict'),
        named('TransactionConflictException'),
        cancelled('ConditionalCheckFailed', 'TransactionConflict'),
        cancelled('None', 'ConditionalCheckFailed'),
        cancelled('None', 'None'),
        named('ConditionalCheckFailedException'),
        'TransactionConflict',
      ].map(isConflictOnly),
    ).toEqual([true, true, true, false, false, false, false, false]);
  });

  it('a transaction: the same items again, marshalled again, until it goes through', async () => {
    const { client, waits, sent } = clientAnswering([cancelled('None', 'TransactionConflict'), cancelled('TransactionConflict', 'None'), 'ok']);
    const items = [{ Put: { TableName: 't', Item: { pk: 'A', sk: 'A', n: 1 } } }, { Put: { TableName: 't', Item: { pk: 'B', sk: 'B', n: 2 } } }];
    await client.send(new TransactWriteCommand({ TransactItems: items }));
    expect(sent).toHaveLength(3);
    expect(sent[2]).toEqual(sent[0]);
    expect((sent[0] as { TransactItems: { Put: { Item: unknown } }[] }).TransactItems[0]?.Put.Item).toEqual({ pk: { S: 'A' }, sk: { S: 'A' }, n: { N: '1' } });
    expect(waits.map((ms) => ms >= 20 && ms < 50 + 20)).toEqual([true, true]);
  });

  it('each attempt starts from the input as given, under an SDK whose marshalling assigns back to the arguments it was given', async () => {
    const { client, sent } = clientAnswering([named('TransactionConflictException'), 'ok']);
    // What @aws-sdk/lib-dynamodb 3.778–3.848 do (a Lambda runtime may provide one of them):
    // `args.input = marshallInput(args.input, ...)`, here a mark added to the table's name.
    client.middlewareStack.add(
      (next) => async (args) => {
        const given = args as { input: { TableName: string } };
        given.input = { ...given.input, TableName: `${given.input.TableName}+` };
        return next(args);
      },
      { step: 'initialize', priority: 'low', name: 'assignsBackLikeOldMarshalling' },
    );
    await client.send(new PutCommand({ TableName: 't', Item: { pk: 'A', sk: 'A' } }));
    expect(sent.map((input) => (input as { TableName: string }).TableName)).toEqual(['t+', 't+']);
  });

  it('a transaction cancelled for throttling only: sent again with longer, growing waits, up to its own attempts', async () => {
    expect(
      [
        cancelled('None', 'ThrottlingError'),
        cancelled('ProvisionedThroughputExceeded', 'TransactionConflict'),
        cancelled('ThrottlingError', 'ConditionalCheckFailed'),
        cancelled('None', 'None'),
        named('ThrottlingException'),
      ].map(isThrottledOnly),
    ).toEqual([true, true, false, false, false]);
    const { client, waits, sent } = clientAnswering([cancelled('None', 'ThrottlingError'), cancelled('ThrottlingError', 'None'), cancelled('None', 'ThrottlingError'), 'ok']);
    await client.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 't', Item: { pk: 'A', sk: 'A' } } }, { Put: { TableName: 't', Item: { pk: 'B', sk: 'B' } } }] }));
    expect(sent).toHaveLength(4);
    expect(waits.map((ms, i) => ms >= 50 * 2 ** i && ms < 75 * 2 ** i)).toEqual([true, true, true]);
    const persistent = clientAnswering(Array.from({ length: 8 }, () => cancelled('None', 'ThrottlingError')));
    await expect(persistent.client.send(new TransactWriteCommand({ TransactItems: [] }))).rejects.toThrow('TransactionCanceledException');
    expect([THROTTLED_ATTEMPTS, persistent.sent.length]).toEqual([6, 6]);
    // Throttled tries do not use up the conflicts' own: three of them, then three conflicts, then through.
    const mixed = clientAnswering([
      cancelled('None', 'ThrottlingError'),
      cancelled('None', 'ThrottlingError'),
      cancelled('None', 'ThrottlingError'),
      cancelled('None', 'TransactionConflict'),
      cancelled('None', 'TransactionConflict'),
      cancelled('None', 'TransactionConflict'),
      'ok',
    ]);
    await mixed.client.send(new TransactWriteCommand({ TransactItems: [] }));
    expect(mixed.sent).toHaveLength(7);
    // A refused condition among them is the caller's at once.
    const refused = clientAnswering([cancelled('ThrottlingError', 'ConditionalCheckFailed')]);
    await expect(refused.client.send(new TransactWriteCommand({ TransactItems: [] }))).rejects.toThrow('TransactionCanceledException');
    expect(refused.sent).toHaveLength(1);
  });

  it(`gives up after ${CONFLICT_ATTEMPTS} attempts, and never repeats a failed condition`, async () => {
    const persistent = clientAnswering(Array.from({ length: 6 }, () => named('TransactionConflictException')));
    await expect(persistent.client.send(new PutCommand({ TableName: 't', Item: { pk: 'A', sk: 'A' } }))).rejects.toThrow('TransactionConflictException');
    expect([CONFLICT_ATTEMPTS, persistent.sent.length]).toEqual([4, 4]);
    const condition = clientAnswering([cancelled('ConditionalCheckFailed', 'TransactionConflict')]);
    await expect(condition.client.send(new TransactWriteCommand({ TransactItems: [] }))).rejects.toThrow('TransactionCanceledException');
    expect([condition.sent.length, condition.waits]).toEqual([1, []]);
  });
});
