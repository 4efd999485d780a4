import { setTimeout as pause } from 'node:timers/promises';
import type { Clock, IdGenerator } from '../ports';
import { type Company, type Lead, type LeadList, LIMITS } from './lead';
import type { CampaignSlots } from '../engine/held-slots';
import type { LeadChange, LeadRepository } from './ports';

/**
 * What the lead writer's parts share: its dependencies and outcomes, and the rounds a batch is
 * planned and written in (shared/domain/leads/lead-writer.ts, list-membership.ts).
 */

export interface LeadWriterDeps {
  leads: LeadRepository;
  ids: IdGenerator;
  clock: Clock;
  /** Leads one list may hold. */
  maxLeadsPerList: number;
  /**
   * Given where prospects leave campaigns (moves, removals, archives): the slots their pending
   * actions hold are given back once the move is written. Without it they stay counted.
   */
  campaignSlots?: CampaignSlots;
}

export type UpsertOutcome<T extends Lead> =
  | { status: 'created' | 'updated' | 'unchanged'; lead: T }
  /** An import row its lead's fingerprint shows to change nothing (the lead was not read). */
  | { status: 'matched'; id: number }
  /** The input names the same lead as an earlier input of the batch. */
  | { status: 'duplicate'; of: number }
  | { status: 'skipped'; reason: string };

export interface UpsertOptions {
  /** Add every upserted lead to this list. */
  list?: LeadList;
  /** Values of a matched lead are replaced by the input's non-empty values; otherwise it is left as is. */
  overwrite: boolean;
  /** The request's time left: rounds stop in time for it to answer (see inRounds). */
  timeLeft?: TimeLeft;
}

/** Milliseconds the request has left to answer (the Lambda context's remaining time). */
export type TimeLeft = () => number;

/** Skip codes of add-leads and delete-leads (documented in docs/lead-lists.md). */
export type SkipCode = 'not_found' | 'already_in_list' | 'not_in_list' | 'too_many_lists' | 'list_full' | 'concurrent_change';

export const SKIP_MESSAGES = {
  tooManyLists: `the lead is already in ${LIMITS.maxListsPerLead} lists, the maximum`,
  listFull: 'the list is full',
  concurrentChange: 'the lead changed during the request; send it again',
  twoProspects: 'network_profile_url and email belong to two different prospects',
  twoCompanies: 'website_url and network_url belong to two different companies',
} as const;

/** Attempts of a batch whose leads changed concurrently (re-read, re-planned, re-written). */
const MAX_ROUNDS = 8;
/**
 * Before round n+2, a wait of between half of `min(50 * 2^n, 1000)` ms and all of it (3.55 s at
 * most in all, 2.7 s on average when every round is needed). What a round meets is another
 * request's batch in flight (its identity guards written and its leads a moment later, or the
 * same leads joining other lists), so re-reading at once mostly meets it again; the jitter keeps
 * concurrent requests from re-reading in step.
 */
const ROUND_BACKOFF_MS = 50;
const ROUND_BACKOFF_CEILING_MS = 1_000;
/**
 * No round starts with less time left than this. A round under heavy contention takes seconds (in
 * the local runtime, twenty requests importing the same 50 people into twenty lists at once: up to
 * 15 s), and the request must still answer before its function times out (a 500, its batch left
 * for the next writer to finish).
 */
const ROUND_RESERVE_MS = 16_000;

export interface PlannedWrite<T extends Lead> {
  index: number;
  change: LeadChange;
  status: 'created' | 'updated';
  lead: T;
}

export interface RoundPlan<T extends Lead, S> {
  settled: Map<number, S>;
  writes: PlannedWrite<T>[];
  /**
   * Inputs to plan again next round without a write: their identity is held by a guard whose lead
   * cannot be read yet (another request claimed it and is writing the lead).
   */
  again?: number[];
}

export const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];
/** Equal as JSON (plain lead data). */
export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
/** The value without its undefined and empty-string fields (an input's values that change nothing). */
export const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as T;

