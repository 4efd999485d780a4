import type { ProspectStatus } from '../campaigns/campaign';
import type { Prospect } from '../leads/lead';
import { type LeadWriterDeps, createRounds } from '../leads/lead-rounds';
import { prospectMember } from '../leads/list-query';
import type { LeadChange } from '../leads/ports';
import type { ProspectProgress } from './ports';

/** The statuses the engine moves a prospect from; any other (a reply, an unsubscribe) is not the engine's to overwrite. */
const ENGINE_STATUSES: ReadonlySet<string> = new Set(['IN_REVIEW', 'IN_PROGRESS']);

export interface StatusWrite {
  workspaceId: number;
  prospectId: number;
  status: ProspectStatus;
  /** Whether the prospect's current status may be replaced by `status` (when not, nothing is written). */
  replaces: (current: string) => boolean;
  /** Only while the prospect is in this campaign (undefined: wherever it is). */
  campaignId?: number | undefined;
  lastError?: string | null;
}

/**
 * What a status write found: `applied` (written, or already that status), `kept` (its status may
 * not be replaced; nothing written), `gone` (not in that campaign, or not the workspace's).
 */
export type StatusWritten = { result: 'applied' | 'kept'; prospect: Prospect } | { result: 'gone' };

/**
 * Writes a prospect's status like any prospect change: the prospect conditional on its version, its
 * campaign prospect item (if it is in a campaign) in the same transaction, its list views and
 * digests after it. Re-read and re-planned when the prospect changed meanwhile; still contended
 * after the writer's rounds, it throws (a queue message is retried, a request answers 500 and the
 * caller repeats it: the write converges).
 */
export function createStatusWriter(deps: LeadWriterDeps) {
  const { inRounds, loadCompanies, now } = createRounds(deps);

  return async function writeStatus(input: StatusWrite): Promise<StatusWritten> {
    let found: StatusWritten = { result: 'gone' };
    const [outcome] = await inRounds<Prospect, 'done' | 'contended'>(
      1,
      async () => {
        const [lead] = await deps.leads.getProspects([input.prospectId]);
        if (!lead || lead.workspaceId !== input.workspaceId || (input.campaignId !== undefined && lead.campaignId !== input.campaignId)) {
          found = { result: 'gone' };
          return { settled: new Map([[0, 'done' as const]]), writes: [] };
        }
        if (lead.status === input.status || !input.replaces(lead.status)) {
          found = { result: lead.status === input.status ? 'applied' : 'kept', prospect: lead };
          return { settled: new Map([[0, 'done' as const]]), writes: [] };
        }
        const companies = lead.companyId === undefined ? new Map() : await loadCompanies(lead.workspaceId, [lead.companyId]);
        const stamp = now();
        const after: Prospect = { ...lead, status: input.status, version: lead.version + 1, updatedAt: stamp };
        found = { result: 'applied', prospect: after };
        const change: LeadChange = {
          before: lead,
          after,
          member: prospectMember(after, lead.companyId === undefined ? undefined : companies.get(lead.companyId)),
          claim: [],
          release: [],
          // Its status shows in its views in every list it is in.
          refreshMembers: true,
          ...(lead.campaignId === undefined
            ? {}
            : { campaign: { progress: { campaignId: lead.campaignId, status: input.status, lastError: input.lastError ?? null, at: stamp } } }),
        };
        return { settled: new Map(), writes: [{ index: 0, status: 'updated', lead: after, change }] };
      },
      () => 'done',
      () => 'contended',
    );
    if (outcome !== 'done') throw new Error(`Prospect ${input.prospectId} kept changing while its status was written`);
    return found;
  };
}

export type StatusWriter = ReturnType<typeof createStatusWriter>;

/**
 * The prospect statuses the engine sets (IN_PROGRESS once it has acted, FINISHED or BOUNCED when
 * the sequence ends). A prospect that has left the campaign meanwhile is `gone`; one whose status
 * moved past the engine's (a reply) is left as it is.
 */
export function createProspectProgress(deps: LeadWriterDeps): ProspectProgress {
  const writeStatus = createStatusWriter(deps);
  const replaces = (current: string) => ENGINE_STATUSES.has(current);
  return {
    start: async (action) =>
      (await writeStatus({ workspaceId: action.workspaceId, prospectId: action.prospectId, campaignId: action.campaignId, status: 'IN_PROGRESS', replaces }))
        .result === 'gone'
        ? 'gone'
        : 'applied',
    finish: async (action, status, lastError) =>
      (await writeStatus({ workspaceId: action.workspaceId, prospectId: action.prospectId, campaignId: action.campaignId, status, replaces, lastError }))
        .result === 'gone'
        ? 'gone'
        : 'applied',
  };
}
