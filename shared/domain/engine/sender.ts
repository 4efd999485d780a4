
import type { Campaign } from '../campaigns/campaign';
import type { CampaignCondition, CampaignNode, CampaignStep } from '../campaigns/nodes';
import { type Branch, resolveNode } from '../campaigns/flow';
import { normalizeEmail } from '../leads/normalize';
import type { ActionOutcome, ActionRef, OutcomeKind, OutreachAction } from './action';
import { channelOfKind, kindOfStep } from './action';
import { decideCondition } from './conditions';
import { keepAcceptance } from './campaign-events';
import { NO_SENDING_DAY, NO_SENDING_DAY_RETRY_MS, checkCampaignCap, chooseAccount } from './pacing';
import { MAX_ATTEMPTS, RETRY_DELAYS_MINUTES, classifyFailure, isHardBounce, isLostAnswer, namesTheProspect } from './provider-answers';
import { renderStep } from './render';
import { keepInvitation, keepSent } from './sent-messages';
import { type BatchReads, createBatchReads } from './sender-reads';
import { createActionWrites } from './sender-writes';
import type { SlotOwner } from './slot-returns';
import { settleCrash } from './crash-rule';
import { lookForLostSend } from './lost-answer-look';
import { OUTCOME_RETRY_BACKOFF_MS, tryAgainOnFailure } from './answered-writes';
import type { ActionResult, SenderDeps, SettleClaimed } from './sender-deps';

export type { ActionResult, SenderDeps } from './sender-deps';
import { connectedBySkip, performStep, whyNotSendable } from './steps';
import { heldUntil } from './node-timing';
import { nextUtcDay, openSpanFrom } from './window';

/**
 * The sender: carries out one due action of one prospect, exactly once (docs/engine.md).
 * 1. Reads the action; an entry whose due time no longer matches is stale (already handled).
 * 2. Decides without writing what needs no send: campaign not ACTIVE (park), flow ended (finish),
 *    a condition (wait there), window closed (wait for it to open), step impossible for the
 *    prospect (skip, recorded).
 * 3. Takes the campaign's daily position and an account's daily send (atomic counters), then
 *    claims the action with a conditional write: only one delivery of a message gets past here.
 * 4. Calls the provider, records the outcome (append-only, once per stint and node), and moves
 *    the action to its next node (or ends the sequence), conditional on its claim.
 * A crash between claim and result leaves a claim that expires; the next reader settles it by the
 * crash rule (settleCrash): never a blind second send.
 */

/** A claim older than this was left by a crashed sender (a send takes seconds; the consumer times out long before). */
export const CLAIM_TIMEOUT_MS = 10 * 60_000;

