import { mergeCustomFields } from './custom-fields';
import { type Fingerprint, type FingerprintStamp, fastPathCandidates, primaryIdentity, rowFingerprint } from './import-fingerprint';
import type { CompanyInput, ProspectInput } from './import-rows';
import { type Company, PROSPECT_STATUS, type Prospect, companyIdentities, prospectIdentities } from './lead';
import { companyChangeAffectsProspects, companyMember, prospectMember } from './list-query';
import {
  type LeadWriterDeps,
  type PlannedWrite,
  SKIP_MESSAGES,
  type UpsertOptions,
  type UpsertOutcome,
  createRounds,
  unique,
} from './lead-rounds';
import { createListMembership } from './list-membership';

export {
  type LeadWriterDeps,
  type UpsertOutcome,
  type UpsertOptions,
  type SkipCode,
  SKIP_MESSAGES,
} from './lead-rounds';

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as T;

function companyContent(company: Company) {
  const { id, workspaceId, listIds, version, membersSyncedVersion, createdAt, updatedAt, ...content } = company;
  return content;
}

function prospectContent(prospect: Prospect) {
  const { id, workspaceId, listIds, version, createdAt, updatedAt, ...content } = prospect;
  return content;
}

/** Writes leads: upserts from imports and searches, joining and leaving lists, refreshing list members. */
export function createLeadWriter(deps: LeadWriterDeps) {
  const rounds = createRounds(deps);
  const { now, inRounds, upsertSkip, loadCompanies, identityOwners, joinedLists } = rounds;

  /** One id reservation for the rows that may create a lead (no identity of theirs has an owner), not a write per block. */
  async function reserveIds(rowIdentities: string[][], owners: Map<string, number>): Promise<void> {
    const creating = rowIdentities.filter((identities) => identities.every((identity) => !owners.has(identity))).length;
    if (creating > 1) await deps.ids.reserve?.(creating);
  }

  // ---- Companies ----

  const compatible = (a: CompanyInput | Company, b: CompanyInput | Company) =>
    (!a.domain || !b.domain || a.domain === b.domain) && (!a.networkUrl || !b.networkUrl || a.networkUrl === b.networkUrl);

  function mergeCompany(company: Company, input: CompanyInput): Company {
    const { name, ...rest } = input;
    return { ...company, ...defined(rest), ...(name ? { name } : {}) };
  }

  async function upsertCompanies(workspaceId: number, inputs: CompanyInput[], options: UpsertOptions): Promise<UpsertOutcome<Company>[]> {
    const outcomes = await inRounds<Company, UpsertOutcome<Company>>(
      inputs.length,
      async (pending) => {
        const identitiesOf = new Map(pending.map((i) => [i, companyIdentities(inputs[i] as CompanyInput)]));
        const { owners, leads: existing } = await identityOwners<Company>(
          workspaceId,
          'COMPANY',
          [...identitiesOf.values()].flat(),
          (ids) => deps.leads.getCompanies(ids),
          companyIdentities,
        );
        const settled = new Map<number, UpsertOutcome<Company>>();
        const writes: PlannedWrite<Company>[] = [];
        const batchClaims = new Map<string, number>();
        const batchLeads = new Map<number, number>();
        const stamp = now();
        await reserveIds(pending.map((index) => identitiesOf.get(index) ?? []), owners);

        for (const index of pending) {
          const input = inputs[index] as CompanyInput;
          const identities = identitiesOf.get(index) ?? [];
          const strong = identities.filter((identity) => !identity.startsWith('name:'));
          const nameIdentity = identities.find((identity) => identity.startsWith('name:'));
          const earlierRow = strong.map((identity) => batchClaims.get(identity)).find((row) => row !== undefined);
          if (earlierRow !== undefined) {
            settled.set(index, { status: 'duplicate', of: earlierRow });
            continue;
          }
          const strongOwners = unique(strong.map((identity) => owners.get(identity)).filter((id) => id !== undefined));
          if (strongOwners.length > 1) {
            settled.set(index, { status: 'skipped', reason: SKIP_MESSAGES.twoCompanies });
            continue;
          }
          let target = strongOwners[0] === undefined ? undefined : existing.get(strongOwners[0]);
          if (strongOwners[0] !== undefined && !target) {
            // A guard whose company is not readable yet: let the next round look again.
            settled.set(index, upsertSkip('concurrent_change'));
            continue;
          }
          if (!target && nameIdentity) {
            const byName = existing.get(owners.get(nameIdentity) ?? -1);
            if (byName && compatible(byName, input)) target = byName;
            const nameRow = batchClaims.get(nameIdentity);
            if (!target && nameRow !== undefined && compatible(inputs[nameRow] as CompanyInput, input)) {
              settled.set(index, { status: 'duplicate', of: nameRow });
              continue;
            }
          }
          if (target && batchLeads.has(target.id)) {
            settled.set(index, { status: 'duplicate', of: batchLeads.get(target.id) as number });
            continue;
          }

          // Free: no lead holds it and no other row of the batch claimed it (this row's own claims are its own).
          const free = (identity: string) => !owners.has(identity) && (batchClaims.get(identity) ?? index) === index;
          if (!target) {
            const listIds = options.list ? [options.list.id] : [];
            const company: Company = {
              ...defined(input),
              name: input.name,
              id: await deps.ids.next(),
              workspaceId,
              listIds,
              version: 1,
              membersSyncedVersion: 1,
              createdAt: stamp,
              updatedAt: stamp,
            };
            const claim = identities.filter(free);
            for (const identity of identities) if (!batchClaims.has(identity)) batchClaims.set(identity, index);
            batchLeads.set(company.id, index);
            writes.push({
              index,
              status: 'created',
              lead: company,
              change: { after: company, member: companyMember(company), claim, release: [], refreshMembers: false },
            });
            continue;
          }

          batchLeads.set(target.id, index);
          for (const identity of identities) if (!batchClaims.has(identity)) batchClaims.set(identity, index);
          const merged = options.overwrite ? mergeCompany(target, input) : target;
          const listIds = joinedLists(target, options.list);
          if (listIds === 'too_many') {
            settled.set(index, { status: 'skipped', reason: SKIP_MESSAGES.tooManyLists });
            continue;
          }
          const fieldsChanged = !same(companyContent(target), companyContent(merged));
          if (!fieldsChanged && listIds === target.listIds) {
            settled.set(index, { status: 'unchanged', lead: target });
            continue;
          }
          const version = target.version + 1;
          const affectsProspects = companyChangeAffectsProspects(target, merged);
          const inSync = target.membersSyncedVersion === target.version;
          const after: Company = {
            ...merged,
            listIds,
            version,
            membersSyncedVersion: inSync && !affectsProspects ? version : target.membersSyncedVersion,
            updatedAt: fieldsChanged ? stamp : target.updatedAt,
          };
          const desired = companyIdentities(after);
          const claim = desired.filter(free);
          const release = companyIdentities(target).filter((identity) => owners.get(identity) === target.id && !desired.includes(identity));
          writes.push({
            index,
            status: 'updated',
            lead: after,
            change: { before: target, after, member: companyMember(after), claim, release, refreshMembers: fieldsChanged },
          });
        }
        return { settled, writes };
      },
      (write) => ({ status: write.status, lead: write.lead }),
      upsertSkip,
    );
    const lagging = outcomes.flatMap((outcome) =>
      'lead' in outcome && outcome.lead.membersSyncedVersion < outcome.lead.version
        ? [outcome.lead]
        : [],
    );
    await syncCompanyMembers(lagging);
    return outcomes;
  }

  /**
   * Rewrites the list members of the companies' prospects so their company filter values are
   * current, then records the company version they carry. Idempotent; a company left behind by
   * an interrupted request is caught up the next time it is read by a write (see ensureSynced).
   */
  async function syncCompanyMembers(companies: Company[]): Promise<void> {
    if (companies.length === 0) return;
    const { byCompany, complete } = await deps.leads.prospectsOfCompanies(companies);
    for (const company of companies) {
      const prospects = (byCompany.get(company.id) ?? []).filter((p) => p.workspaceId === company.workspaceId && p.listIds.length > 0);
      const ids = prospects.map((p) => p.id);
      const outcomes = await inRounds<Prospect, boolean>(
        ids.length,
        async (pending) => {
          const current = new Map((await deps.leads.getProspects(pending.map((i) => ids[i] as number))).map((p) => [p.id, p]));
          const settled = new Map<number, boolean>();
          const writes: PlannedWrite<Prospect>[] = [];
          for (const index of pending) {
            const prospect = current.get(ids[index] as number);
            if (!prospect || prospect.companyId !== company.id || prospect.listIds.length === 0) {
              settled.set(index, true);
              continue;
            }
            const after = { ...prospect, version: prospect.version + 1 };
            writes.push({
              index,
              status: 'updated',
              lead: after,
              change: { before: prospect, after, member: prospectMember(after, company), claim: [], release: [], refreshMembers: true },
            });
          }
          return { settled, writes };
        },
        () => true,
        () => false,
      );
      // A batch still open on a list may be adding prospects of the company that the digest does
      // not show yet: then the company stays behind, and the next write that reads it tries again.
      if (complete && outcomes.every(Boolean)) await deps.leads.markCompanyMembersSynced(company);
    }
  }

  /** Catches up companies whose last change did not reach their prospects' list members. */
  async function ensureSynced(companies: Iterable<Company>): Promise<void> {
    await syncCompanyMembers([...companies].filter((c) => c.membersSyncedVersion < c.version));
  }

  // ---- Prospects ----

  function mergeProspect(prospect: Prospect, input: ProspectInput['fields']): Prospect {
    const { customFields, ...fields } = input;
    const merged: Prospect = { ...prospect, ...defined(fields) };
    if (customFields) merged.customFields = mergeCustomFields(prospect.customFields, customFields);
    return merged;
  }

  /** Companies of the inputs: matched or created (never changed), one per distinct company. */
  async function resolveCompanies(workspaceId: number, inputs: ProspectInput[]): Promise<(Company | string | undefined)[]> {
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
    const outcomes = distinct.length ? await upsertCompanies(workspaceId, distinct, { overwrite: false }) : [];
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
    const companyOf = await resolveCompanies(workspaceId, inputs);
    const knownCompanies = new Map<number, Company>();
    for (const company of companyOf) if (typeof company === 'object') knownCompanies.set(company.id, company);

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
        const { owners, leads: existing } = await (prefetched ?? lookup(live));
        prefetched = undefined;
        const missing = [...existing.values()].flatMap((p) => (p.companyId && !knownCompanies.has(p.companyId) ? [p.companyId] : []));
        for (const [id, company] of await loadCompanies(workspaceId, missing)) knownCompanies.set(id, company);
        await ensureSynced(knownCompanies.values());

        const writes: PlannedWrite<Prospect>[] = [];
        const batchClaims = new Map<string, number>();
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
            settled.set(index, upsertSkip('concurrent_change'));
            continue;
          }

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
        return { settled, writes };
      },
      (write) => ({ status: write.status, lead: write.lead }),
      upsertSkip,
    );
    if (stamps.length) await deps.leads.stampFingerprints(workspaceId, stamps);
    return outcomes;
  }

  const { addToList, removeFromList } = createListMembership(deps, rounds, ensureSynced);

  return { upsertCompanies, upsertProspects, addToList, removeFromList };
}

export type LeadWriter = ReturnType<typeof createLeadWriter>;
