import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoAnalyticsStats } from '../../../shared/db/analytics-stats';

/** A table that cancels every transaction with the given reasons, counting what it is sent. */
const tableCancelling = (...codes: string[]) => {
  let sent = 0;
  const db = {
    send: async () => {
      sent += 1;
      throw Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, sent: () => sent };
};

describe('loops that retry a cancelled transaction themselves', () => {
  it('pass on one cancelled for throttling at once: the client retried it already (conflict-retries.ts)', async () => {
    const throttled = tableCancelling('None', 'ThrottlingError');
    await expect(new DynamoAnalyticsStats(throttled.db, 't').commit([])).rejects.toThrow('Transaction cancelled');
    expect(throttled.sent()).toBe(1);
  });

  it('still retry contention (their own loop, after the client gave up on it)', async () => {
    const contended = tableCancelling('None', 'TransactionConflict');
    await expect(new DynamoAnalyticsStats(contended.db, 't').commit([])).rejects.toThrow('Transaction cancelled');
    expect(contended.sent()).toBe(9);
  });
});
