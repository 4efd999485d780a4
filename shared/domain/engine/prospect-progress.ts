import { type ProspectStatus, SEQUENCE_STATUSES } from '../campaigns/campaign';
import type { Prospect } from '../leads/lead';
import { type LeadWriterDeps, createRounds } from '../leads/lead-rounds';
import { prospectMember } from '../leads/list-query';
import type { LeadChange } from '../leads/ports';
import type { KnownProspect, ProspectProgress } from './ports';

/** The statuses the engine moves a prospect from; any other (a reply, an unsubscribe) is not the engine's to overwrite. */
const ENGINE_STATUSES: ReadonlySet<string> = new Set(SEQUENCE_STATUSES);

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

/** Attempts of a status write whose prospect changed meanwhile (re-read and re-planned each time). */
const MAX_ROUNDS = 3;

/**
 * Writes a prospect's status: the prospect conditional on its version and its campaign prospect
 * item (if it is in a campaign) in one transaction, then its view in each of its lists
 * (LeadRepository.saveViewOnly). A status is neither a sort nor a filter value of a list, so the
 * lists' digests, list items and write journals are not touched. The first attempt writes from
 * the prospect the caller read (`known`, e.g. the sender batch's read) when given; a prospect that
 * changed since fails the version condition and is read again. Still contended after MAX_ROUNDS,
 * it throws (a queue message is retried, a request answers 500 and the caller repeats it). A
 * repeated write that finds the status already set puts the views again where they are older (the
 * first may have been interrupted between the transaction and its views).
 */
export function createStatusWriter(deps: LeadWriterDeps) {
  const { loadCompanies, now } = createRounds(deps);

  return async function writeStatus(input: StatusWrite, known?: KnownProspect): Promise<StatusWritten> {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const hinted = round === 0 && known?.prospect.id === input.prospectId ? known : undefined;
      const lead = hinted ? hinted.prospect : (await deps.leads.getProspects([input.prospectId]))[0];
      if (!lead || lead.workspaceId !== input.workspaceId || (input.campaignId !== undefined && lead.campaignId !== input.campaignId)) {
        // A caller's read may be older than a move into this campaign: only a fresh read says gone.
        if (hinted) continue;
        return { result: 'gone' };
      }
      const company =
        lead.companyId === undefined
          ? undefined
          : hinted?.company?.id === lead.companyId
            ? hinted.company
            : (await loadCompanies(lead.workspaceId, [lead.companyId])).get(lead.companyId);
      if (lead.status === input.status || !input.replaces(lead.status)) {
        if (hinted) continue;
        if (lead.status === input.status) await deps.leads.repairViews(lead, prospectMember(lead, company));
        return { result: lead.status === input.status ? 'applied' : 'kept', prospect: lead };
      }
      const stamp = now();
      const after: Prospect = { ...lead, status: input.status, version: lead.version + 1, updatedAt: stamp };
      const change: LeadChange = {
        before: lead,
        after,
        member: prospectMember(after, company),
        claim: [],
        release: [],
        refreshMembers: true,
        ...(lead.campaignId === undefined
          ? {}
          : { campaign: { progress: { campaignId: lead.campaignId, status: input.status, lastError: input.lastError ?? null, at: stamp } } }),
      };
      if ((await deps.leads.saveViewOnly(change)) === 'applied') return { result: 'applied', prospect: after };
    }
    throw new Error(`Prospect ${input.prospectId} kept changing while its status was written`);
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
    start: async (action, known) =>
      (await writeStatus({ workspaceId: action.workspaceId, prospectId: action.prospectId, campaignId: action.campaignId, status: 'IN_PROGRESS', replaces }, known))
        .result === 'gone'
        ? 'gone'
        : 'applied',
    finish: async (action, status, lastError, known) =>
      (await writeStatus({ workspaceId: action.workspaceId, prospectId: action.prospectId, campaignId: action.campaignId, status, replaces, lastError }, known))
        .result === 'gone'
        ? 'gone'
        : 'applied',
  };
}
