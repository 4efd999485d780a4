import { notFound, validationError } from '../errors';
import { type LeaseRules, whileHolding } from '../request-leases';
import type { ProspectInput } from '../leads/import-rows';
import { readJsonLeads } from '../leads/import-rows';
import { type Company, type LeadList, PROSPECT_STATUS, type Prospect } from '../leads/lead';
import { LIST_NOT_FOUND } from '../leads/lead-list-service';
import { SKIP_MESSAGES, type TimeLeft, createRounds } from '../leads/lead-rounds';
import { type Campaign, assertWritable } from './campaign';
import type { CampaignProspect, } from './campaign-prospect';
import { CAMPAIGN_NOT_FOUND, requireCampaign } from './lookup';
import {
  type AddToCampaignInput,
  type AddToCampaignResult,
  type CampaignImportResult,
  MAX_MOVES_PER_REQUEST,
  type MovedProspect,
  PEOPLE_ONLY,
  placement,
  type ProspectMoveDeps,
  URL_REQUIRED,
} from './prospect-move-shapes';
import { completeCampaignsLeft } from './completion';
import { type MoveOutcome, createMoveWriter } from './prospect-move-writes';
import { readProspectsPage } from './prospects-page';
import { createChooser } from './prospect-chooser';
import { type Candidate, CompanyCounter, type MoveSkipReason, amountCandidates, campaignRule, idCandidates } from './selection';

/**
 * Moving prospects into and out of campaigns: add-to-campaign from a lead list, the campaign
 * import, a campaign's prospects page and remove-prospects. The prospect is the source of truth
 * (`campaignId`, status IN_REVIEW); its campaign prospect item and both campaigns' counts are
 * written with it, in the transactions of the lead write path (LeadChange.campaign). Decisions:
 * docs/campaigns.md, "Moving prospects into campaigns".
 */

const unique = <T>(values: T[]): T[] => [...new Set(values)];

/** Rounds of choosing and writing one add-to-campaign request makes while chosen prospects turn out not movable. */
const MAX_CHOOSING_ROUNDS = 3;
/** An add's lease on its (campaign, list) pair: a request runs at most 28 s; ~10 s of waiting for the one before. */
const ADD_LEASE: LeaseRules = {
  termMs: 30_000,
  attempts: 45,
  busy: 'Another add-to-campaign from this list into this campaign is still running; send this one again when it has answered',
};

export * from './prospect-move-shapes';

