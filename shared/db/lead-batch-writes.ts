import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Company, isProspect } from '../domain/leads/lead';
import { type DigestChange, digestEntry } from '../domain/leads/member-digest';
import type { ChangeOutcome, LeadChange } from '../domain/leads/ports';
import type { Clock } from '../time/clock';
import { batchGetAll } from './batch-get';
import { type WriteRequest, batchWriteAll } from './batch-write';
import { campaignCountActions, campaignCounterKeys } from './campaign-prospects';
import { companyKey, listMemberKey, prospectKey } from './keys';
import { guardItem } from './lead-fingerprints';
import { companyItem, memberItem, prospectItem } from './lead-items';
import { JournalTooLargeError, type LeadJournal, mayBeStale, newJournalToken } from './lead-journal';
import type { ListMembers } from './list-members';
import { type TransactItem, type TransactUnit, commitUnits } from './transactions';
import { leadUpdateActions } from './view-only-writes';
import type { ViewRederive } from './view-rederive';
import { leadCountsActions, leadCountsDelta } from './workspace-lead-counts';

/** Transactions in flight at once when claiming identities or writing changed leads. */
const CLAIM_CONCURRENCY = 4;

/** How the lead repository writes a batch of lead changes (docs/data-model.md, "Writing leads"). */
export class LeadBatchWrites {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock,
    private readonly members: ListMembers,
    private readonly journal: LeadJournal,
    private readonly views: ViewRederive,
  ) {}

  /**
   * Applies changes in one batch: open its journal (reserving room in the lists it joins), claim
   * the identities of new leads, write new leads with their views in batches and changed leads
   * with their guards and views in transactions (each conditional on the version it was planned
   * from), then close every list it touched (digest and counters together) and the journal.
   */
  async save(changes: LeadChange[], options: { maxLeadsPerList: number }): Promise<ChangeOutcome[]> {
    try {
      return await this.saveBatch(changes, options);
    } catch (error) {
      // Identities too long for one journal: two smaller batches, in order (room goes to the first).
      if (!(error instanceof JournalTooLargeError) || changes.length < 2) throw error;
      const half = Math.ceil(changes.length / 2);
      return [...(await this.save(changes.slice(0, half), options)), ...(await this.save(changes.slice(half), options))];
    }
  }

  private async saveBatch(changes: LeadChange[], options: { maxLeadsPerList: number }): Promise<ChangeOutcome[]> {
    const outcomes: ChangeOutcome[] = changes.map(() => 'applied');
    if (changes.length === 0) return outcomes;
    // A campaign move is written in the transaction of its prospect's change, which new leads do not have.
    if (changes.some((change) => change.campaign && !change.before)) throw new Error('a new lead cannot carry a campaign move');
    const first = (changes[0] as LeadChange).after;
    const searchType = isProspect(first) ? 'PEOPLE' : 'COMPANY';
    const token = newJournalToken(this.clock.now());

    const lists = new Map<number, number[]>();
    const joins = new Map<number, number[]>();
    changes.forEach((change, index) => {
      const before = new Set(change.before?.listIds ?? []);
      const after = new Set(change.after.listIds);
      for (const listId of new Set([...before, ...after])) {
        const joining = after.has(listId) && !before.has(listId);
        if (!joining && after.has(listId) && !change.refreshMembers) continue;
        lists.set(listId, [...(lists.get(listId) ?? []), index]);
        if (joining) joins.set(listId, [...(joins.get(listId) ?? []), index]);
      }
    });

    let live = changes.map((_, index) => index);
    let reserved = new Map<number, number>();
    for (;;) {
      reserved = new Map([...joins].map(([listId, indexes]) => [listId, indexes.filter((i) => live.includes(i)).length]));
      const opened = await this.journal.open(
        {
          token,
          workspaceId: first.workspaceId,
          searchType,
          leadIds: live.map((i) => (changes[i] as LeadChange).after.id),
          lists: [...lists.keys()],
          reserved,
          created: live.flatMap((i) => {
            const change = changes[i] as LeadChange;
            return change.before ? [] : [{ id: change.after.id, identities: change.claim }];
          }),
        },
        options.maxLeadsPerList,
      );
      if (opened.opened) break;
      // The list has room for only some of the joins: the first ones in input order get it.
      const joining = (joins.get(opened.listId) ?? []).filter((i) => live.includes(i));
      for (const index of joining.slice(opened.room)) outcomes[index] = 'list_full';
      live = live.filter((index) => outcomes[index] === 'applied');
    }

    const created = live.filter((index) => !(changes[index] as LeadChange).before);
    const updated = live.filter((index) => (changes[index] as LeadChange).before);
    const { batches: openedAt, open } = await this.journal.batchesOpened(first.workspaceId);
    // Batches of the workspace past their lease (a writer that gave up or crashed before closing
    // them): this writer finishes them after its own, so a failed close never stays open for
    // want of a reader of its lists.
    const stale = open.filter((other) => other !== token && mayBeStale(other, this.clock.now().getTime()));
    await this.create(changes, created, outcomes, openedAt);
    await this.update(changes, updated, outcomes, openedAt);

    for (const [listId, indexes] of lists) {
      const digest: DigestChange[] = [];
      for (const index of indexes) {
        if (outcomes[index] !== 'applied') continue;
        const { after, member } = changes[index] as LeadChange;
        digest.push(
          after.listIds.includes(listId)
            ? { id: after.id, version: after.version, entry: digestEntry(after.id, after.version, member) }
            : { id: after.id, version: after.version },
        );
      }
      await this.members.close({ workspaceId: first.workspaceId, id: listId }, digest, { reserved: reserved.get(listId) ?? 0, token });
    }
    // New leads are counted as the journal closes (with it), so an interrupted batch is counted by whoever finishes it.
    const counts = { prospects: 0, companies: 0 };
    for (const index of created) {
      if (outcomes[index] !== 'applied') continue;
      const delta = leadCountsDelta(changes[index] as LeadChange);
      counts.prospects += delta.prospects;
      counts.companies += delta.companies;
    }
    await this.journal.close({ token, workspaceId: first.workspaceId }, counts);
    if (stale.length > 0) await this.settleOthers(first.workspaceId, stale);
    return outcomes;
  }

  /**
   * Finishes other batches past their lease. Best effort: this writer's own batch is complete, and
   * a finisher that fails (it met a racing finisher, or contention) leaves the batch to the next
   * writer or reader; every step of a finish is idempotent.
   */
  private async settleOthers(workspaceId: number, tokens: string[]): Promise<void> {
    try {
      await this.journal.settleWorkspace(workspaceId, tokens);
    } catch {
      // Left for the next writer or reader (see above).
    }
  }

  /** New leads: their identities claimed in transactions, then each lead and its views in one batch call. */
  private async create(changes: LeadChange[], indexes: number[], outcomes: ChangeOutcome[], openedAt: number): Promise<void> {
    const claims: TransactUnit<number>[] = indexes.flatMap((index) => {
      const { after, claim, stamp } = changes[index] as LeadChange;
      const kind = isProspect(after) ? 'PROSPECT' : 'COMPANY';
      const actions = claim.map(
        (identity): TransactItem => ({
          Put: {
            TableName: this.tableName,
            Item: guardItem(after.workspaceId, kind, identity, after.id, stamp),
            ConditionExpression: 'attribute_not_exists(pk) OR leadId = :id',
            ExpressionAttributeValues: { ':id': after.id },
          },
        }),
      );
      return actions.length ? [{ owner: index, actions }] : [];
    });
    const writeRequests = (index: number): WriteRequest[] => {
      const { after, member } = changes[index] as LeadChange;
      const prospect = isProspect(after);
      return [
        { PutRequest: { Item: prospect ? prospectItem(after) : companyItem(after as Company) } },
        ...after.listIds.map((listId) => ({
          PutRequest: { Item: memberItem(prospect ? 'PEOPLE' : 'COMPANY', listId, after.id, after.version, member) },
        })),
      ];
    };
    // Each group of claims is followed at once by the writes of its leads, while the next group claims.
    const writes: Promise<Set<string>>[] = [];
    const write = (owners: number[]) => {
      if (owners.length === 0) return;
      const written = batchWriteAll(this.db, this.tableName, owners.map(writeRequests));
      written.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
      writes.push(written);
    };
    write(indexes.filter((index) => (changes[index] as LeadChange).claim.length === 0));
    const refused = await commitUnits(this.db, claims, { concurrency: CLAIM_CONCURRENCY, committed: write });
    for (const index of refused) outcomes[index] = 'conflict';
    const retried = new Set((await Promise.all(writes)).flatMap((keys) => [...keys]));
    // A view sent again landed later than its lead: a newer write of the lead may have come between.
    const late = indexes.filter((index) => {
      const { after } = changes[index] as LeadChange;
      return outcomes[index] === 'applied' && after.listIds.some((listId) => retried.has(`${listMemberKey(listId, after.id).pk}\u0000${listMemberKey(listId, after.id).sk}`));
    });
    await this.verifyViews(changes, late, openedAt);
  }

  /**
   * Changed leads: each lead with its guards (and the views it leaves) in a transaction, conditional
   * on its version; the views it gets are written in batches as each transaction commits. A view
   * put that lands after a newer write of the same lead would be stale, so the leads are read once
   * more at the end and any that moved on meanwhile get their views derived again.
   */
  private async update(changes: LeadChange[], indexes: number[], outcomes: ChangeOutcome[], openedAt: number): Promise<void> {
    const units = indexes.map((index) => {
      const change = changes[index] as LeadChange;
      return { owner: index, actions: leadUpdateActions(this.tableName, change), shared: campaignCounterKeys(change) };
    });
    const writes: Promise<Set<string>>[] = [];
    const viewed = new Set<number>();
    const write = (owners: number[]) => {
      const requests: WriteRequest[][] = [];
      for (const index of owners) {
        const puts = this.viewPuts(changes[index] as LeadChange);
        if (puts.length === 0) continue;
        requests.push(puts);
        viewed.add(index);
      }
      if (requests.length === 0) return;
      const written = batchWriteAll(this.db, this.tableName, requests);
      written.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
      writes.push(written);
    };
    const refused = await commitUnits(this.db, units, {
      // Transactions that move campaign counters all update the campaign's item: DynamoDB cancels
      // concurrent ones (TransactionConflict), so they go one after another (their views are still
      // written while the next one commits).
      concurrency: units.some((unit) => unit.shared.length > 0) ? 1 : CLAIM_CONCURRENCY,
      committed: write,
      groupActions: (owners) => this.countActions(changes, owners),
    });
    for (const index of refused) outcomes[index] = 'conflict';
    await Promise.all(writes);
    await this.verifyViews(changes, [...viewed], openedAt);
  }

  /**
   * A view put in a batch may land after a newer write of its lead (a retried unprocessed request,
   * or a slow call). Unless no batch opened in the workspace since this one (then nobody wrote
   * them), the leads are read once more (their versions only) and any that moved on get their views
   * derived again from the lead as it is, conditional on that version.
   */
  private async verifyViews(changes: LeadChange[], indexes: number[], openedAt: number): Promise<void> {
    if (indexes.length === 0) return;
    const viewed = new Set(indexes);
    const first = (changes[[...viewed][0] as number] as LeadChange).after;
    // No batch opened in the workspace since this one: nobody can have written these leads since.
    if ((await this.journal.batchesOpened(first.workspaceId)).batches === openedAt) return;
    const searchType = isProspect(first) ? 'PEOPLE' : 'COMPANY';
    // Only the versions first (what is compared); the leads that moved on are read whole.
    const leadKey = searchType === 'PEOPLE' ? prospectKey : companyKey;
    const versions = new Map(
      (
        await batchGetAll(this.db, this.tableName, [...viewed].map((index) => leadKey((changes[index] as LeadChange).after.id)), {
          consistent: true,
          projection: 'id, #version',
          names: { '#version': 'version' },
        })
      ).map((item) => [item.id as number, item.version as number]),
    );
    const moved = [...viewed].map((index) => (changes[index] as LeadChange).after).filter((after) => versions.get(after.id) !== after.version);
    if (moved.length === 0) return;
    const leads = await this.views.currentLeads(searchType, moved.map((after) => after.id));
    for (const after of moved) for (const listId of after.listIds) await this.views.rederive(searchType, listId, [after.id], leads);
  }

  /** The member views a changed lead puts: in the lists it joins, or all of its lists when they change. */
  private viewPuts(change: LeadChange): WriteRequest[] {
    const { before, after, member } = change;
    const previous = new Set(before?.listIds ?? []);
    const searchType = isProspect(after) ? 'PEOPLE' : 'COMPANY';
    return after.listIds
      .filter((listId) => !previous.has(listId) || change.refreshMembers)
      .map((listId) => ({ PutRequest: { Item: memberItem(searchType, listId, after.id, after.version, member) } }));
  }

  /** The workspace's and the campaigns' count updates of some changes, written in the same transaction as they are. */
  private countActions(changes: LeadChange[], indexes: number[]): TransactItem[] {
    const written = indexes.map((index) => changes[index] as LeadChange);
    return [...leadCountsActions(this.tableName, written), ...campaignCountActions(this.tableName, written)];
  }
}