/** The helpers every part of the writer plans with. */
export function createRounds(deps: LeadWriterDeps) {
  const now = () => deps.clock.now().toISOString();

  /**
   * Plans a batch, writes it, and re-plans the leads whose write met a concurrent change, at most
   * MAX_ROUNDS times, and no later round once the request has less than ROUND_RESERVE_MS left;
   * what is still contended then is skipped with a reason.
   */
  async function inRounds<T extends Lead, S>(
    count: number,
    plan: (pending: number[]) => Promise<RoundPlan<T, S>>,
    applied: (write: PlannedWrite<T>) => S,
    skipped: (reason: SkipCode) => S,
    timeLeft?: TimeLeft,
  ): Promise<S[]> {
    const outcomes = new Array<S>(count);
    let pending = [...Array(count).keys()];
    for (let round = 0; round < MAX_ROUNDS && pending.length > 0; round += 1) {
      if (round > 0) {
        if (timeLeft && timeLeft() < ROUND_RESERVE_MS) break;
        await pause(Math.min(ROUND_BACKOFF_CEILING_MS, ROUND_BACKOFF_MS * 2 ** (round - 1)) * (0.5 + 0.5 * Math.random()));
      }
      const { settled, writes, again = [] } = await plan(pending);
      for (const [index, outcome] of settled) outcomes[index] = outcome;
      const planned = writes.map((write) => write.change);
      const changes = deps.campaignSlots ? await deps.campaignSlots.withHeldSlots(planned) : planned;
      const results = await deps.leads.save(changes, { maxLeadsPerList: deps.maxLeadsPerList });
      pending = [...again];
      writes.forEach((write, k) => {
        const result = results[k];
        if (result === 'applied') outcomes[write.index] = applied(write);
        else if (result === 'list_full') outcomes[write.index] = skipped('list_full');
        else pending.push(write.index);
      });
      await deps.campaignSlots?.giveBack(changes.filter((_, k) => results[k] === 'applied'));
    }
    for (const index of pending) outcomes[index] = skipped('concurrent_change');
    return outcomes;
  }

  const upsertSkip = (code: SkipCode): UpsertOutcome<never> => ({
    status: 'skipped',
    reason: code === 'list_full' ? SKIP_MESSAGES.listFull : SKIP_MESSAGES.concurrentChange,
  });

  async function loadCompanies(workspaceId: number, ids: Iterable<number>): Promise<Map<number, Company>> {
    const wanted = unique(ids);
    const companies = wanted.length ? await deps.leads.getCompanies(wanted) : [];
    return new Map(companies.filter((c) => c.workspaceId === workspaceId).map((c) => [c.id, c]));
  }

  /**
   * Owners of the given identities plus of every identity the found leads hold today.
   * `knownUnclaimed`: identities the caller has just seen without a guard, not read again.
   */
  async function identityOwners<T extends Lead>(
    workspaceId: number,
    kind: 'PROSPECT' | 'COMPANY',
    identities: string[],
    load: (ids: number[]) => Promise<T[]>,
    identitiesOf: (lead: T) => string[],
    options: { knownUnclaimed?: ReadonlySet<string>; settledOnce?: boolean } = {},
  ): Promise<{ owners: Map<string, number>; leads: Map<number, T> }> {
    const { knownUnclaimed, settledOnce = false } = options;
    const toRead = unique(identities).filter((identity) => !knownUnclaimed?.has(identity));
    const owners = toRead.length ? await deps.leads.findIdentities(workspaceId, kind, toRead) : new Map<string, number>();
    const ownerIds = unique(owners.values());
    const loaded = ownerIds.length ? await load(ownerIds) : [];
    // A guard whose lead is missing is a batch still writing, or one interrupted: finish those past
    // their lease (they release such guards) and look again.
    if (loaded.length < ownerIds.length && !settledOnce && (await deps.leads.settleStaleWrites(workspaceId))) {
      return identityOwners(workspaceId, kind, identities, load, identitiesOf, { ...options, settledOnce: true });
    }
    const leads = new Map(loaded.filter((lead) => lead.workspaceId === workspaceId).map((lead) => [lead.id, lead]));
    const more = unique([...leads.values()].flatMap(identitiesOf)).filter((identity) => !owners.has(identity));
    if (more.length) for (const [identity, owner] of await deps.leads.findIdentities(workspaceId, kind, more)) owners.set(identity, owner);
    return { owners, leads };
  }

  function joinedLists(lead: Lead, list: LeadList | undefined): number[] | 'too_many' {
    if (!list || lead.listIds.includes(list.id)) return lead.listIds;
    if (lead.listIds.length >= LIMITS.maxListsPerLead) return 'too_many';
    return [...lead.listIds, list.id];
  }

  /** One id reservation for the rows that may create a lead (no identity of theirs has an owner), not a write per block. */
  async function reserveIds(rowIdentities: string[][], owners: Map<string, number>): Promise<void> {
    const creating = rowIdentities.filter((identities) => identities.every((identity) => !owners.has(identity))).length;
    if (creating > 1) await deps.ids.reserve?.(creating);
  }

  return { now, inRounds, upsertSkip, loadCompanies, identityOwners, joinedLists, reserveIds };
}

export type Rounds = ReturnType<typeof createRounds>;
