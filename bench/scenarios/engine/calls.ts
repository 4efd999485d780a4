import type { MeteredCall } from '../../../shared/db/capacity-meter';
import { itemSize } from '../../../shared/db/item-size';

/** What the engine bench makes of each DynamoDB call: the row of the breakdown it belongs to. */

/** The completion check at the end of a sender batch (completion.ts completeIfFinished). */
export const COMPLETION_CHECK = 'campaign completion check (campaign read + 2 queries)';

export interface Tally {
  calls: number;
  rcu: number;
  wcu: number;
  wcuComputed: number;
}
export const emptyTally = (): Tally => ({ calls: 0, rcu: 0, wcu: 0, wcuComputed: 0 });
export const addTo = (tally: Tally, call: { calls?: number; readUnits: number; writeUnits: number; computedWriteUnits: number }) => {
  tally.calls += call.calls ?? 1;
  tally.rcu += call.readUnits;
  tally.wcu += call.writeUnits;
  tally.wcuComputed += call.computedWriteUnits;
};

export type Key = { pk?: unknown; sk?: unknown };
export const str = (value: unknown) => (typeof value === 'string' ? value : '');
/** A key's shape, ids left out: `CAMPAIGN#n#ACTIONS`. */
export const shape = (value: unknown) => str(value).replace(/\d+/g, 'n');

export interface TransactInput {
  TransactItems?: { Put?: { Item: Key }; Update?: { Key: Key }; Delete?: { Key: Key }; ConditionCheck?: { Key: Key } }[];
}

/**
 * What a call is, by command and the keys it names: the rows of the breakdown. `status:` rows
 * are the prospect's status move (FINISHED) through the lead write path.
 */
