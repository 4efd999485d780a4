import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Attempts of a write that met a transaction on the same item, before its error is passed on. */
export const CONFLICT_ATTEMPTS = 4;

/** Attempts of a transaction cancelled because a partition was over its throughput (waits 50 ms to ~2.5 s). */
export const THROTTLED_ATTEMPTS = 6;

const THROTTLING_CODES = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);

/**
 * Whether DynamoDB cancelled a transaction only because one of its partitions was over its
 * throughput at that moment (its other actions `None`, or conflicts): nothing of it was written.
 * The SDK retries a throttled single write itself, but not a cancelled transaction, which a burst
 * on one partition (a list's members, a campaign's prospects) meets on DynamoDB and never locally.
 */
export function isThrottledOnly(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return (
    reasons.some((reason) => THROTTLING_CODES.has(reason.Code ?? '')) &&
    reasons.every((reason) => reason.Code === 'None' || reason.Code === 'TransactionConflict' || THROTTLING_CODES.has(reason.Code ?? ''))
  );
}

/**
 * Whether DynamoDB refused a write only because a transaction was writing one of its items at that
 * moment: a transaction cancelled for TransactionConflict alone (its other actions `None`), or a
 * single-item write refused with TransactionConflictException. Nothing of it was written, so the
 * same request may be sent again; the SDK does not retry either.
 */
export function isConflictOnly(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TransactionConflictException') return true;
  if (error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.some((reason) => reason.Code === 'TransactionConflict') && reasons.every((reason) => reason.Code === 'None' || reason.Code === 'TransactionConflict');
}

/**
 * A batch read or write that DynamoDB kept leaving unprocessed (throttling) past its loop's
 * retries (batch-get.ts, batch-write.ts). The part of a batch write that was processed stays
 * written; what reads it converges (data-model.md, "Writing leads"), so the request may be repeated.
 */
export class StorageBusyError extends Error {
  override readonly name = 'StorageBusyError';
}

/**
 * Names of a request refused because a partition or the account was over its throughput: DynamoDB's,
 * and API Gateway's `TooManyRequestsException` (its key calls, shared/gateway/key-call-retry.ts).
 */
const THROTTLED_REQUESTS = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'TooManyRequestsException']);

/**
 * Whether a call failed only because the service it called was busy at that moment (throttled past
 * the retries, or a transaction cancelled for throttling or conflicts past this module's, or a batch
 * left unprocessed): the same request may succeed a moment later.
 */
export function isStorageBusy(error: unknown): boolean {
  return error instanceof Error && (error instanceof StorageBusyError || THROTTLED_REQUESTS.has(error.name) || isThrottledOnly(error) || isConflictOnly(error));
}

/**
 * Every call of the client is sent again (after 20-80 ms, growing) while DynamoDB refuses it for
 * a conflict only, up to CONFLICT_ATTEMPTS; a transaction cancelled for throttling only, with
 * longer waits, up to THROTTLED_ATTEMPTS. On DynamoDB, requests of one workspace that write the
 * same item at once (its lead counts, a campaign's counts, a credit balance) meet this; DynamoDB
 * Local serializes more and shows it less, so a request that passed locally could answer 500.
 * Each attempt goes down the stack with its own copy of the arguments and the input as given: the
 * document client marshals the input on the way, and some of its versions (3.778–3.848, which a
 * Lambda runtime may provide, the SDK being left out of the bundle) do so by assigning the
 * marshalled input back to the arguments they were given, so a second attempt on the same object
 * was marshalled twice and refused as invalid.
 */
export function retryConflicts(client: DynamoDBDocumentClient, wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms))): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const { input } = args;
      // Each kind of refusal has its own count: throttled tries do not use up the conflicts' ones.
      let throttled = 0;
      let conflicts = 0;
      for (;;) {
        try {
          return await next({ ...args, input });
        } catch (error) {
          if (isThrottledOnly(error)) {
            throttled += 1;
            if (throttled >= THROTTLED_ATTEMPTS) throw error;
            // Exponential with jitter: 50, 100, 200, 400, 800 ms (up to half as much again).
            const base = 50 * 2 ** (throttled - 1);
            await wait(base + Math.floor(Math.random() * (base / 2)));
            continue;
          }
          if (!isConflictOnly(error)) throw error;
          conflicts += 1;
          if (conflicts >= CONFLICT_ATTEMPTS) throw error;
          await wait(20 * conflicts + Math.floor(Math.random() * 30));
        }
      }
    },
    { step: 'initialize', name: 'retryTransactionConflicts' },
  );
}
