import type { Clock } from '../../time/clock';
import type { ProspectStatus } from '../campaigns/campaign';
import type { CampaignRepository } from '../campaigns/ports';
import { completeIfFinished } from '../campaigns/completion';
import type { Prospect } from '../leads/lead';
import { type CampaignEvents, PIPELINE_REF } from './campaign-events';
import type { Cancelled } from './action';
import type { CampaignCompletion } from './ports';
import type { StatusWriter } from './prospect-progress';
import type { SlotReturns } from './slot-returns';

type PipelineKind = 'INTERESTED' | 'NOT_INTERESTED' | 'MEETING_SCHEDULED';

/**
 * Stopping a prospect's sequence because of what the prospect (or a user about them) did: a reply,
 * an unsubscribe, a bounce reported by mail, a pipeline status a user set, a colleague's reply.
 * docs/engine.md, "What stops a sequence".
 *
 * 1. Its pending action in its campaign is deleted first (whatever its version: a send already
 *    claimed still completes, but nothing after it is sent). Deleting first means no send can slip
 *    in after the status changed; if the status write then fails, the caller's retry finds no action
 *    and writes the status: it converges.
 * 2. Its status is written (campaign prospect item and list views with it) when the status it has
 *    may give way to the new one (STOP_PRECEDENCE): a reply never overwrites a pipeline stage a user
 *    set, an unsubscribe overwrites everything but an archived prospect.
 * 3. A campaign whose last unfinished prospect this was becomes COMPLETED.
 */

/** The statuses a stop can set. */
export type StopStatus = Extract<ProspectStatus, 'REPLIED' | 'UNSUBSCRIBED' | 'BOUNCED' | 'FINISHED' | 'INTERESTED' | 'NOT_INTERESTED' | 'MEETING_SCHEDULED'>;

/**
 * Statuses of a prospect a campaign is working on, or has finished with without an answer. A
 * prospect in no campaign (NEW) keeps its status: its messages are conversations, not replies to a campaign.
 */
const UNANSWERED: readonly string[] = ['IN_REVIEW', 'IN_PROGRESS', 'FINISHED'];
const PIPELINE: readonly string[] = ['INTERESTED', 'NOT_INTERESTED', 'MEETING_SCHEDULED'];

/** Which current statuses each stop status replaces; a status not listed is kept (the sequence still stops). */
export const STOP_PRECEDENCE: Readonly<Record<StopStatus, (current: string) => boolean>> = {
  REPLIED: (current) => UNANSWERED.includes(current) || current === 'BOUNCED',
  BOUNCED: (current) => UNANSWERED.includes(current),
  // A colleague's reply ends a sequence that is still running; a prospect with an answer of its own keeps it.
  FINISHED: (current) => current === 'IN_REVIEW' || current === 'IN_PROGRESS',
  UNSUBSCRIBED: (current) => current !== 'ARCHIVED',
  INTERESTED: (current) => current !== 'ARCHIVED',
  NOT_INTERESTED: (current) => current !== 'ARCHIVED',
  MEETING_SCHEDULED: (current) => current !== 'ARCHIVED',
};

export const isPipelineStatus = (status: string): boolean => PIPELINE.includes(status);

export interface StopRequest {
  workspaceId: number;
  prospectId: number;
  status: StopStatus;
  /** Shown as `last_error` on the campaign's prospects page (why it stopped), when the status is written. */
  reason?: string | null;
  /** Only if the prospect is (still) in this campaign. */
  campaignId?: number;
}

export type StopResult =
  | { stopped: false }
  /** `statusWritten`: the status is now `status` (false: the prospect's own status was kept). */
  | { stopped: true; prospect: Prospect; campaignId: number | null; statusWritten: boolean };

export interface SequenceStopDeps {
  /** Deletes a prospect's pending action in a campaign, whatever its state; what it held, undefined when there was none. */
  actions: { cancel(campaignId: number, prospectId: number): Promise<Cancelled | undefined> };
  /**
   * Where a slot the cancelled action had reserved goes back, or its place in line past the cap is
   * handed on (slot-returns.ts: the day can still send its cap).
   */
  slots: SlotReturns;
  leads: { getProspects(ids: number[]): Promise<Prospect[]> };
  writeStatus: StatusWriter;
  campaigns: Pick<CampaignRepository, 'get' | 'setStatus'>;
  completion: CampaignCompletion;
  /** Where a pipeline status a user set is recorded for analytics (once per prospect, campaign and status). */
  events: Pick<CampaignEvents, 'record'>;
  clock: Clock;
}

export function createSequenceStops(deps: SequenceStopDeps) {
  const completeIfDone = (workspaceId: number, campaignId: number): Promise<void> =>
    completeIfFinished({ campaigns: deps.campaigns, prospects: deps.completion, clock: deps.clock }, workspaceId, campaignId);

  return {
    async stop(request: StopRequest): Promise<StopResult> {
      const [prospect] = await deps.leads.getProspects([request.prospectId]);
      if (!prospect || prospect.workspaceId !== request.workspaceId) return { stopped: false };
      const campaignId = prospect.campaignId ?? null;
      if (request.campaignId !== undefined && campaignId !== request.campaignId) return { stopped: false };
      const cancelled = campaignId === null ? undefined : await deps.actions.cancel(campaignId, prospect.id);
      const held = cancelled?.reservation;
      const owner = campaignId === null ? undefined : { workspaceId: request.workspaceId, campaignId };
      if (owner && held) await deps.slots.giveBack(owner, held.day, held.kind, held.k);
      else if (owner && cancelled?.inLine) await deps.slots.passOn([{ owner, ...cancelled.inLine }]);
      const written = await deps.writeStatus({
        workspaceId: request.workspaceId,
        prospectId: request.prospectId,
        status: request.status,
        replaces: STOP_PRECEDENCE[request.status],
        lastError: request.reason ?? null,
        ...(request.campaignId === undefined ? {} : { campaignId: request.campaignId }),
      });
      if (written.result === 'gone') return { stopped: false };
      if (campaignId !== null && written.result === 'applied' && isPipelineStatus(request.status)) {
        await deps.events.record({
          workspaceId: request.workspaceId,
          campaignId,
          prospectId: prospect.id,
          kind: request.status as PipelineKind,
          ref: PIPELINE_REF,
          at: deps.clock.now().toISOString(),
          channel: null,
          accountId: null,
          nodeId: null,
        });
      }
      if (campaignId !== null) await completeIfDone(request.workspaceId, campaignId);
      return { stopped: true, prospect: written.prospect, campaignId, statusWritten: written.result === 'applied' };
    },
  };
}

export type SequenceStops = ReturnType<typeof createSequenceStops>;
