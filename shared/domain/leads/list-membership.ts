import type { Company, Lead, LeadList, Prospect } from './lead';
import { PROSPECT_STATUS, isProspect } from './lead';
import type { LeadWriterDeps, PlannedWrite, Rounds, SkipCode, TimeLeft } from './lead-rounds';
import { companyMember, prospectMember } from './list-query';
import type { LeadChange } from './ports';

/** Adding existing leads to a list and taking them out (add-leads, delete-leads). */
export function createListMembership(deps: LeadWriterDeps, rounds: Rounds, ensureSynced: (companies: Iterable<Company>) => Promise<void>) {
  const { now, inRounds, loadCompanies, joinedLists } = rounds;


  async function loadLeads(list: LeadList, ids: number[]): Promise<Map<number, Lead>> {
    const leads: Lead[] = list.searchType === 'PEOPLE' ? await deps.leads.getProspects(ids) : await deps.leads.getCompanies(ids);
    return new Map(leads.filter((lead) => lead.workspaceId === list.workspaceId).map((lead) => [lead.id, lead]));
  }

  async function memberOf(list: LeadList, leads: Lead[]): Promise<(lead: Lead) => LeadChange['member']> {
    if (list.searchType === 'COMPANY') return (lead) => companyMember(lead as Company);
    const companies = await loadCompanies(
      list.workspaceId,
      leads.flatMap((lead) => (isProspect(lead) && lead.companyId ? [lead.companyId] : [])),
    );
    await ensureSynced(companies.values());
    return (lead) => prospectMember(lead as Prospect, companies.get((lead as Prospect).companyId ?? -1));
  }

  /** A lead's outcome; `left`: the campaign a prospect left by it (archived out of it). */
  type IdOutcome = { id: number; skipped?: SkipCode; left?: number };

  /** What a membership change does to one found lead: skip it, or write it as `after` (with the campaign it leaves). */
  type MembershipRule = (lead: Lead, stamp: string) => { skipped: SkipCode } | { after: Lead; campaign?: LeadChange['campaign'] };

  /**
   * Loads the leads, applies `rule` to each one found in the list's workspace, and writes the
   * changed ones in rounds (retrying leads that changed concurrently), keeping list counters true.
   */
  async function changeMembership(list: LeadList, ids: number[], rule: MembershipRule, timeLeft?: TimeLeft): Promise<IdOutcome[]> {
    return inRounds<Lead, IdOutcome>(
      ids.length,
      async (pending) => {
        const leads = await loadLeads(list, pending.map((i) => ids[i] as number));
        const project = await memberOf(list, [...leads.values()]);
        const settled = new Map<number, IdOutcome>();
        const writes: PlannedWrite<Lead>[] = [];
        const stamp = now();
        for (const index of pending) {
          const id = ids[index] as number;
          const lead = leads.get(id);
          if (!lead) {
            settled.set(index, { id, skipped: 'not_found' });
            continue;
          }
          const decision = rule(lead, stamp);
          if ('skipped' in decision) {
            settled.set(index, { id, skipped: decision.skipped });
            continue;
          }
          const { after, campaign } = decision;
          writes.push({
            index,
            status: 'updated',
            lead: after,
            change: { before: lead, after, member: project(after), claim: [], release: [], refreshMembers: false, ...(campaign ? { campaign } : {}) },
          });
        }
        return { settled, writes };
      },
      (write) => {
        const left = write.change.campaign?.leave;
        return { id: write.lead.id, ...(left === undefined ? {} : { left }) };
      },
      (code) => ({ id: -1, skipped: code }),
      timeLeft,
    ).then((outcomes) => outcomes.map((outcome, i) => ({ ...outcome, id: ids[i] as number })));
  }

  /** Adds existing leads of the list's workspace to it; an archived prospect becomes NEW again. */
  function addToList(list: LeadList, ids: number[], timeLeft?: TimeLeft): Promise<IdOutcome[]> {
    return changeMembership(list, ids, (lead, stamp) => {
      const listIds = joinedLists(lead, list);
      if (listIds === lead.listIds) return { skipped: 'already_in_list' };
      if (listIds === 'too_many' || !listIds) return { skipped: 'too_many_lists' };
      const restore = isProspect(lead) && lead.status === PROSPECT_STATUS.archived;
      return {
        after: {
          ...lead,
          listIds,
          version: lead.version + 1,
          ...(restore ? { status: PROSPECT_STATUS.new, updatedAt: stamp } : {}),
        } as Lead,
      };
    }, timeLeft);
  }

  /**
   * Takes leads out of the list. A prospect is archived: it keeps its data, gets status ARCHIVED
   * and leaves every list (archived prospects appear in none) and its campaign (its campaign
   * prospect item deleted and the campaign's count moved in the same transaction, whatever the
   * campaign's status). A company only leaves this list.
   */
  function removeFromList(list: LeadList, ids: number[], timeLeft?: TimeLeft): Promise<IdOutcome[]> {
    return changeMembership(list, ids, (lead, stamp) => {
      if (!lead.listIds.includes(list.id)) return { skipped: 'not_in_list' };
      if (!isProspect(lead)) return { after: { ...lead, listIds: lead.listIds.filter((l) => l !== list.id), version: lead.version + 1 } };
      const { campaignId, ...rest } = lead;
      return {
        after: { ...rest, listIds: [], status: PROSPECT_STATUS.archived, version: lead.version + 1, updatedAt: stamp },
        ...(campaignId === undefined ? {} : { campaign: { leave: campaignId } }),
      };
    }, timeLeft);
  }

  return { addToList, removeFromList };
}