export function createSender(deps: SenderDeps) {
  const iso = (date: Date) => date.toISOString();
  const { bump, actions, giveBackSlot, park, wait, finish, advance, passOver, moveTo, completeCampaigns, sequenceEnded } = createActionWrites(deps);

  /** Answers a condition and takes its branch (docs/engine.md, "Conditions"). */
  async function decide(action: OutreachAction, loaded: { campaign: Campaign; nodes: Map<number, CampaignNode> }, condition: CampaignCondition, reads: BatchReads, now: Date) {
    const { campaign, nodes } = loaded;
    const prospect = await reads.prospectNow(action.prospectId);
    if (!prospect || prospect.campaignId !== action.campaignId) {
      await actions.remove(action);
      return 'cancelled';
    }
    const accounts = await reads.accounts(action.workspaceId);
    const decision = await decideCondition(deps.conditions, { condition, action, prospect, campaign, accounts, now });
    let branch: Branch = 'NO';
    if ('waitUntil' in decision) {
      const change = { dueAt: iso(decision.waitUntil), nodeId: condition.id, waitingForDelay: decision.forDelay === true, lastError: decision.reason ?? null };
      return (await wait(action, now, change)) ? 'waiting' : 'raced';
    }
    if ('failure' in decision) {
      const failure = classifyFailure(decision.failure);
      const attempts = action.attempts + 1;
      if (failure.kind === 'account' && decision.account) {
        const pause = { reason: failure.reason, until: failure.quota ? iso(nextUtcDay(now)) : null, at: iso(now) };
        await deps.accounts.pauseSending(decision.account, pause, iso(now));
        // The batch's copy too, as after a send's refusal (settle).
        decision.account.sendingPause = pause;
        return (await wait(action, now, { dueAt: iso(new Date(now.getTime() + 60_000)), nodeId: condition.id, lastError: failure.reason })) ? 'retrying' : 'raced';
      }
      if ((failure.kind === 'transient' || failure.kind === 'account') && attempts < MAX_ATTEMPTS) {
        const retryAt = new Date(now.getTime() + (RETRY_DELAYS_MINUTES[attempts - 1] ?? 180) * 60_000);
        return (await wait(action, now, { dueAt: iso(retryAt), nodeId: condition.id, attempts, lastError: failure.reason })) ? 'retrying' : 'raced';
      }
      // A profile the provider does not know, or a lookup that kept failing: the condition is not met.
    } else branch = decision.branch;
    const link = campaign.flow.nodes[String(condition.id)];
    const next = (branch === 'YES' ? link?.yes : link?.no) ?? null;
    if (next === null) return finish(action, campaign, 'FINISHED', null);
    return (await moveTo(action, campaign, nodes, next, now, {})) ? 'decided' : 'raced';
  }

  function outcomeOf(action: OutreachAction, step: CampaignStep, now: Date, fields: { outcome: OutcomeKind; reason: string | null } & Partial<ActionOutcome>): ActionOutcome {
    return {
      workspaceId: action.workspaceId,
      campaignId: action.campaignId,
      prospectId: action.prospectId,
      stint: action.stint,
      nodeId: step.id,
      stepType: step.stepType,
      accountId: action.claim?.accountId ?? null,
      variant: null,
      at: iso(now),
      ...fields,
    };
  }

  async function giveBack(
    claim: Pick<NonNullable<OutreachAction['claim']>, 'accountId' | 'accountDay' | 'campaignDay' | 'campaignK' | 'kind'>,
    campaignSlot: boolean,
    of: SlotOwner,
    pull = true,
  ): Promise<void> {
    await Promise.all([
      deps.counters.returnAccountSend(claim.accountId, claim.accountDay, claim.kind),
      campaignSlot ? giveBackSlot(of, claim.campaignDay, claim.kind, claim.campaignK, pull) : Promise.resolve(),
    ]);
  }

  /** The outcome record of an answered send, tried again before the delivery fails (answered-writes.ts). */
  const recordAnswered = (outcome: ActionOutcome) => tryAgainOnFailure(() => deps.outcomes.record(outcome), OUTCOME_RETRY_BACKOFF_MS);

  /** Applies what the provider answered to a claimed action. */
  const settle: SettleClaimed = async (claimed, campaign, nodes, step, account, result, now, rendered, known) => {
    const claim = claimed.claim as NonNullable<OutreachAction['claim']>;
    const learned = result.networkProviderId ? { networkProviderId: result.networkProviderId } : {};
    if ('sent' in result) {
      const { found } = result.sent;
      // A send an earlier attempt made (its answer lost) counts as made through its account, with its text.
      const through = found?.through ?? account;
      const kept = rendered && found ? { ...rendered, text: found.text, variant: result.variant } : rendered;
      // Dated when it went out (analytics' day, the conversation's order), not when it was found.
      const sentAt = found?.at ?? iso(now);
      await recordAnswered(
        outcomeOf(claimed, step, now, { outcome: 'SENT', reason: result.sent.note ?? found?.reason ?? null, variant: result.variant, accountId: through.id, at: sentAt, ...result.sent.refs }),
      );
      if (kept && !result.sent.note) {
        await keepSent(deps.sentMessages, { action: claimed, step, account: through, rendered: kept, refs: result.sent.refs, networkProviderId: result.networkProviderId, at: sentAt });
      }
      if (step.stepType === 'NETWORK_INVITE') await keepInvitation(deps.sentMessages, claimed, step, through.id);
      if (found?.accepted) await keepAcceptance(deps.conditions.acceptances, claimed, step.id, through.id, iso(now));
      if (result.sent.refs.trackingId) {
        await deps.outcomes.recordEmail({
          trackingId: result.sent.refs.trackingId,
          workspaceId: claimed.workspaceId,
          campaignId: claimed.campaignId,
          prospectId: claimed.prospectId,
          nodeId: step.id,
          accountId: account.id,
          at: iso(now),
          messageId: null,
          variant: result.variant,
          ...(known?.prospect.email ? { to: normalizeEmail(known.prospect.email) } : {}),
        });
      }
      await advance(claimed, campaign, nodes, step.id, now, { ...learned, accounts: { ...claimed.accounts, [channelOfKind(claim.kind)]: through.id } }, known, new Date(sentAt));
      return 'sent';
    }
    // A look (lost-answer-look.ts) carries the counts of a send that may have gone out: given back only when it was not.
    const lookOnly = claim.lookOnly === true;
    if ('lostNotSent' in result) {
      // Written first: a crash between the two keeps the counts (a day sends one fewer), never gives them back twice.
      const cleared = await wait(claimed, now, { ...learned, dueAt: iso(now), claim: null, answerLost: null });
      // It is due again at once and takes a position again: no wait is pulled for this one.
      if (cleared && claimed.answerLost?.counted) await giveBack(claim, true, claimed, false);
      return cleared ? 'retrying' : 'raced';
    }
    if ('skipped' in result) {
      if (!lookOnly) await giveBack(claim, true, claimed);
      await recordAnswered(outcomeOf(claimed, step, now, { outcome: 'SKIPPED', reason: result.skipped }));
      const connected = connectedBySkip(claim.kind, result.skipped, claimed.accounts, account.id);
      await advance(claimed, campaign, nodes, step.id, now, { ...learned, ...connected }, known);
      return 'skipped';
    }
    const failure = classifyFailure(result.error);
    if (failure.kind === 'already_invited') {
      // An invitation already pending counts as sent (the caps keep it).
      return settle(claimed, campaign, nodes, step, account, { ...result, sent: { refs: {}, note: 'an invitation was already pending' } }, now, undefined, known);
    }
    // A network step whose send got no answer may still have gone out: its counts are kept.
    const lost = failure.kind === 'transient' && 'sendCalled' in result && result.sendCalled === true && isLostAnswer(result.error);
    // A wait past the cap is pulled forward only when the provider named the prospect as the reason
    // (slot-returns.ts): an outage, an account problem or a refusal of our own request would meet the pulled one too.
    if (!lost && !lookOnly) await giveBack(claim, true, claimed, namesTheProspect(result.error));
    if (failure.kind === 'transient') {
      const attempts = claimed.attempts + 1;
      if (attempts >= MAX_ATTEMPTS) {
        const reason = `gave up after ${attempts} attempts: ${failure.reason}`;
        // One that may have gone out is not called failed: at most once, like the crash rule.
        const outcome = lost || claimed.answerLost?.nodeId === step.id ? ({ outcome: 'UNCERTAIN', reason: `${reason} (an attempt got no answer: it may have gone out)` } as const) : ({ outcome: 'FAILED', reason } as const);
        await recordAnswered(outcomeOf(claimed, step, now, outcome));
        return finish(claimed, campaign, 'FINISHED', reason, known);
      }
      const retryAt = new Date(now.getTime() + (RETRY_DELAYS_MINUTES[attempts - 1] ?? 180) * 60_000);
      // The next attempt looks for it (lost-answer-look.ts), through this account, which becomes the
      // prospect's (the conversation is there if it went out); the prospect stays at this step (it
      // may have been contacted: no longer at its entry); its counts stay taken meanwhile.
      const afterLoss = lost
        ? {
            answerLost: {
              nodeId: step.id,
              at: claim.at,
              accountId: account.id,
              text: claim.text ?? '',
              ...(claim.variant ? { variant: claim.variant } : {}),
              counted: { accountDay: claim.accountDay, campaignDay: claim.campaignDay, ...(claim.campaignK === undefined ? {} : { campaignK: claim.campaignK }) },
            },
            accounts: { ...claimed.accounts, NETWORK: account.id },
            atEntry: false,
          }
        : {};
      await wait(claimed, now, { ...learned, dueAt: iso(retryAt), claim: null, attempts, lastError: failure.reason, ...afterLoss });
      return 'retrying';
    }
    if (failure.kind === 'account') {
      const until = failure.quota ? iso(nextUtcDay(now)) : null;
      const pause = { reason: failure.reason, until, at: iso(now) };
      await deps.accounts.pauseSending(account, pause, iso(now));
      // The batch's own copy too (the object its reads hand out): the batch's other actions, sent
      // in parallel, pass this account over from now on instead of meeting the same refusal.
      account.sendingPause = pause;
      // Another account may take it at once (if the prospect has none on this channel yet).
      await wait(claimed, now, { ...learned, dueAt: iso(new Date(now.getTime() + 60_000)), claim: null, lastError: failure.reason });
      return 'retrying';
    }
    if (failure.kind === 'prospect') {
      await recordAnswered(outcomeOf(claimed, step, now, { outcome: 'FAILED', reason: failure.reason }));
      return finish(claimed, campaign, failure.bounce ? 'BOUNCED' : 'FINISHED', failure.reason, known);
    }
    // A step this prospect does not need (already connected) or cannot get (not connected): skipped, on with the flow.
    await recordAnswered(outcomeOf(claimed, step, now, { outcome: 'SKIPPED', reason: failure.reason }));
    const connected = connectedBySkip(claim.kind, failure.reason, claimed.accounts, account.id);
    await advance(claimed, campaign, nodes, step.id, now, { ...learned, ...connected }, known);
    return 'skipped';
  }

  /**
   * The action and the prospect are first read eventually consistently (half the price): what they
   * decide then ends in a write conditional on the action's version (the claim, a wait, a park),
   * which a stale read cannot get past (a prospect moved out of the campaign, stopped or archived
   * loses its action in the same transaction). Any other outcome (stale, claimed, cancelled,
   * skipped, finished, a condition) is decided again from consistent reads (`consistent`) before
   * anything is written. A prospect's fields may be a second old when rendered.
   */
  async function process(ref: ActionRef, reads: BatchReads, consistent = false): Promise<ActionResult> {
    const again = () => process(ref, reads, true);
    const action = ref.first ? await deps.actions.pending(ref.campaignId, ref.prospectId, consistent) : await deps.actions.get(ref.campaignId, ref.prospectId, consistent);
    if (!action || action.dueAt !== ref.dueAt) {
      if (!consistent) return again();
      // A first action no longer pending may be one whose sequence ended just before a crash (its
      // status written, its keys not yet removed): whether its campaign is done is asked again.
      if (ref.first) {
        const loaded = await reads.campaign(ref.workspaceId, ref.campaignId);
        if (loaded) sequenceEnded(loaded.campaign);
      }
      return 'stale';
    }
    const now = deps.clock.now();
    if (action.claim && !consistent) return again();
    if (action.claim) {
      if (now.getTime() - Date.parse(action.claim.at) < CLAIM_TIMEOUT_MS) return 'in_flight';
      return settleCrash({ deps, advance, finish, wait, giveBack, outcomeOf }, action, reads, now);
    }
    if (Date.parse(ref.dueAt) > now.getTime()) return 'stale';
    const loaded = await reads.campaign(action.workspaceId, action.campaignId);
    if (!loaded || loaded.campaign.status === 'ARCHIVED') {
      await actions.remove(action);
      return 'cancelled';
    }
    const { campaign, nodes } = loaded;
    if (campaign.status !== 'ACTIVE') return park(action, 'CAMPAIGN_NOT_ACTIVE', now);
    // A prospect still at its entry starts at the flow's root as it is now (a node put first while
    // it waited comes first); one further on goes by its node (a deleted one resolves to its place).
    const nodeId = action.atEntry ? campaign.flow.root : action.nodeId === null ? null : resolveNode(campaign.flow, action.nodeId);
    const node = nodeId === null ? undefined : nodes.get(nodeId);
    if ((!node || node.kind === 'CONDITION') && !consistent) return again();
    if (!node) return finish(action, campaign, 'FINISHED', null);
    // A step this stay already carried out, put after the prospect's place again by an edit of the
    // flow (moved later while it waited): passed over, never sent twice.
    if (node.kind === 'STEP' && action.done.includes(node.id)) return consistent ? passOver(action, campaign, nodes, node.id, now) : again();
    // The node's delay as it is now: the first node's is first applied here (a first action is due
    // as it is scheduled), and a delay edited while the prospect waited holds it longer.
    const held = heldUntil(action, node, campaign);
    if (held && held.getTime() > now.getTime()) return (await wait(action, now, { dueAt: iso(held), nodeId: node.id, waitingForDelay: true })) ? 'waiting' : 'raced';
    if (node.kind === 'CONDITION') return decide(action, loaded, node, reads, now);
    const span = openSpanFrom(now, campaign.sendingWindow, campaign.timezone);
    // A window without an open day: looked at again hourly, not parked (no sweep would find it when
    // the window is changed back), with the reason on the prospects page.
    if (!span) return (await wait(action, now, { dueAt: iso(new Date(now.getTime() + NO_SENDING_DAY_RETRY_MS)), nodeId: node.id, lastError: NO_SENDING_DAY })) ? 'waiting' : 'raced';
    // Waiting for the window, a reason of pacing (a cap or limit of another day, an account) is no
    // longer why it waits: cleared, and found again when the window opens. A retry's keeps its reason.
    if (span.start.getTime() > now.getTime()) {
      return (await wait(action, now, { dueAt: iso(span.start), nodeId: node.id, ...(action.attempts === 0 ? { lastError: null } : {}) })) ? 'waiting' : 'raced';
    }

    const prospect = consistent ? await reads.prospectNow(action.prospectId) : await reads.prospect(action.prospectId);
    if (!prospect || prospect.campaignId !== action.campaignId) {
      if (!consistent) return again();
      await actions.remove(action);
      return 'cancelled';
    }
    const kind = kindOfStep(node.stepType);
    const skip = async (reason: string): Promise<ActionResult> => {
      await deps.outcomes.record(outcomeOf(action, node, now, { outcome: 'SKIPPED', reason }));
      await advance(action, campaign, nodes, node.id, now, {}, { prospect, company: await reads.company(prospect) });
      return 'skipped';
    };
    // A step the prospect cannot take by its own fields (no valid email, no profile URL) is skipped
    // at once, without a campaign position: it never holds a slot that a sendable prospect could use.
    // Network distance is read from the profile only as the step goes (a read is a visit the provider
    // limits), so that skip gives its position back (docs/engine.md, "What only the provider can tell").
    const unsendable = whyNotSendable(kind, prospect);
    if (unsendable && !consistent) return again();
    if (unsendable) return skip(unsendable);

    // An earlier attempt of this step got no answer: it is looked for first, through the account that
    // sent it, attached to the campaign or not (lost-answer-look.ts). That account deleted, nobody
    // can tell: the step is sent as any step (the counts of the lost attempt stay where they were).
    const loss = action.answerLost?.nodeId === node.id ? action.answerLost : undefined;
    const lossThrough = loss && (await reads.accounts(action.workspaceId)).get(loss.accountId);
    if (loss && lossThrough) {
      return lookForLostSend({ deps, giveBackSlot, bump, wait, settle }, { action, campaign, nodes, node, lost: loss, through: lossThrough, prospect, campaignDay: span.day }, reads, now);
    }
    const cap = await checkCampaignCap(deps.counters, campaign, action, kind, span, now);
    if (!cap.go) {
      const held = await wait(action, now, { dueAt: cap.dueAt, nodeId: node.id, reservation: cap.reserve ?? null, lastError: cap.reason ?? null, pastCap: cap.pastCap ?? null });
      if (!held && cap.reserve && action.reservation?.k !== cap.reserve.k) await giveBackSlot(action, span.day, kind, cap.reserve.k);
      return held ? 'waiting' : 'raced';
    }
    // The suppression list when the email is about to go, not each time it waits for its slot or
    // day (in a burst most actions wait once); a suppressed address gives its position back.
    // A position taken now is given back here; a reserved one by the write that drops it (`actions`).
    if (kind === 'EMAIL' && (await deps.suppressions.check(action.workspaceId, prospect.email as string))) {
      // Read again consistently first (`again`): that pass takes the position back and pulls then, once.
      if (cap.fresh) await giveBackSlot(action, span.day, kind, cap.k, consistent);
      if (!consistent) return again();
      return skip('suppressed');
    }
    const accounts = await reads.accounts(action.workspaceId);
    const choice = await chooseAccount(deps.counters, campaign, accounts, action, kind, now);
    if ('wait' in choice) {
      // The campaign's position is given back: the action is sent another day, or through another
      // account later. No wait past the cap is pulled forward for it: it would find the same accounts.
      if (cap.fresh) await giveBackSlot(action, span.day, kind, cap.k, false);
      return (await wait(action, now, { dueAt: choice.wait, nodeId: node.id, lastError: choice.reason }, { pull: false })) ? 'waiting' : 'raced';
    }
    // Everything the send needs is read and rendered before the claim: between the claim and the
    // provider call nothing may fail, since a claim left there is settled by the crash rule, which
    // for an email cannot know it was never sent (UNCERTAIN, docs/engine.md).
    const company = await reads.company(prospect);
    const rendered = renderStep(node, prospect, company);
    const unsubscribeUrl = kind === 'EMAIL' && node.addUnsubscribe ? deps.unsubscribeLinks.urlFor({ workspaceId: action.workspaceId, campaignId: campaign.id, prospectId: prospect.id, email: prospect.email as string }) : undefined;
    const claim = {
      token: deps.newToken(),
      at: iso(now),
      accountId: choice.account.id,
      kind,
      accountDay: choice.day,
      campaignDay: span.day,
      campaignK: cap.k,
      ...(kind === 'EMAIL' ? {} : { text: rendered.text.trim(), variant: rendered.variant }),
    };
    const claimed = bump(action, now, { nodeId: node.id, claim, reservation: null });
    if (!(await deps.actions.replace(action, claimed))) {
      // A reserved position stays with the action as stored: whoever wrote it meanwhile uses or releases it.
      await giveBack(claim, cap.fresh, action);
      return 'raced';
    }
    const result = await performStep(deps.provider, {
      step: node,
      kind,
      account: choice.account,
      prospect,
      rendered,
      ...(unsubscribeUrl ? { unsubscribeUrl } : {}),
    });
    const settled = await settle(claimed, campaign, nodes, node, choice.account, result, now, rendered, { prospect, company });
    // A reservation of another day or kind (not the one sent in: a fresh position was taken) is over.
    const stale = action.reservation;
    if (cap.fresh && stale) await giveBackSlot(action, stale.day, stale.kind, stale.k);
    if ('error' in result && kind === 'EMAIL' && isHardBounce(result.error)) {
      await deps.suppressions.add(action.workspaceId, { emails: [prospect.email as string], reason: 'HARD_BOUNCE', prospectId: prospect.id, campaignId: campaign.id });
    }
    return settled;
  }

  return {
    /**
     * Carries out a batch of due actions, CONCURRENCY at a time; an action that throws is reported,
     * the others go on. Given the function's time left, no action starts with less than
     * `actionReserveMs` of it: those are `deferred` (their message is delivered again).
     */
    async processBatch(refs: ActionRef[], concurrency = 8, timeLeft?: () => number): Promise<(ActionResult | Error)[]> {
      const reads = createBatchReads(deps, refs);
      const results = new Array<ActionResult | Error>(refs.length);
      const reserve = deps.actionReserveMs ?? 0;
      let next = 0;
      const worker = async () => {
        while (next < refs.length) {
          const index = next;
          next += 1;
          if (timeLeft && timeLeft() < reserve) {
            results[index] = 'deferred';
            continue;
          }
          try {
            results[index] = await process(refs[index] as ActionRef, reads);
          } catch (error) {
            results[index] = error instanceof Error ? error : new Error(String(error));
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, refs.length) }, worker));
      await completeCampaigns(reads);
      return results;
    },
  };
}

export type Sender = ReturnType<typeof createSender>;
