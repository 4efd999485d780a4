import type { SequenceStops } from '../engine/sequence-stop';
import { conflict, notFound } from '../errors';
import type { Company, Prospect } from './lead';
import type { LeadRepository } from './ports';

/**
 * One prospect, and the pipeline stage a user gives it (docs/engine.md, "What stops a sequence"):
 * setting INTERESTED, NOT_INTERESTED or MEETING_SCHEDULED stops the prospect's sequence (its
 * pending action is deleted, the status written through the lead write path, the campaign
 * completed if it was its last unfinished prospect).
 */

export const PIPELINE_STATUSES = ['INTERESTED', 'NOT_INTERESTED', 'MEETING_SCHEDULED'] as const;
export type PipelineStatus = (typeof PIPELINE_STATUSES)[number];

export const PROSPECT_ERRORS = {
  notFound: 'Prospect not found',
  archived: 'Prospect is archived: its status cannot be changed',
} as const;

export interface ProspectPipelineDeps {
  leads: Pick<LeadRepository, 'getProspects' | 'getCompanies'>;
  stops: Pick<SequenceStops, 'stop'>;
  /** The prospects that running enrichment jobs of these lists hold (shown as 'Loading…', docs/enrichment.md). */
  enriching?: (workspaceId: number, listIds: readonly number[]) => Promise<Set<number>>;
}

export interface ProspectWithCompany {
  prospect: Prospect;
  /** Its company, when it has one in the workspace. */
  company: Company | undefined;
}

export interface ShownProspect extends ProspectWithCompany {
  /** A running enrichment job holds it: shown as 'Loading…'. */
  enriching: boolean;
}

export function createProspectPipeline(deps: ProspectPipelineDeps) {
  /** The workspace's prospect; another workspace's is as unknown as a missing one. */
  async function owned(workspaceId: number, prospectId: number): Promise<Prospect> {
    const [prospect] = await deps.leads.getProspects([prospectId]);
    if (!prospect || prospect.workspaceId !== workspaceId) throw notFound(PROSPECT_ERRORS.notFound);
    return prospect;
  }

  async function withCompany(prospect: Prospect): Promise<ProspectWithCompany> {
    if (prospect.companyId === undefined) return { prospect, company: undefined };
    const [company] = await deps.leads.getCompanies([prospect.companyId]);
    return { prospect, company: company?.workspaceId === prospect.workspaceId ? company : undefined };
  }

  /** The prospect as the lists show it: with its company, `enriching` when a running job holds it. */
  async function shown(prospect: Prospect): Promise<ShownProspect> {
    // Only jobs of its lists can hold it: nothing to read when it is in no list.
    const [found, held] = await Promise.all([
      withCompany(prospect),
      deps.enriching && prospect.listIds.length > 0 ? deps.enriching(prospect.workspaceId, prospect.listIds) : undefined,
    ]);
    return { ...found, enriching: held?.has(prospect.id) ?? false };
  }

  return {
    async get(workspaceId: number, prospectId: number): Promise<ShownProspect> {
      return shown(await owned(workspaceId, prospectId));
    },

    /**
     * Sets a pipeline stage; an archived prospect keeps ARCHIVED (409). The answer shows it as GET
     * then does: 'Loading…' while an enrichment job holds it, the stage once the job lets go.
     */
    async setStatus(workspaceId: number, prospectId: number, status: PipelineStatus): Promise<ShownProspect> {
      const prospect = await owned(workspaceId, prospectId);
      if (prospect.status === 'ARCHIVED') throw conflict(PROSPECT_ERRORS.archived);
      const stopped = await deps.stops.stop({ workspaceId, prospectId, status, reason: null });
      if (!stopped.stopped) throw notFound(PROSPECT_ERRORS.notFound);
      // Archived meanwhile: the only status a pipeline stage gives way to (STOP_PRECEDENCE).
      if (!stopped.statusWritten) throw conflict(PROSPECT_ERRORS.archived);
      return shown(stopped.prospect);
    },
  };
}

export type ProspectPipeline = ReturnType<typeof createProspectPipeline>;
