import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { putUnits } from './item-size';

const WRITE_COMMANDS = /^(Put|Update|Delete|TransactWrite|BatchWrite)/;

interface ConsumedCapacityEntry {
  CapacityUnits?: number;
}

/** One metered call, as an observer sees it (benchmarks that break capacity down by item). */
export interface MeteredCall {
  command: string;
  input: Record<string, unknown>;
  readUnits: number;
  writeUnits: number;
  computedWriteUnits: number;
  /**
   * What DynamoDB bills for the items a GetItem or BatchGetItem asked for and did not find (the
   * minimum: 1 unit strongly consistent, 0.5 eventually), which DynamoDB Local reports as 0.
   */
  missingReadUnits: number;
}

/** Consumed capacity, summed over every call of the clients it is attached to (benchmarks). */
export class CapacityMeter {
  readUnits = 0;
  writeUnits = 0;
  /**
   * Write units as DynamoDB bills them: what DynamoDB Local reports, except for transactions,
   * which it reports as if they wrote one item; those are computed from their actions (2 units per
   * KB per copy, a local index's entry, keys only, 2; an Update, ConditionCheck or Delete of an item
   * it does not see counts 1 KB, and a Delete of a list member counts its table copy and five entries).
   */
  computedWriteUnits = 0;
  calls = 0;
  /** Read units DynamoDB bills for items asked for and not found, which DynamoDB Local leaves out (see MeteredCall). */
  missingReadUnits = 0;
  /** Wall time spent waiting for DynamoDB, to tell the service's own overhead apart. */
  dbMillis = 0;
  /** Called after every call that succeeded (a refused condition or a cancelled transaction is not counted). */
  observer: ((call: MeteredCall) => void) | undefined;

  reset(): void {
    this.readUnits = 0;
    this.writeUnits = 0;
    this.computedWriteUnits = 0;
    this.calls = 0;
    this.missingReadUnits = 0;
    this.dbMillis = 0;
  }

  /**
   * The last item put under each key, to price a transactional delete of it (units, all copies).
   * Priced only when deleted: sizing every item put costs the measured requests' own time.
   */
  private readonly putItems = new Map<string, Record<string, unknown>>();

  private remember(command: string, input: Record<string, unknown>) {
    const record = (item: Record<string, unknown>) => this.putItems.set(keyOf(item), item);
    if (command.startsWith('Put')) record(input.Item as Record<string, unknown>);
    if (command.startsWith('BatchWrite')) {
      for (const requests of Object.values((input.RequestItems ?? {}) as Record<string, { PutRequest?: { Item: Record<string, unknown> } }[]>)) {
        for (const request of requests) if (request.PutRequest) record(request.PutRequest.Item);
      }
    }
    if (command.startsWith('TransactWrite')) for (const action of (input as TransactInput).TransactItems ?? []) if (action.Put) record(action.Put.Item);
  }

  /** A transaction's cost: 2 units per KB per copy of each item it puts or deletes (1 KB for an Update or ConditionCheck). */
  private transactionUnits(input: TransactInput): number {
    return (input.TransactItems ?? []).reduce((sum, action) => {
      if (action.Put) return sum + 2 * putUnits(action.Put.Item);
      if (action.Delete) {
        const item = this.putItems.get(keyOf(action.Delete.Key));
        return sum + 2 * (item ? putUnits(item) : 1);
      }
      return sum + 2;
    }, 0);
  }

  /** Makes every call of `client` ask for and report its consumed capacity. */
  attach(client: DynamoDBDocumentClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        (args.input as Record<string, unknown>).ReturnConsumedCapacity ??= 'TOTAL';
        // Priced before the call, from the document client's own input (plain values).
        const command = context.commandName ?? '';
        const transactional = command.startsWith('TransactWrite') ? this.transactionUnits(args.input as TransactInput) : undefined;
        this.remember(command, args.input as Record<string, unknown>);
        const started = performance.now();
        const result = await next(args);
        this.dbMillis += performance.now() - started;
        const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacityEntry | ConsumedCapacityEntry[] })
          .ConsumedCapacity;
        const units = [consumed ?? []].flat().reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
        this.calls += 1;
        const missing = missingReadUnits(command, args.input as Record<string, unknown>, result.output as Record<string, unknown>, units);
        this.missingReadUnits += missing;
        const write = WRITE_COMMANDS.test(command);
        if (write) {
          this.writeUnits += units;
          this.computedWriteUnits += transactional ?? units;
        } else {
          this.readUnits += units;
        }
        this.observer?.({
          command,
          input: args.input as Record<string, unknown>,
          readUnits: write ? 0 : units,
          writeUnits: write ? units : 0,
          computedWriteUnits: write ? (transactional ?? units) : 0,
          missingReadUnits: missing,
        });
        return result;
      },
      { step: 'initialize', name: 'capacityMeter' },
    );
  }
}

interface TransactInput {
  TransactItems?: {
    Put?: { Item: Record<string, unknown> };
    Update?: unknown;
    Delete?: { Key: { pk?: unknown; sk?: unknown } };
    ConditionCheck?: unknown;
  }[];
}

/** The billed minimum of the items a read asked for and did not get (not those left unprocessed). */
function missingReadUnits(command: string, input: Record<string, unknown>, output: Record<string, unknown>, reported: number): number {
  if (command.startsWith('GetItem')) return output.Item === undefined && reported === 0 ? (input.ConsistentRead ? 1 : 0.5) : 0;
  if (!command.startsWith('BatchGetItem')) return 0;
  const requested = (input.RequestItems ?? {}) as Record<string, { Keys?: unknown[]; ConsistentRead?: boolean }>;
  const responses = (output.Responses ?? {}) as Record<string, unknown[]>;
  const unprocessed = (output.UnprocessedKeys ?? {}) as Record<string, { Keys?: unknown[] }>;
  let units = 0;
  for (const [table, request] of Object.entries(requested)) {
    const missing = (request.Keys?.length ?? 0) - (responses[table]?.length ?? 0) - (unprocessed[table]?.Keys?.length ?? 0);
    units += Math.max(0, missing) * (request.ConsistentRead ? 1 : 0.5);
  }
  return units;
}

const keyOf = (item: { pk?: unknown; sk?: unknown }) => `${String(item.pk)}\u0000${String(item.sk)}`;

/** The process-wide meter that makeDocClient attaches when capacity tracking is switched on. */
export const capacityMeter = new CapacityMeter();
