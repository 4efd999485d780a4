import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const WRITE_COMMANDS = /^(Put|Update|Delete|TransactWrite|BatchWrite)/;

interface ConsumedCapacityEntry {
  CapacityUnits?: number;
}

/** Consumed capacity, summed over every call of the clients it is attached to (benchmarks). */
export class CapacityMeter {
  readUnits = 0;
  writeUnits = 0;
  calls = 0;
  /** Wall time spent waiting for DynamoDB, to tell the service's own overhead apart. */
  dbMillis = 0;

  reset(): void {
    this.readUnits = 0;
    this.writeUnits = 0;
    this.calls = 0;
    this.dbMillis = 0;
  }

  /** Makes every call of `client` ask for and report its consumed capacity. */
  attach(client: DynamoDBDocumentClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        (args.input as Record<string, unknown>).ReturnConsumedCapacity ??= 'TOTAL';
        const started = performance.now();
        const result = await next(args);
        this.dbMillis += performance.now() - started;
        const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacityEntry | ConsumedCapacityEntry[] })
          .ConsumedCapacity;
        const units = [consumed ?? []].flat().reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
        this.calls += 1;
        if (WRITE_COMMANDS.test(context.commandName ?? '')) this.writeUnits += units;
        else this.readUnits += units;
        return result;
      },
      { step: 'initialize', name: 'capacityMeter' },
    );
  }
}

/** The process-wide meter that makeDocClient attaches when capacity tracking is switched on. */
export const capacityMeter = new CapacityMeter();
