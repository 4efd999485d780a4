import type { CompanyInput } from './import-rows';
import { type Company, type Prospect, companyIdentities } from './lead';
import {
  type LeadWriterDeps,
  type PlannedWrite,
  type Rounds,
  SKIP_MESSAGES,
  type UpsertOptions,
  type UpsertOutcome,
  defined,
  same,
  unique,
} from './lead-rounds';
import { companyChangeAffectsProspects, companyMember, prospectMember } from './list-query';

function companyContent(company: Company) {
  const { id, workspaceId, listIds, version, membersSyncedVersion, createdAt, updatedAt, ...content } = company;
  return content;
}

/**
 * Writes companies (imports, searches, and the companies prospects name) and keeps their
 * prospects' list members in step with them.
 */
export function createCompanyWriter(deps: LeadWriterDeps, rounds: Rounds) {
  const { now, inRounds, upsertSkip, identityOwners, joinedLists, reserveIds } = rounds;

  const compatible = (a: CompanyInput | Company, b: CompanyInput | Company) =>
    (!a.domain || !b.domain || a.domain === b.domain) && (!a.networkUrl || !b.networkUrl || a.networkUrl === b.networkUrl);

  function mergeCompany(company: Company, input: CompanyInput): Company {
    const { name, nameDerived, ...rest } = input;
    return { ...company, ...defined(rest), ...(name && !nameDerived ? { name } : {}) };
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
        const again: number[] = [];
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
            // A guard whose company cannot be read yet: another request is writing it; the next round
            // looks again (after MAX_ROUNDS, the row is skipped as changed during the request).
            again.push(index);
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
            const { nameDerived: _named, ...fields } = input;
            const company: Company = {
              ...defined(fields),
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
        return { settled, writes, again };
      },
      (write) => ({ status: write.status, lead: write.lead }),
      upsertSkip,
      options.timeLeft,
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

  return { upsertCompanies, ensureSynced };
}