export function createProspectMoves(deps: ProspectMoveDeps) {
  const rounds = createRounds(deps);
  const { now, loadCompanies } = rounds;

  const campaignOf = (workspaceId: number, campaignId: number) => requireCampaign(deps.campaigns, workspaceId, campaignId);
  // The moves are written when completion is asked: a check that fails is asked again on the queue.
  const completion = {
    campaigns: deps.campaigns,
    prospects: deps.campaignProspects,
    clock: deps.clock,
    retryLater: (workspaceId: number, campaignId: number) => deps.scheduling.checkCompletion(workspaceId, campaignId),
  };

  /**
   * Prospects added to a COMPLETED campaign with `activate: true` make it ACTIVE again (it ran
   * before, so it has steps and accounts), and they are scheduled like any added to an ACTIVE one.
   * Like an activation, it also schedules the prospects that were waiting in it (added to it while
   * COMPLETED without `activate`): `afterMoves` sends that sweep once the request's prospects are
   * written. Sent at the reopen (before 2026-11-28), a sweep that ran before they were written found
   * nothing unfinished and completed the campaign again, so their write, conditional on ACTIVE,
   * failed and they were not added (a review). `reopened`: this request's own write reopened it.
   */
  async function reopenIfCompleted(campaign: Campaign, activate: boolean): Promise<{ campaign: Campaign; reopened: boolean }> {
    if (!activate || campaign.status !== 'COMPLETED') return { campaign, reopened: false };
    const at = now();
    if (await deps.campaigns.setStatus(campaign, 'COMPLETED', 'ACTIVE', at)) {
      return { campaign: { ...campaign, status: 'ACTIVE', updatedAt: at, activatedAt: at }, reopened: true };
    }
    // Changed meanwhile: take it as it is now.
    const current = await campaignOf(campaign.workspaceId, campaign.id);
    assertWritable(current);
    return { campaign: current, reopened: false };
  }

  /**
   * What a request that may have reopened the campaign does once its moves are written: one that
   * added nobody asks for completion again (completion.ts, as after a departure: ACTIVE, with
   * prospects, none unfinished), and a reopened campaign's waiting prospects are swept (the
   * sweep's own completion check at its end completes it again if nothing is left to do).
   */
  async function afterMoves(campaign: Campaign, outcomes: MoveOutcome[], reopened: boolean): Promise<void> {
    if (!reopened) return;
    if (!outcomes.some((outcome) => 'moved' in outcome)) await completeCampaignsLeft(completion, campaign.workspaceId, [campaign.id]);
    await deps.scheduling.scheduleWaiting(campaign);
  }

  /** The workspace's archived campaigns, whose prospects add-to-campaign may take without allow_duplicates. */
  async function archivedCampaigns(workspaceId: number): Promise<Set<number>> {
    return new Set((await deps.campaigns.listForWorkspace(workspaceId)).filter((campaign) => campaign.status === 'ARCHIVED').map((campaign) => campaign.id));
  }

  async function writableCampaign(workspaceId: number, campaignId: number): Promise<Campaign> {
    const campaign = await campaignOf(workspaceId, campaignId);
    assertWritable(campaign);
    return campaign;
  }

  const rewrite = createMoveWriter(deps, rounds, writableCampaign);

  /** Moves prospects into the campaign (out of the one they are in), placed by the campaign's status and `activate`. */
  async function moveInto(
    workspaceId: number,
    campaign: Campaign,
    leads: Prospect[],
    activate: boolean,
    check: (lead: Prospect) => MoveSkipReason | undefined,
    known?: Map<number, Company>,
    timeLeft?: TimeLeft,
  ): Promise<{ outcomes: MoveOutcome[]; reopened: boolean }> {
    // A campaign that became COMPLETED while these were written (its last unfinished prospect
    // finished or left) is reopened for them, as a request that finds it COMPLETED reopens it
    // (before 2026-11-28 they were added waiting, with a warning, and never scheduled: a race probe).
    let reopened = false;
    const readAgain = async (id: number, campaignId: number): Promise<Campaign> => {
      const opened = await reopenIfCompleted(await writableCampaign(id, campaignId), activate);
      reopened ||= opened.reopened;
      return opened.campaign;
    };
    const outcomes = await rewrite(workspaceId, campaign, leads, (lead, current, stamp) => {
      const reason = check(lead);
      if (reason) return { skipped: reason };
      const { schedule } = placement(current.status, activate);
      const enter: CampaignProspect = {
        campaignId: current.id,
        prospectId: lead.id,
        workspaceId,
        status: PROSPECT_STATUS.inReview,
        nodeId: current.flow.root,
        schedule,
        nextActionAt: schedule === 'SCHEDULED' ? stamp : null,
        lastError: null,
        companyId: lead.companyId ?? null,
        addedAt: stamp,
        updatedAt: stamp,
      };
      return {
        after: { ...lead, status: PROSPECT_STATUS.inReview, campaignId: current.id, version: lead.version + 1, updatedAt: stamp },
        move: {
          ...(lead.campaignId === undefined ? {} : { leave: lead.campaignId }),
          enter,
          expect: { campaignId: current.id, status: current.status },
        },
        schedule,
      };
    }, known, timeLeft, readAgain);
    await completeLeft(workspaceId, outcomes);
    return { outcomes, reopened };
  }

  /** A campaign prospects left (moved out or removed) may now be complete (completion.ts). */
  function completeLeft(workspaceId: number, outcomes: MoveOutcome[]): Promise<void> {
    const left = outcomes.flatMap((outcome) => ('moved' in outcome && outcome.left !== undefined ? [outcome.left] : []));
    return completeCampaignsLeft(completion, workspaceId, left);
  }

  /** The warning of the moves that asked for activation the campaign could not give (DRAFT, COMPLETED). */
  function warningOf(outcomes: MoveOutcome[], activate: boolean): string | undefined {
    // Only the added ones: when nobody was added, nothing waits to be scheduled.
    const statuses = unique(outcomes.flatMap((outcome) => ('moved' in outcome ? [outcome.status] : [])));
    for (const moved of statuses) {
      const { warning } = placement(moved, activate);
      if (warning) return warning;
    }
    return undefined;
  }

  /** add-to-campaign once its lease is held: the digest read, the choosing and the moves. */
  async function addHolding(workspaceId: number, list: LeadList, found: Campaign, input: AddToCampaignInput, timeLeft?: TimeLeft): Promise<AddToCampaignResult> {
    const [chunks, archived] = await Promise.all([deps.digests.chunks(list.id), input.allowDuplicates ? undefined : archivedCampaigns(workspaceId)]);
    const rules = { campaignId: found.id, allowDuplicates: input.allowDuplicates, perCompany: input.perCompany, ...(archived ? { archived } : {}) };
    const explicit = input.prospectIds !== undefined;
    const skipped: { id: number; reason: MoveSkipReason }[] = [];
    let candidates: Candidate[];
    let counts: Map<number, number>;
    if (input.prospectIds) {
      const named = idCandidates(chunks, unique(input.prospectIds), rules);
      ({ candidates, counts } = named);
      skipped.push(...named.skipped);
    } else {
      ({ candidates, counts } = amountCandidates(chunks, { ...rules, filters: input.filters, sortField: input.sortField, direction: input.direction }));
    }
    const wanted = explicit ? candidates.length : input.amount === 0 ? MAX_MOVES_PER_REQUEST : Math.min(input.amount, MAX_MOVES_PER_REQUEST);
    const check = (lead: Prospect): MoveSkipReason | undefined =>
      !lead.listIds.includes(list.id) || lead.status === PROSPECT_STATUS.archived ? 'not_in_list' : campaignRule(rules, lead.campaignId);

    const counter = new CompanyCounter(input.perCompany, counts);
    const chooser = createChooser(candidates, {
      workspaceId,
      explicit,
      counter,
      check,
      readProspects: (ids) => deps.leads.getProspects(ids),
      loadCompanies,
      skipped,
    });

    // Chosen prospects are moved; one whose write finds it no longer movable (a concurrent request
    // moved it first) is left out and, with `amount`, the next matches are chosen in its place,
    // for a few rounds (a request racing another through the same list does not take its turn
    // for ever). Named prospects are chosen once.
    const moved: MovedProspect[] = [];
    const outcomes: MoveOutcome[] = [];
    let campaign = found;
    let reopened = false;
    let shortAfterRounds = false;
    for (let round = 1; ; round += 1) {
      const chosen = await chooser.choose(wanted - moved.length);
      if (chosen.length === 0) break;
      // A later round starts from the campaign as it is now (a racing request may have changed it).
      if (round > 1) campaign = await writableCampaign(workspaceId, campaign.id);
      // Reopened only when someone is to be added: a request that moves nobody leaves it COMPLETED.
      const opened = await reopenIfCompleted(campaign, input.activate);
      campaign = opened.campaign;
      const { outcomes: written, reopened: reopenedOnWrite } = await moveInto(workspaceId, campaign, chosen, input.activate, check, chooser.companies, timeLeft);
      reopened ||= opened.reopened || reopenedOnWrite;
      outcomes.push(...written);
      written.forEach((outcome, i) => {
        const lead = chosen[i] as Prospect;
        if ('moved' in outcome) {
          moved.push(outcome.moved);
          return;
        }
        // Named ones are all reported; of the chosen matches, those the write could not settle.
        if (explicit || outcome.skipped === 'concurrent_change') skipped.push({ id: lead.id, reason: outcome.skipped });
        // Its company's place is free again, unless it is in this campaign after all.
        if (outcome.skipped !== 'already_in_campaign') counter.release(lead.companyId);
      });
      if (explicit || moved.length >= wanted || chooser.isFull()) break;
      if (round === MAX_CHOOSING_ROUNDS) {
        shortAfterRounds = true;
        break;
      }
    }
    // Named prospects still held back are at their company's limit.
    const left = chooser.left();
    if (explicit) for (const { candidate, reason } of left) skipped.push({ id: candidate.id, reason });
    const stoppedAtLimit = (input.amount === 0 || input.amount > MAX_MOVES_PER_REQUEST) && moved.length >= MAX_MOVES_PER_REQUEST;
    // Rounds that ended short say so only for "every match" (amount 0 or above a request's 1,000),
    // where the same call is what to send again; a smaller amount answers its count.
    const everyMatch = input.amount === 0 || input.amount > MAX_MOVES_PER_REQUEST;
    const endedShort = shortAfterRounds || chooser.isFull();
    const hasMore = !explicit && (stoppedAtLimit || (endedShort && everyMatch)) && left.some(({ candidate }) => counter.allows(candidate.companyId));
    await afterMoves(campaign, outcomes, reopened);
    const warning = warningOf(outcomes, input.activate);
    return { moved, skipped, hasMore, ...(warning ? { warning } : {}) };
  }

  return {
    /**
     * add-to-campaign: picks prospects of the list from its digest (named ones, or `amount` of the
     * matching ones in the requested order), reads only those, checks each again on the prospect
     * itself, and moves them.
     */
    async addFromList(workspaceId: number, listId: number, input: AddToCampaignInput, timeLeft?: TimeLeft): Promise<AddToCampaignResult> {
      // Read together; the answers are judged in the documented order (list, then campaign).
      const [list, found] = await Promise.all([deps.lists.get(workspaceId, listId), deps.campaigns.get(workspaceId, input.campaignId)]);
      if (!list) throw notFound(LIST_NOT_FOUND);
      if (list.searchType !== 'PEOPLE') throw validationError(PEOPLE_ONLY);
      if (!found) throw notFound(CAMPAIGN_NOT_FOUND);
      assertWritable(found);
      // Adds from one list into one campaign take turns: each counts `prospects_per_company` on
      // the campaign as the one before left it (two at once could each take a company's last place).
      // The campaign is read again once the lease is held: the add before may have changed it.
      return whileHolding(deps.leases, deps.clock, `ADD_FROM_LIST#${found.id}#${list.id}`, ADD_LEASE, async () =>
        addHolding(workspaceId, list, await writableCampaign(workspaceId, found.id), input, timeLeft),
      );
    },

    /**
     * The campaign import: rows normalised and matched exactly as a list import's (an existing
     * prospect is updated and moved, never duplicated), then moved into the campaign. Imported
     * prospects join no list.
     */
    async importLeads(
      workspaceId: number,
      campaignId: number,
      input: { leads?: unknown[]; activate: boolean },
      timeLeft?: TimeLeft,
    ): Promise<CampaignImportResult> {
      const found = await writableCampaign(workspaceId, campaignId);
      if (input.leads === undefined) throw validationError('leads is required');
      const rows = readJsonLeads(input.leads, 'PEOPLE');
      const skipped: { index: number; reason: string }[] = [];
      const valid: { row: number; input: ProspectInput }[] = [];
      for (const row of rows) {
        if ('error' in row) {
          // The campaign import needs the profile URL (an email alone does not do).
          skipped.push({ index: row.row, reason: row.error === 'network_profile_url or email is required' ? URL_REQUIRED : row.error });
        } else {
          const input = row.input as ProspectInput;
          // Custom fields as the list import keeps them (a JSON object): a placeholder renders null
          // empty and an object or array as its JSON (engine.md, "Templates").
          if (input.fields.networkProfileUrl) valid.push({ row: row.row, input });
          else skipped.push({ index: row.row, reason: URL_REQUIRED });
        }
      }
      const upserted = await deps.writer.upsertProspects(workspaceId, valid.map((r) => r.input), { overwrite: true, timeLeft });
      const toMove: { row: number; created: boolean; lead: Prospect }[] = [];
      let created = 0;
      let updated = 0;
      upserted.forEach((outcome, i) => {
        const row = (valid[i] as { row: number }).row;
        if (outcome.status === 'duplicate') {
          skipped.push({ index: row, reason: `duplicate of row ${(valid[outcome.of] as { row: number }).row} (same network_profile_url or email)` });
        } else if (outcome.status === 'skipped') {
          skipped.push({ index: row, reason: outcome.reason });
        } else if (outcome.status === 'matched') {
          // Only list imports match rows by fingerprint; a campaign import plans every row.
          skipped.push({ index: row, reason: SKIP_MESSAGES.concurrentChange });
        } else if (outcome.lead.campaignId === found.id) {
          if (outcome.status === 'created') created += 1;
          else updated += 1;
        } else {
          toMove.push({ row, created: outcome.status === 'created', lead: outcome.lead });
        }
      });
      // Reopened only when someone is to be added (as add-to-campaign): a request of invalid rows,
      // or of prospects already in it, leaves it COMPLETED.
      const opened = toMove.length ? await reopenIfCompleted(found, input.activate) : { campaign: found, reopened: false };
      const { campaign } = opened;
      const { outcomes, reopened } = toMove.length
        ? await moveInto(
            workspaceId,
            campaign,
            toMove.map((m) => m.lead),
            input.activate,
            (lead) => (lead.campaignId === campaign.id ? 'already_in_campaign' : undefined),
            undefined,
            timeLeft,
          )
        : { outcomes: [], reopened: false };
      await afterMoves(campaign, outcomes, opened.reopened || reopened);
      outcomes.forEach((outcome, i) => {
        const { row, created: isNew } = toMove[i] as { row: number; created: boolean };
        if ('moved' in outcome || outcome.skipped === 'already_in_campaign') {
          if (isNew) created += 1;
          else updated += 1;
        } else {
          skipped.push({ index: row, reason: SKIP_MESSAGES.concurrentChange });
        }
      });
      skipped.sort((a, b) => a.index - b.index);
      const warning = warningOf(outcomes, input.activate);
      return { count: created + updated, created, updated, skipped, ...(warning ? { warning } : {}) };
    },

    /** A page of the campaign's prospects (archived campaigns included), of one status or all, in id order. */
    prospectsPage: (workspaceId: number, campaignId: number, query: { status?: string; cursor?: string }) =>
      readProspectsPage({ ...deps, loadCompanies }, workspaceId, campaignId, query),

    /**
     * Takes prospects out of the campaign: each becomes NEW outside any campaign, its campaign
     * prospect item (its pending action) deleted and the campaign's count moved with it. It stays
     * in its lead lists. Ids not in the campaign (or of another workspace) are left alone.
     */
    async removeProspects(workspaceId: number, campaignId: number, ids: number[], timeLeft?: TimeLeft): Promise<{ count: number }> {
      const campaign = await writableCampaign(workspaceId, campaignId);
      const leads = (await deps.leads.getProspects(unique(ids))).filter((lead) => lead.workspaceId === workspaceId && lead.campaignId === campaign.id);
      if (leads.length === 0) return { count: 0 };
      const outcomes = await rewrite(workspaceId, campaign, leads, (lead, current, stamp) => {
        if (lead.campaignId !== current.id) return { skipped: 'not_in_list' };
        const { campaignId: _left, ...rest } = lead;
        return {
          after: { ...rest, status: PROSPECT_STATUS.new, version: lead.version + 1, updatedAt: stamp },
          move: { leave: current.id, expect: { campaignId: current.id, status: current.status } },
        };
      }, undefined, timeLeft);
      await completeLeft(workspaceId, outcomes);
      return { count: outcomes.filter((outcome) => 'moved' in outcome).length };
    },
  };
}

export type ProspectMoves = ReturnType<typeof createProspectMoves>;
