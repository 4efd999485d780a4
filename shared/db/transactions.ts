import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { cancellationReasons } from './client';
import { itemSize } from './item-size';

export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** DynamoDB's limit of actions in one transaction. */
export const MAX_TRANSACTION_ITEMS = 100;
/** Bytes of items in one transaction: DynamoDB takes at most 4 MB; this leaves room for keys and expressions. */
const MAX_TRANSACTION_BYTES = 3_500_000;
/** Retries of a transaction cancelled only by contention with another transaction. */
const MAX_CONFLICT_RETRIES = 6;

/** The item an action writes, as one string. */
export const actionKey = (action: TransactItem): string => {
  const key = (action.Put?.Item ?? action.Update?.Key ?? action.Delete?.Key ?? action.ConditionCheck?.Key) as { pk: string; sk: string };
  return `${key.pk}\u0000${key.sk}`;
};

/** A unit of a transaction: actions that must commit together, e.g. one lead and its guards. */
export interface TransactUnit<O> {
  owner: O;
  actions: TransactItem[];
  /**
   * Items the group actions write on the unit's behalf (e.g. the counter of a campaign it enters):
   * each distinct one takes a place in the transaction that carries the unit.
   */
  shared?: string[];
}

/**
 * Packs units into transactions of at most 100 actions, none writing an item twice, and commits
 * them one transaction after another. A unit whose condition fails is dropped (returned) and the
 * rest of its transaction is sent again; contention alone is retried with backoff, and a unit
 * still contended after the retries is returned too.
 */
export async function commitUnits<O>(
  db: DynamoDBDocumentClient,
  units: TransactUnit<O>[],
  options: {
    concurrency?: number;
    /** Called with the units of each transaction that committed. */
    committed?: (owners: O[]) => void;
    /**
     * Actions every transaction carries for the units it commits: at most one of its own (e.g. a
     * counter) plus one per distinct `shared` item of its units. When one of their conditions
     * fails, every unit of the transaction is refused (returned).
     */
    groupActions?: (owners: O[]) => TransactItem[];
  } = {},
): Promise<Set<O>> {
  const concurrency = options.concurrency ?? 1;
  const limit = MAX_TRANSACTION_ITEMS - (options.groupActions ? 1 : 0);
  const groups: TransactUnit<O>[][] = [];
  let current: TransactUnit<O>[] = [];
  let keys = new Set<string>();
  let shared = new Set<string>();
  let size = 0;
  let bytes = 0;
  for (const unit of units) {
    const own = unit.actions.map(actionKey);
    const unitBytes = unit.actions.reduce((sum, action) => sum + (action.Put?.Item ? itemSize(action.Put.Item) : 1024), 0);
    const added = (unit.shared ?? []).filter((key) => !shared.has(key)).length;
    if (
      current.length > 0 &&
      (size + own.length + shared.size + added > limit || bytes + unitBytes > MAX_TRANSACTION_BYTES || own.some((key) => keys.has(key)))
    ) {
      groups.push(current);
      current = [];
      keys = new Set();
      shared = new Set();
      size = 0;
      bytes = 0;
    }
    current.push(unit);
    size += own.length;
    bytes += unitBytes;
    for (const key of own) keys.add(key);
    for (const key of unit.shared ?? []) shared.add(key);
  }
  if (current.length > 0) groups.push(current);

  const failed = new Set<O>();
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      const group = groups[next++] as TransactUnit<O>[];
      const refused = new Set(await commitGroup(db, group, options.groupActions));
      for (const owner of refused) failed.add(owner);
      options.committed?.(group.map((unit) => unit.owner).filter((owner) => !refused.has(owner)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
  return failed;
}

async function commitGroup<O>(db: DynamoDBDocumentClient, group: TransactUnit<O>[], groupActions?: (owners: O[]) => TransactItem[]): Promise<O[]> {
  let live = group;
  const failed: O[] = [];
  let contention = 0;
  while (live.length > 0) {
    const items = live.flatMap((unit) => unit.actions);
    const owners: (TransactUnit<O> | undefined)[] = live.flatMap((unit) => unit.actions.map(() => unit));
    for (const action of groupActions?.(live.map((unit) => unit.owner)) ?? []) {
      items.push(action);
      owners.push(undefined);
    }
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return failed;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      if (reasons.some((reason) => !['None', 'ConditionalCheckFailed', 'TransactionConflict', undefined].includes(reason.Code))) throw error;
      // A group action's condition (e.g. a campaign's status) holds for every unit it carries.
      if (reasons.some((reason, i) => reason.Code === 'ConditionalCheckFailed' && !owners[i])) return [...failed, ...live.map((unit) => unit.owner)];
      const refused = new Set<TransactUnit<O>>();
      reasons.forEach((reason, i) => {
        const owner = owners[i];
        if (reason.Code === 'ConditionalCheckFailed' && owner) refused.add(owner);
      });
      if (refused.size === 0) {
        contention += 1;
        if (contention > MAX_CONFLICT_RETRIES) return [...failed, ...live.map((unit) => unit.owner)];
        await sleep(Math.random() * 20 * 2 ** contention);
        continue;
      }
      for (const unit of refused) failed.push(unit.owner);
      live = live.filter((unit) => !refused.has(unit));
    }
  }
  return failed;
}
