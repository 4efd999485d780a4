import type { Company, Prospect } from '../leads/lead';
import type { LeadWriterDeps, PlannedWrite, TimeLeft, createRounds } from '../leads/lead-rounds';
import { prospectMember } from '../leads/list-query';
import type { CampaignMove, LeadChange } from '../leads/ports';
import type { Campaign, CampaignStatus } from './campaign';
import type { ScheduleState } from './campaign-prospect';
import type { MovedProspect } from './prospect-move-shapes';
import type { MoveSkipReason } from './selection';

/** What one prospect's write does, as decided on the prospect read now: its new state and its campaign move. */
export type Decision = { after: Prospect; move: CampaignMove; schedule?: ScheduleState } | { skipped: MoveSkipReason };

/** What became of one prospect of a move: moved (into a campaign of that status, out of `left`), or skipped. */
export type MoveOutcome = { moved: MovedProspect; schedule?: ScheduleState; status: CampaignStatus; left?: number } | { skipped: MoveSkipReason };

/** The writer of prospect moves (prospect-moves.ts), over the lead write path's rounds. */
export function createMoveWriter(
  deps: Pick<LeadWriterDeps, 'leads'>,
  { now, inRounds, loadCompanies }: ReturnType<typeof createRounds>,
  writableCampaign: (workspaceId: number, campaignId: number) => Promise<Campaign>,
) {
  /**
   * Writes prospects' campaign changes in rounds: each prospect (conditional on its version) with
   * its campaign prospect items and both campaigns' counts in one transaction, conditional on the
   * campaign still having the status the decision was made by. A prospect that changed meanwhile,
   * or a campaign whose status did, is read again and decided again on what is read; a campaign
   * archived meanwhile stops the request with 409 (what was written before stays).
   */
  return async function rewrite(
    workspaceId: number,
    first: Campaign,
    leads: Prospect[],
    decide: (lead: Prospect, campaign: Campaign, stamp: string) => Decision,
    /** Companies already read (of the workspace), for the first round. */
    known: Map<number, Company> = new Map(),
    timeLeft?: TimeLeft,
    /** The campaign read again after a write found it changed (by default as `writableCampaign` reads it). */
    readAgain: (workspaceId: number, campaignId: number) => Promise<Campaign> = writableCampaign,
  ): Promise<MoveOutcome[]> {
    let campaign = first;
    let current: Map<number, Prospect> | undefined = new Map(leads.map((lead) => [lead.id, lead]));
    const ids = leads.map((lead) => lead.id);
    const planned = new Map<number, MoveOutcome>();
    return inRounds<Prospect, MoveOutcome>(
      ids.length,
      async (pending) => {
        if (!current) {
          campaign = await readAgain(workspaceId, campaign.id);
          current = new Map((await deps.leads.getProspects(pending.map((i) => ids[i] as number))).map((lead) => [lead.id, lead]));
        }
        const fresh = current;
        current = undefined;
        const companies = new Map(known);
        const missing = [...fresh.values()].flatMap((lead) =>
          lead.workspaceId === workspaceId && lead.companyId !== undefined && !companies.has(lead.companyId) ? [lead.companyId] : [],
        );
        for (const [id, company] of await loadCompanies(workspaceId, missing)) companies.set(id, company);
        const settled = new Map<number, MoveOutcome>();
        const writes: PlannedWrite<Prospect>[] = [];
        const stamp = now();
        for (const index of pending) {
          const lead = fresh.get(ids[index] as number);
          const decision: Decision = !lead || lead.workspaceId !== workspaceId ? { skipped: 'not_in_list' } : decide(lead, campaign, stamp);
          if (!lead || 'skipped' in decision) {
            settled.set(index, 'skipped' in decision ? decision : { skipped: 'not_in_list' });
            continue;
          }
          const { after, move, schedule } = decision;
          const company = after.companyId === undefined ? undefined : companies.get(after.companyId);
          const change: LeadChange = {
            before: lead,
            after,
            member: prospectMember(after, company),
            claim: [],
            release: [],
            // Its status and campaign show in its views in every list it is in.
            refreshMembers: true,
            campaign: move,
          };
          const left = move.leave !== undefined && move.leave !== move.enter?.campaignId ? move.leave : undefined;
          planned.set(index, { moved: { prospect: after, company }, ...(schedule ? { schedule } : {}), status: campaign.status, ...(left === undefined ? {} : { left }) });
          writes.push({ index, status: 'updated', lead: after, change });
        }
        return { settled, writes };
      },
      (write) => planned.get(write.index) as MoveOutcome,
      () => ({ skipped: 'concurrent_change' }),
      timeLeft,
    );
  };
}
