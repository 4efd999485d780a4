import { MAX_ANSWER_VIEW_BYTES, resultBytesOf } from '../answer-budget';
import { validationError } from '../errors';
import { type Company, LOADING_STATUS, toProspectView } from '../leads/lead';
import { PROSPECT_STATUSES, type ProspectStatus, SEQUENCE_STATUSES } from './campaign';
import type { CampaignProspect } from './campaign-prospect';
import type { ActionPosition } from './prospect-ports';
import { resolveNode } from './flow';
import { requireCampaign } from './lookup';
import { CAMPAIGN_PROSPECTS_PAGE_SIZE, type ProspectMoveDeps, STATUS_MESSAGE, decodeProspectsCursor, encodeProspectsCursor } from './prospect-move-shapes';

/**
 * Why a prospect added without `activate` to an ACTIVE or COMPLETED campaign has no next action:
 * nothing schedules it until the campaign is activated (again).
 */
export const WAITING_FOR_ACTIVATION = 'not scheduled: added without activate; activate the campaign (or add it with activate: true) to start its sequence';

/**
 * Why a prospect waiting in an ACTIVE campaign that was activated after it was added has no next
 * action yet: the activation's sweep (campaign-scheduling queue) is scheduling it, in a moment.
 */
export const BEING_SCHEDULED = 'being scheduled: the campaign was activated; its next action is set in a moment';

/**
 * How long after an activation a prospect it did not schedule yet is shown as being scheduled: a
 * sweep takes seconds (a page of prospects per message), so one still waiting after this was not
 * reached (its message lost): the page says to activate again.
 */
export const SWEEP_GRACE_MS = 15 * 60_000;

/** What a campaign's prospects page reads: the campaign, its prospect items and actions, the prospects and their companies. */
export type ProspectsPageDeps = Pick<ProspectMoveDeps, 'campaigns' | 'campaignProspects' | 'leads' | 'clock' | 'enriching'> & {
  loadCompanies(workspaceId: number, ids: Iterable<number>): Promise<Map<number, Company>>;
};

/**
 * A page of the campaign's prospects (archived campaigns included), of one status or all, in id
 * order, each with where its sequence stands (docs/campaigns.md, "A campaign's prospects").
 */
export async function readProspectsPage(deps: ProspectsPageDeps, workspaceId: number, campaignId: number, query: { status?: string; cursor?: string }) {
  if (query.status !== undefined && !(PROSPECT_STATUSES as readonly string[]).includes(query.status)) throw validationError(STATUS_MESSAGE);
  const status = query.status as ProspectStatus | undefined;
  const campaign = await requireCampaign(deps.campaigns, workspaceId, campaignId);
  const after = query.cursor === undefined ? undefined : decodeProspectsCursor(query.cursor, campaign.id, status);
  // 'Loading…' is no stored status (a running enrichment job holding the prospect shows it, as the
  // lists do): that filter pages through every prospect and keeps the held ones, and a stored
  // status's filter leaves them out (they show 'Loading…'). Before 2026-11-28 the page never showed
  // it, and its filter was always empty (a probe).
  const loading = status === LOADING_STATUS;
  const page = await deps.campaignProspects.page(campaign.id, {
    ...(status && !loading ? { status } : {}),
    ...(after === undefined ? {} : { after }),
    limit: CAMPAIGN_PROSPECTS_PAGE_SIZE,
  });
  const leads = new Map(
    (page.prospects.length ? await deps.leads.getProspects(page.prospects.map((p) => p.prospectId)) : []).map((lead) => [lead.id, lead]),
  );
  const listIds = [...new Set([...leads.values()].flatMap((lead) => (lead.workspaceId === workspaceId ? lead.listIds : [])))];
  const held = deps.enriching && listIds.length > 0 ? await deps.enriching(workspaceId, listIds) : new Set<number>();
  const companies = await deps.loadCompanies(
    workspaceId,
    [...leads.values()].flatMap((lead) => (lead.companyId === undefined ? [] : [lead.companyId])),
  );
  // Once the engine has written a prospect's action, the action is where its sequence stands.
  const running = (item: CampaignProspect) =>
    SEQUENCE_STATUSES.includes(item.status) && item.schedule === 'SCHEDULED' && !page.firstActionPending.has(item.prospectId);
  const actions = await deps.campaignProspects.actionsOf(
    campaign.id,
    page.prospects.filter(running).map((item) => item.prospectId),
  );
  // An ended sequence shows its campaign prospect's error (why it ended); a running one its action's
  // (a retry's); one added without `activate` to a campaign that runs (or ran) why nothing comes.
  const positionOf = (item: CampaignProspect): ActionPosition => {
    if (!SEQUENCE_STATUSES.includes(item.status)) return { nodeId: null, dueAt: null, lastError: item.lastError };
    // A prospect not started yet (waiting to be scheduled, its first action not taken, or an action
    // still at its entry) starts at the flow's root as it is when the engine takes it: a node put
    // first meanwhile is the one it is at.
    const root = campaign.flow.root;
    if (item.schedule === 'WAITING' && (campaign.status === 'ACTIVE' || campaign.status === 'COMPLETED')) {
      const activatedAt = campaign.status === 'ACTIVE' ? campaign.activatedAt : undefined;
      const sweeping = activatedAt !== undefined && item.addedAt < activatedAt && deps.clock.now().getTime() - Date.parse(activatedAt) < SWEEP_GRACE_MS;
      return { nodeId: root, dueAt: null, lastError: item.lastError ?? (sweeping ? BEING_SCHEDULED : WAITING_FOR_ACTIVATION) };
    }
    const action = actions.get(item.prospectId);
    if (action) return action.atEntry ? { ...action, nodeId: root } : action;
    const notStarted = item.schedule !== 'SCHEDULED' || page.firstActionPending.has(item.prospectId);
    return { nodeId: notStarted ? root : item.nodeId, dueAt: item.nextActionAt, lastError: item.lastError };
  };
  // A page ends early, its cursor after the last prospect shown, before its views pass what one
  // answer may hold (MAX_ANSWER_VIEW_BYTES: Lambda's 6 MB result; large custom fields).
  let answerBytes = 0;
  let shownUpTo: number | undefined;
  const prospects = page.prospects.flatMap((item, index) => {
    if (shownUpTo !== undefined) return [];
    const lead = leads.get(item.prospectId);
    if (!lead || lead.workspaceId !== workspaceId) return [];
    if (status !== undefined && held.has(lead.id) !== loading) return [];
    // An archived campaign runs nothing more: no current step, no next action (its pending actions
    // are cancelled as the engine meets them, so what is left of them would be stale).
    const position = campaign.status === 'ARCHIVED' ? { nodeId: null, dueAt: null, lastError: positionOf(item).lastError } : positionOf(item);
    const view = {
      ...toProspectView(lead, lead.companyId === undefined ? undefined : companies.get(lead.companyId)),
      ...(held.has(lead.id) ? { status: LOADING_STATUS } : {}),
      current_step_id: position.nodeId === null ? null : resolveNode(campaign.flow, position.nodeId),
      next_action_at: position.dueAt,
      last_error: position.lastError,
    };
    answerBytes += resultBytesOf(view);
    if (answerBytes > MAX_ANSWER_VIEW_BYTES && index > 0) {
      shownUpTo = (page.prospects[index - 1] as CampaignProspect).prospectId;
      return [];
    }
    return [view];
  });
  const lastId = shownUpTo ?? page.lastId;
  return { prospects, nextCursor: lastId === undefined ? null : encodeProspectsCursor(campaign.id, status, lastId) };
}
