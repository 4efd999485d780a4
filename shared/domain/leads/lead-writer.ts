import { mergeCustomFields } from './custom-fields';
import { type Fingerprint, type FingerprintStamp, fastPathCandidates, primaryIdentity, rowFingerprint } from './import-fingerprint';
import type { CompanyInput, ProspectInput } from './import-rows';
import { type Company, PROSPECT_STATUS, type Prospect, companyIdentities, prospectIdentities } from './lead';
import { prospectMember } from './list-query';
import { keptPageUrl } from './normalize';
import {
  type LeadWriterDeps,
  type PlannedWrite,
  SKIP_MESSAGES,
  type TimeLeft,
  type UpsertOptions,
  type UpsertOutcome,
  createRounds,
  defined,
  same,
  unique,
} from './lead-rounds';
import { createCompanyWriter } from './company-writer';
import { createListMembership } from './list-membership';

export {
  type LeadWriterDeps,
  type TimeLeft,
  type UpsertOutcome,
  type UpsertOptions,
  type SkipCode,
  SKIP_MESSAGES,
} from './lead-rounds';

function prospectContent(prospect: Prospect) {
  const { id, workspaceId, listIds, version, createdAt, updatedAt, ...content } = prospect;
  return content;
}

/** Writes leads: upserts from imports and searches, joining and leaving lists, refreshing list members. */
export function createLeadWriter(deps: LeadWriterDeps) {
  const rounds = createRounds(deps);
  const { now, inRounds, upsertSkip, loadCompanies, identityOwners, joinedLists, reserveIds } = rounds;

  const { upsertCompanies, ensureSynced } = createCompanyWriter(deps, rounds);

  function mergeProspect(prospect: Prospect, input: ProspectInput['fields']): Prospect {
    const { customFields, ...fields } = input;
    const merged: Prospect = { ...prospect, ...defined(fields) };
    if (fields.networkProfileUrl) merged.networkProfileUrl = keptPageUrl(prospect.networkProfileUrl, fields.networkProfileUrl);
    if (customFields) merged.customFields = mergeCustomFields(prospect.customFields, customFields);
    return merged;
  }

  /** Companies of the inputs: matched or created (never changed), one per distinct company. */
  async function resolveCompanies(workspaceId: number, inputs: ProspectInput[], timeLeft?: TimeLeft): Promise<(Company | string | undefined)[]> {
    const distinct: CompanyInput[] = [];
    const slot = new Map<string, number>();
    const slotOf = inputs.map((input) => {
      if (!input.company) return undefined;
      const key = companyIdentities(input.company).join('|');
      if (!slot.has(key)) {
        slot.set(key, distinct.length);
        distinct.push(input.company);
      }
      return slot.get(key);
    });
    const outcomes = distinct.length ? await upsertCompanies(workspaceId, distinct, { overwrite: false, timeLeft }) : [];
    const settle = (i: number, depth = 0): Company | string => {
      const outcome = outcomes[i];
      if (!outcome) return SKIP_MESSAGES.concurrentChange;
      if (outcome.status === 'duplicate') return depth > distinct.length ? SKIP_MESSAGES.concurrentChange : settle(outcome.of, depth + 1);
      if (outcome.status === 'skipped') return `company: ${outcome.reason}`;
      // Companies are never matched by fingerprint (only import rows of prospects are).
      return 'lead' in outcome ? outcome.lead : SKIP_MESSAGES.concurrentChange;
    };
    return slotOf.map((i) => (i === undefined ? undefined : settle(i)));
  }

  /**
   * Upserts prospects. An import (into a list, overwriting) first sets aside the rows whose
   * fingerprint shows they change nothing, confirmed without reading their leads; the other rows
   * are planned from the leads they match.
   */
  async function upsertProspects(workspaceId: number, inputs: ProspectInput[], options: UpsertOptions): Promise<UpsertOutcome<Prospect>[]> {
    const list = options.list;
    if (!list || !options.overwrite) return planProspects(workspaceId, inputs, options);
    const candidates = fastPathCandidates(inputs).map((index) => ({ index, identity: primaryIdentity(inputs[index] as ProspectInput) as string }));
    const { prints, unclaimed } = candidates.length
      ? await deps.leads.findFingerprints(workspaceId, candidates.map((c) => c.identity))
      : { prints: new Map<string, Fingerprint>(), unclaimed: new Set<string>() };
    const matching = candidates.flatMap(({ index, identity }) => {
      const fingerprint = prints.get(identity);
      return fingerprint && fingerprint.fp === rowFingerprint(list.id, inputs[index] as ProspectInput) ? [{ owner: index, workspaceId, fingerprint }] : [];
    });
    const refused = matching.length ? await deps.leads.confirmUnchanged(matching) : new Set<number>();
    const outcomes = new Array<UpsertOutcome<Prospect>>(inputs.length);
    for (const { owner, fingerprint } of matching) if (!refused.has(owner)) outcomes[owner] = { status: 'matched', id: fingerprint.leadId };
    const rest = inputs.flatMap((_, index) => (outcomes[index] ? [] : [index]));
    // The guards found missing need not be read again to plan (new rows: most of an import).
    const planned = await planProspects(workspaceId, rest.map((index) => inputs[index] as ProspectInput), options, unclaimed);
    planned.forEach((outcome, k) => {
      outcomes[rest[k] as number] = outcome.status === 'duplicate' ? { status: 'duplicate', of: rest[outcome.of] as number } : outcome;
    });
    return outcomes;
  }

  /** The stamp recording that an import row settled `lead` (with its company as it is). */
  function stampOf(options: UpsertOptions, input: ProspectInput, lead: Prospect, company: Company | undefined): FingerprintStamp | undefined {
    const identity = primaryIdentity(input);
    if (!options.list || !options.overwrite || !identity) return undefined;
    // Which company a row names can change without its company changing (another company may
    // claim one of the row's company identities later): only a company holding all of them is
    // stable enough to stamp; otherwise the row is always planned.
    if (input.company) {
      const held = company ? companyIdentities(company) : [];
      if (!company || lead.companyId !== company.id || !companyIdentities(input.company).every((id) => held.includes(id))) return undefined;
    }
    return {
      identity,
      fp: rowFingerprint(options.list.id, input),
      leadId: lead.id,
      leadVersion: lead.version,
      ...(company && lead.companyId === company.id ? { companyId: company.id, companyVersion: company.version } : {}),
    };
  }

  /**
   * `unclaimed`: identities a read of this request found without a guard. The first round plans
   * them as free without reading them again; one claimed meanwhile fails its claim's condition, and
   * the next round reads it like any other.
   */
  async function planProspects(
    workspaceId: number,
    inputs: ProspectInput[],
    options: UpsertOptions,
    unclaimed: ReadonlySet<string> = new Set(),
  ): Promise<UpsertOutcome<Prospect>[]> {
    const stamps: FingerprintStamp[] = [];
    // The prospects' identities do not depend on their companies: look them up meanwhile.
    const lookup = (indexes: number[], knownUnclaimed: ReadonlySet<string> = new Set()) =>
      identityOwners<Prospect>(
        workspaceId,
        'PROSPECT',
        indexes.flatMap((i) => prospectIdentities((inputs[i] as ProspectInput).fields)),
        (ids) => deps.leads.getProspects(ids),
        prospectIdentities,
        { knownUnclaimed },
      );
    let prefetched: ReturnType<typeof lookup> | undefined = lookup([...inputs.keys()], unclaimed);
    prefetched.catch(() => {});
    const companyOf = await resolveCompanies(workspaceId, inputs, options.timeLeft);
    const knownCompanies = new Map<number, Company>();
    for (const company of companyOf) if (typeof company === 'object') knownCompanies.set(company.id, company);
    const caughtUp = new Set<number>();

    const outcomes = await inRounds<Prospect, UpsertOutcome<Prospect>>(
      inputs.length,
      async (pending) => {
        const settled = new Map<number, UpsertOutcome<Prospect>>();
        const live = pending.filter((index) => {
          const company = companyOf[index];
          if (typeof company === 'string') settled.set(index, { status: 'skipped', reason: company });
          return typeof company !== 'string';
        });
        const identitiesOf = new Map(live.map((i) => [i, prospectIdentities((inputs[i] as ProspectInput).fields)]));
        // The first round uses the lookup made while companies were resolved (a superset of what it needs).
        let { owners, leads: existing } = await (prefetched ?? lookup(live));
        prefetched = undefined;
        const missing = [...existing.values()].flatMap((p) => (p.companyId && !knownCompanies.has(p.companyId) ? [p.companyId] : []));
        for (const [id, company] of await loadCompanies(workspaceId, missing)) knownCompanies.set(id, company);
        // A company whose last change (a COMPANY list joined or left, say) did not reach its
        // prospects' list members is caught up once per request, and the leads read again: the
        // catch-up rewrites those prospects, so a plan on the versions read before it would fail
        // every round (before 2026-11-27 it did, and each round caught up again: every row of
        // such a company was skipped as changed during the request).
        const lagging = [...knownCompanies.values()].filter((company) => !caughtUp.has(company.id) && company.membersSyncedVersion < company.version);
        if (lagging.length > 0) {
          await ensureSynced(lagging);
          for (const company of lagging) caughtUp.add(company.id);
          ({ owners, leads: existing } = await lookup(live));
        }

        const writes: PlannedWrite<Prospect>[] = [];
        const again: number[] = [];
        const batchClaims = new Map<string, number>();
        // The saved prospect each row of the round updates: two rows that reach one prospect by
        // different identities (its URL, its email) are one lead named twice, as for companies.
        const batchLeads = new Map<number, number>();
        const stamp = now();
        await reserveIds(live.map((index) => identitiesOf.get(index) ?? []), owners);
        for (const index of live) {
          const input = inputs[index] as ProspectInput;
          const inputCompany = companyOf[index] as Company | undefined;
          const identities = identitiesOf.get(index) ?? [];
          const earlierRow = identities.map((identity) => batchClaims.get(identity)).find((row) => row !== undefined);
          if (earlierRow !== undefined) {
            settled.set(index, { status: 'duplicate', of: earlierRow });
            continue;
          }
          for (const identity of identities) batchClaims.set(identity, index);
          const ownerIds = unique(identities.map((identity) => owners.get(identity)).filter((id) => id !== undefined));
          if (ownerIds.length > 1) {
            settled.set(index, { status: 'skipped', reason: SKIP_MESSAGES.twoProspects });
            continue;
          }
          const free = (identity: string) => !owners.has(identity);
          const target = ownerIds[0] === undefined ? undefined : existing.get(ownerIds[0]);
          if (ownerIds[0] !== undefined && !target) {
            // A guard whose prospect cannot be read yet: another request is writing it; the next round
            // looks again (after MAX_ROUNDS, the row is skipped as changed during the request).
            again.push(index);
            continue;
          }
          const firstRow = target === undefined ? undefined : batchLeads.get(target.id);
          if (firstRow !== undefined) {
            // Before 2026-11-29 both rows were applied, the second over the first (a probe).
            settled.set(index, { status: 'duplicate', of: firstRow });
            for (const identity of identities) if (batchClaims.get(identity) === index) batchClaims.set(identity, firstRow);
            continue;
          }
          if (target) batchLeads.set(target.id, index);

          if (!target) {
            const prospect: Prospect = {
              ...defined(input.fields),
              firstName: input.fields.firstName,
              lastName: input.fields.lastName,
              ...(input.fields.customFields ? { customFields: input.fields.customFields } : {}),
              ...(inputCompany ? { companyId: inputCompany.id } : {}),
              id: await deps.ids.next(),
              workspaceId,
              status: PROSPECT_STATUS.new,
              listIds: options.list ? [options.list.id] : [],
              version: 1,
              createdAt: stamp,
              updatedAt: stamp,
            };
            writes.push({
              index,
              status: 'created',
              lead: prospect,
              change: {
                after: prospect,
                member: prospectMember(prospect, inputCompany),
                claim: identities.filter(free),
                release: [],
                refreshMembers: false,
                stamp: stampOf(options, input, prospect, inputCompany),
              },
            });
            continue;
          }

          const listIds = joinedLists(target, options.list);
          if (listIds === 'too_many') {
            settled.set(index, { status: 'skipped', reason: SKIP_MESSAGES.tooManyLists });
            continue;
          }
          let merged = options.overwrite ? mergeProspect(target, input.fields) : target;
          if (options.overwrite && inputCompany) merged = { ...merged, companyId: inputCompany.id };
          const joining = listIds !== target.listIds;
          if (joining && merged.status === PROSPECT_STATUS.archived) merged = { ...merged, status: PROSPECT_STATUS.new };
          const fieldsChanged = !same(prospectContent(target), prospectContent(merged));
          if (!fieldsChanged && !joining) {
            settled.set(index, { status: 'unchanged', lead: target });
            const stampNow = stampOf(options, input, target, target.companyId === undefined ? undefined : knownCompanies.get(target.companyId));
            if (stampNow) stamps.push(stampNow);
            continue;
          }
          const after: Prospect = { ...merged, listIds, version: target.version + 1, updatedAt: fieldsChanged ? stamp : target.updatedAt };
          const desired = prospectIdentities(after);
          const company = after.companyId === undefined ? undefined : knownCompanies.get(after.companyId);
          const member = prospectMember(after, company);
          writes.push({
            index,
            status: 'updated',
            lead: after,
            change: {
              before: target,
              after,
              member,
              claim: desired.filter(free),
              release: prospectIdentities(target).filter((identity) => owners.get(identity) === target.id && !desired.includes(identity)),
              refreshMembers: !same(member, prospectMember(target, target.companyId === undefined ? undefined : knownCompanies.get(target.companyId))),
              stamp: stampOf(options, input, after, company),
            },
          });
        }
        return { settled, writes, again };
      },
      (write) => ({ status: write.status, lead: write.lead }),
      upsertSkip,
      options.timeLeft,
    );
    if (stamps.length) await deps.leads.stampFingerprints(workspaceId, stamps);
    return outcomes;
  }

  const { addToList, removeFromList } = createListMembership(deps, rounds, ensureSynced);

  return { upsertCompanies, upsertProspects, addToList, removeFromList };
}

export type LeadWriter = ReturnType<typeof createLeadWriter>;