export function labelOf(call: MeteredCall): string {
  const { command, input } = call;
  const key = ((input.Key ?? input.Item) ?? {}) as Key;
  const pk = str(key.pk);
  const sk = str(key.sk);
  const verb = command.replace(/(Items?)?Command$/, '');
  if (verb === 'TransactWrite') {
    const actions = (input as TransactInput).TransactItems ?? [];
    const keys = actions.map((a) => (a.Put?.Item ?? a.Update?.Key ?? a.Delete?.Key ?? a.ConditionCheck?.Key ?? {}) as Key);
    if (keys.some((k) => /#(STATS|REACH)$/.test(str(k.pk)))) {
      return keys.some((k) => str(k.pk).endsWith('#OUTCOMES')) ? ANALYTICS_WITH_OUTCOME : 'analytics: counters (transaction)';
    }
    if (keys.some((k) => str(k.sk).startsWith('DIGEST'))) return 'status: list digest write (transaction with the list item)';
    if (keys.some((k) => str(k.pk).startsWith('PROSPECT#'))) return 'status: prospect put + campaign prospect update (transaction)';
    if (keys.some((k) => str(k.sk) === 'LEADCOUNTS')) return 'status: journal open (list + workspace counters, transaction)';
    if (keys.length === 2 && str(keys[0]?.pk).endsWith('#ACTIONS') && str(keys[1]?.pk).endsWith('#PROSPECTS')) return FIRST_WRITE;
    if (keys.some((k) => str(k.sk).startsWith('LEADLIST#'))) return 'status: list close (transaction)';
    return `TransactWrite ${keys.map((k) => shape(k.pk)).join(', ')}`;
  }
  if (verb === 'BatchGet' || verb === 'BatchWrite') {
    const [requests] = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: Key[] } | { PutRequest?: { Item: Key }; DeleteRequest?: { Key: Key } }[]>);
    const first = (Array.isArray(requests) ? (requests[0]?.PutRequest?.Item ?? requests[0]?.DeleteRequest?.Key) : requests?.Keys?.[0]) ?? {};
    const firstPk = str(first.pk);
    const projected = !Array.isArray(requests) && (requests as { ProjectionExpression?: string })?.ProjectionExpression;
    if (verb === 'BatchWrite' && firstPk.endsWith('#MEMBERS')) return 'status: list member view (batch put)';
    if (firstPk.startsWith('PROSPECT#')) return projected ? 'status: view check (prospect versions)' : 'prospect reads (batch)';
    if (firstPk.startsWith('COMPANY#')) return 'company reads (batch)';
    if (firstPk.startsWith('SUPPRESSION#')) return 'suppression check';
    return `${verb} ${shape(firstPk)}`;
  }
  if (verb === 'Query') {
    const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
    const qpk = str(values[':pk']);
    if (input.IndexName === 'gsi2') return 'scheduler: due-index query';
    if (input.IndexName === 'lsi1' && qpk.endsWith('#PROSPECTS')) return COMPLETION_CHECK;
    if (qpk.endsWith('#MEMBERS')) return 'status: list digest read';
    if (/^CAMPAIGN#\d+$/.test(qpk)) return 'campaign + flow (per batch)';
    if (qpk.startsWith('WORKSPACE#') && str(values[':prefix']).startsWith('SENDER_ACCOUNT')) return 'sender accounts (per batch)';
    return `Query ${input.IndexName ?? 'table'} ${shape(qpk)}`;
  }
  if (pk.startsWith('DISPATCH#')) return 'scheduler: shard leases (take + release)';
  if (pk.endsWith('#ACTIONS')) {
    if (verb === 'Get') return 'action read';
    if (verb === 'Delete') return 'end of sequence (action delete)';
    if (verb === 'Put') return (input.Item as { claim?: unknown }).claim ? 'claim (action put)' : 'wait for its slot or day (action put, due time moves)';
  }
  if (pk.endsWith('#PROSPECTS') && verb === 'Get') return FIRST_ACTION_READ;
  if (pk.startsWith('SENDCOUNT#CAMPAIGN')) return 'campaign position (ADD)';
  if (pk.startsWith('SENDCOUNT#ACCOUNT')) return 'account send (conditional ADD)';
  if (pk.endsWith('#OUTCOMES')) return verb === 'Get' ? 'crash rule: outcome read' : OUTCOME_RECORD;
  if (pk.startsWith('SENT_EMAIL#')) return `sent email (${verb})`;
  if (pk.startsWith('MESSAGE_ID#')) return `Message-ID link (${verb})`;
  if (pk.startsWith('LEADJOURNAL#')) return verb === 'Put' ? 'status: journal put' : 'status: journal delete';
  if (sk === 'LEADCOUNTS') {
    if (verb === 'Get') return 'status: batches-opened reads';
    return String(input.UpdateExpression ?? '').startsWith('ADD batches') ? 'status: batches counter (ADD)' : 'status: journal close (workspace counters)';
  }
  if (pk.endsWith('#MEMBERS') && verb === 'Put') return 'status: list member view (put unless newer)';
  if (/^WORKSPACE#\d+#CONVERSATION#\d+$/.test(pk)) return sk === 'SUMMARY' ? 'conversation: summary put' : 'conversation: message put';
  if (sk.startsWith('LEADLIST#')) return 'status: digest retry check (list item)';
  // completeIfFinished reads the campaign (its prospect count) before its queries.
  if (/^CAMPAIGN#\d+$/.test(pk) && sk === 'CAMPAIGN') return verb === 'Get' ? COMPLETION_CHECK : 'campaign status (COMPLETED, once)';
  return `${verb} ${shape(pk)} ${shape(sk)}`;
}

/**
 * A first action read from the campaign prospect item that carries it, and its first write: the
 * action put and its keys taken off the campaign prospect in one transaction (shared/db/outreach-actions.ts).
 */
export const FIRST_ACTION_READ = 'first action read (campaign prospect item)';
export const FIRST_WRITE = 'first action written (transaction: action put + keys off the campaign prospect)';

/** Outcome records are written in one transaction with analytics' counters (docs/analytics.md). */
const ANALYTICS_WITH_OUTCOME = 'analytics: counters (transaction with the outcome record)';
export const OUTCOME_RECORD = 'outcome record';

/** Whether a row is analytics': excluded from the per-send targets (issue 11), shown on its own. */
export const isAnalytics = (label: string) => label.startsWith('analytics:');

/**
 * A call's capacity by row. The transaction of an outcome record and analytics' counters is
 * split: the outcome record is charged what it cost alone before analytics joined it (a Put of
 * its size: 1 WCU per KB), analytics the rest.
 */
export function chargesOf(call: MeteredCall): { label: string; calls: number; readUnits: number; writeUnits: number; computedWriteUnits: number }[] {
  const label = labelOf(call);
  // Read units as DynamoDB bills them: what DynamoDB Local reports plus the minimum it leaves out
  // for items asked for and not found (the suppression check's, in this bench).
  const readUnits = call.readUnits + call.missingReadUnits;
  const whole = { label, calls: 1, readUnits, writeUnits: call.writeUnits, computedWriteUnits: call.computedWriteUnits };
  if (label !== ANALYTICS_WITH_OUTCOME) return [whole];
  const outcome = (call.input as TransactInput).TransactItems?.find((a) => str(a.Put?.Item.pk).endsWith('#OUTCOMES'))?.Put?.Item;
  const alone = outcome ? Math.max(1, Math.ceil(itemSize(outcome as Record<string, unknown>) / 1024)) : 1;
  return [
    { label: OUTCOME_RECORD, calls: 1, readUnits: 0, writeUnits: Math.min(alone, call.writeUnits), computedWriteUnits: Math.min(alone, call.computedWriteUnits) },
    {
      label,
      calls: 1,
      readUnits,
      writeUnits: Math.max(0, call.writeUnits - alone),
      computedWriteUnits: Math.max(0, call.computedWriteUnits - alone),
    },
  ];
}

/** An item a call writes, to price its row by (the first of each row is kept). */
export function sampleOf(call: MeteredCall): Record<string, unknown> | undefined {
  const { input } = call;
  if (input.Item) return input.Item as Record<string, unknown>;
  if (Array.isArray(input.TransactItems)) {
    const puts = (input as TransactInput).TransactItems?.flatMap((action) => (action.Put ? [action.Put.Item as Record<string, unknown>] : [])) ?? [];
    return puts.find((item) => str(item.sk).startsWith('DIGEST')) ?? puts.find((item) => str(item.pk).startsWith('PROSPECT#')) ?? puts[0];
  }
  if (input.RequestItems) {
    const [requests] = Object.values(input.RequestItems as Record<string, unknown>);
    if (Array.isArray(requests)) return (requests[0] as { PutRequest?: { Item: Record<string, unknown> } } | undefined)?.PutRequest?.Item;
  }
  return undefined;
}
