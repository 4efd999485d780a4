import type { ProspectStatus } from '../campaigns/campaign';
import type { Prospect } from '../leads/lead';
import { type LeadWriterDeps, createRounds } from '../leads/lead-rounds';
import { prospectMember } from '../leads/list-query';
import type { LeadChange } from '../leads/ports';
import type { OutreachAction } from './action';
import type { ProspectProgress } from './ports';

/** The statuses the engine moves a prospect from; any other (a reply, an unsubscribe) is not the engine's to overwrite. */
const ENGINE_STATUSES: ReadonlySet<string> = new Set(['IN_REVIEW', 'IN_PROGRESS']);

type Moved = 'applied' | 'gone';

/**
 * The prospect statuses the engine sets (IN_PROGRESS once it has acted, FINISHED or BOUNCED when
 * the sequence ends), written like any prospect change: the prospect conditional on its version,
 * its campaign prospect item in the same transaction, its list views and digests after it. A
 * prospect that has left the campaign meanwhile is `gone`; one whose status moved past the
 * engine's (a reply) is left as it is.
 */
export function createProspectProgress(deps: LeadWriterDeps): ProspectProgress {
  const { inRounds, loadCompanies, now } = createRounds(deps);

  async function move(action: OutreachAction, status: ProspectStatus, lastError: string | null): Promise<Moved> {
    const [outcome] = await inRounds<Prospect, Moved | 'contended'>(
      1,
      async () => {
        const [lead] = await deps.leads.getProspects([action.prospectId]);
        if (!lead || lead.workspaceId !== action.workspaceId || lead.campaignId !== action.campaignId) {
          return { settled: new Map([[0, 'gone' as const]]), writes: [] };
        }
        if (lead.status === status || !ENGINE_STATUSES.has(lead.status)) return { settled: new Map([[0, 'applied' as const]]), writes: [] };
        const companies = lead.companyId === undefined ? new Map() : await loadCompanies(lead.workspaceId, [lead.companyId]);
        const stamp = now();
        const after: Prospect = { ...lead, status, version: lead.version + 1, updatedAt: stamp };
        const change: LeadChange = {
          before: lead,
          after,
          member: prospectMember(after, lead.companyId === undefined ? undefined : companies.get(lead.companyId)),
          claim: [],
          release: [],
          // Its status shows in its views in every list it is in.
          refreshMembers: true,
          campaign: { progress: { campaignId: action.campaignId, status, lastError, at: stamp } },
        };
        return { settled: new Map(), writes: [{ index: 0, status: 'updated', lead: after, change }] };
      },
      () => 'applied',
      () => 'contended',
    );
    // Still contended after the writer's rounds: the message is retried, the write converges.
    if (outcome === 'contended' || outcome === undefined) throw new Error(`Prospect ${action.prospectId} kept changing while its status was written`);
    return outcome;
  }

  return {
    start: (action) => move(action, 'IN_PROGRESS', null),
    finish: (action, status, lastError) => move(action, status, lastError),
  };
}
