import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../time/clock';
import { conflict, notFound, validationError } from '../errors';
import type { IdGenerator } from '../ports';
import type { SenderAccountRepository } from '../sender-accounts/ports';
import { CAMPAIGN_LIMITS, type Campaign, assertStructureEditable, assertWritable } from './campaign';
import type { CampaignDetail } from './campaign-service';
import { type ConditionWiring, conditionWiring, linkOf, orderedNodes } from './flow';
import { type StepContent, checkFlowTextSize, checkStepContent, defaultDelay } from './flow-content';
import { type StepRewiring, addCondition, addStep, removeNode, retypeNode, rewireStep } from './flow-edit';
import { requireCampaignWithFlow } from './lookup';
import type { CampaignCondition, CampaignNode, CampaignStep, CampaignWithFlow } from './nodes';
import type { CampaignRepository, CampaignScheduling, FlowChange } from './ports';
import { type ConditionPatch, type NewCondition, type NewStep, type NodeChange, type StepPatch, type StepTexts, withoutNoneLinks } from './flow-inputs';

/**
 * The steps and conditions of a campaign's flow (docs/campaigns.md, "The flow"). The structure
 * (where each node hangs) is the campaign's `flow`, changed by the pure edits of flow-edit.ts and
 * written with `saveFlow`, conditional on the flow version read and on the campaign being DRAFT
 * or PAUSED; a lost race re-reads and tries again. A node's contents (texts, delay) are its own
 * item, written with `saveNode`, conditional on the node being as read; they may change in any
 * status but ARCHIVED and apply to the sends not yet made.
 */

export interface FlowServiceDeps {
  campaigns: CampaignRepository;
  /** The sender accounts a campaign detail shows. */
  accounts: Pick<SenderAccountRepository, 'listForWorkspace'>;
  ids: IdGenerator;
  clock: Clock;
  /** Gives prospects already waiting on a node the due time its edited delay gives them. */
  scheduling: Pick<CampaignScheduling, 'retimeNode'>;
}

export type { ConditionPatch, NewCondition, NewStep, NodeChange, StepPatch, StepTexts } from './flow-inputs';

/** Writes lost to concurrent changes of the same campaign (its flow, its status, the node) before answering 409. */
const FLOW_ATTEMPTS = 5;
const STEP_TYPE_FIXED = 'step_type cannot be changed; delete the step and add a new one';

/** The content fields as checkStepContent reads them. */
const contentOf = (step: CampaignStep): StepContent => ({
  subject_line: step.subjectLine,
  message_template: step.messageTemplate,
  subject_line_b: step.subjectLineB,
  message_template_b: step.messageTemplateB,
  add_unsubscribe: step.addUnsubscribe,
  delay_in_hours: step.delayInHours,
});

/** The flow's steps for checkFlowTextSize: as they are, or with `changed` in place (or added) and `root` first. */
function stepsWith(found: CampaignWithFlow, changed?: CampaignStep, root: number | null = found.campaign.flow.root) {
  const steps = new Map<number, CampaignStep>();
  for (const node of found.nodes.values()) if (node.kind === 'STEP') steps.set(node.id, node);
  if (changed) steps.set(changed.id, changed);
  return [...steps.values()].map((step) => ({ content: contentOf(step), first: step.id === root }));
}

/** The step with the given texts merged in. */
const withTexts = (step: CampaignStep, texts: StepTexts): CampaignStep => ({
  ...step,
  subjectLine: texts.subjectLine ?? step.subjectLine,
  messageTemplate: texts.messageTemplate ?? step.messageTemplate,
  subjectLineB: texts.subjectLineB ?? step.subjectLineB,
  messageTemplateB: texts.messageTemplateB ?? step.messageTemplateB,
  delayInHours: texts.delayInHours ?? step.delayInHours,
  addUnsubscribe: texts.addUnsubscribe ?? step.addUnsubscribe,
});

/**
 * A node's new `updatedAt`: now, or a millisecond after the one read when the clock has not moved
 * past it. It then strictly increases with every change of the node and serves as its version:
 * a write conditional on the value read never overwrites a change made meanwhile.
 */
const touched = (previous: string, at: string): string => (at > previous ? at : new Date(Date.parse(previous) + 1).toISOString());

const hasWiring = (patch: StepRewiring): boolean =>
  patch.parentStepId !== undefined ||
  patch.parentConditionId !== undefined ||
  patch.branch !== undefined ||
  patch.childStepId !== undefined ||
  patch.childConditionId !== undefined;

/** The campaign and its nodes once a flow change is written. */
function applied(found: CampaignWithFlow, change: FlowChange, at: string): CampaignWithFlow {
  const nodes = new Map(found.nodes);
  for (const node of change.put) nodes.set(node.id, node);
  for (const id of change.delete) nodes.delete(id);
  return { campaign: { ...found.campaign, flow: change.flow, flowVersion: found.campaign.flowVersion + 1, updatedAt: at }, nodes };
}

function stepOf(found: CampaignWithFlow, stepId: number): CampaignStep {
  const node = found.nodes.get(stepId);
  if (node?.kind !== 'STEP' || linkOf(found.campaign.flow, stepId)?.kind !== 'STEP') throw notFound('Step not found');
  return node;
}

function conditionOf(found: CampaignWithFlow, conditionId: number): CampaignCondition {
  const node = found.nodes.get(conditionId);
  if (node?.kind !== 'CONDITION' || linkOf(found.campaign.flow, conditionId)?.kind !== 'CONDITION') throw notFound('Condition not found');
  return node;
}

function assertRoom(campaign: Campaign): void {
  if (Object.keys(campaign.flow.nodes).length >= CAMPAIGN_LIMITS.maxNodes) {
    throw conflict(`A campaign's flow has at most ${CAMPAIGN_LIMITS.maxNodes} steps and conditions; delete one before adding another`);
  }
}

/** What a change writes: the flow's structure (with nodes), one node's contents, or nothing. */
type Plan =
  | { write: 'flow'; change: FlowChange }
  | { write: 'node'; node: CampaignNode; expectedUpdatedAt: string }
  | { write: 'none' };
const NOTHING: Plan = { write: 'none' };

export function createFlowService(deps: FlowServiceDeps) {
  const { campaigns, clock } = deps;
  const now = () => clock.now().toISOString();

  const read = (workspaceId: number, campaignId: number) => requireCampaignWithFlow(campaigns, workspaceId, campaignId);

  async function detailOf(found: CampaignWithFlow): Promise<CampaignDetail> {
    return { ...found, accounts: await deps.accounts.listForWorkspace(found.campaign.workspaceId) };
  }

  /**
   * Reads the campaign, plans a change from what it read (throwing a domain error when the change
   * is not allowed) and writes it with saveFlow, or with saveNode for a content-only change. A
   * write lost to a concurrent change (another flow edit, a status change, a content edit of the
   * same node) re-reads and plans again, so the answer always reflects the state it was judged on.
   */
  async function change(workspaceId: number, campaignId: number, plan: (found: CampaignWithFlow, at: string) => Plan): Promise<CampaignWithFlow> {
    for (let attempt = 0; attempt < FLOW_ATTEMPTS; attempt += 1) {
      const found = await read(workspaceId, campaignId);
      const at = now();
      const planned = plan(found, at);
      if (planned.write === 'none') return found;
      if (planned.write === 'flow') {
        if (await campaigns.saveFlow(found.campaign, planned.change, at)) return applied(found, planned.change, at);
      } else if (await campaigns.saveNode(found.campaign, planned.node, planned.expectedUpdatedAt)) {
        return { campaign: found.campaign, nodes: new Map(found.nodes).set(planned.node.id, planned.node) };
      }
    }
    throw conflict("The campaign's flow is being changed by concurrent requests; please retry");
  }

  /**
   * After a PATCH that names a node's delay: prospects may wait on it (a campaign that ran, with
   * prospects), and the delay applies to the sends not made yet, so their due times are given
   * again. Also when the delay was already the one named: a PATCH retried after the node was saved
   * but the message not sent (a 500) still retimes them; the sweep changes nothing twice.
   */
  async function delayNamed(found: CampaignWithFlow, nodeId: number, delayInHours: number | undefined): Promise<void> {
    if (delayInHours !== undefined) await retimeWaiting(found, nodeId);
  }

  /** Gives the prospects that may wait on a node (a campaign that ran, with prospects) the due time its delay, or its successor's, says. */
  async function retimeWaiting({ campaign }: CampaignWithFlow, nodeId: number): Promise<void> {
    if ((campaign.status === 'ACTIVE' || campaign.status === 'PAUSED') && campaign.prospectCount > 0) await deps.scheduling.retimeNode(campaign, nodeId);
  }

  return {
    /** The campaign's steps in flow order: the main path first, then the branches. */
    async listSteps(workspaceId: number, campaignId: number): Promise<{ campaign: Campaign; steps: CampaignStep[] }> {
      const found = await read(workspaceId, campaignId);
      const steps = orderedNodes(found.campaign.flow).flatMap((id) => {
        const node = found.nodes.get(id);
        return node?.kind === 'STEP' ? [node] : [];
      });
      return { campaign: found.campaign, steps };
    },

    async getStep(workspaceId: number, campaignId: number, stepId: number): Promise<{ campaign: Campaign; step: CampaignStep }> {
      const found = await read(workspaceId, campaignId);
      return { campaign: found.campaign, step: stepOf(found, stepId) };
    },

    async getCondition(workspaceId: number, campaignId: number, conditionId: number): Promise<{ campaign: Campaign; condition: CampaignCondition }> {
      const found = await read(workspaceId, campaignId);
      return { campaign: found.campaign, condition: conditionOf(found, conditionId) };
    },

    /**
     * Adds a step: under `parentStepId`, on a branch of `parentConditionId` (the given one, or the
     * free one, YES first), or after the main path's last node. A taken slot is inserted into.
     * Its delay defaults to 0 for the first step of the flow and 24 hours otherwise.
     */
    async addStep(workspaceId: number, campaignId: number, input: NewStep): Promise<NodeChange<CampaignStep>> {
      const id = await deps.ids.next();
      const after = await change(workspaceId, campaignId, (found, at) => {
        const { campaign } = found;
        assertStructureEditable(campaign);
        assertRoom(campaign);
        const flow = addStep(
          campaign.flow,
          { id, type: input.stepType },
          { parentStepId: input.parentStepId, parentConditionId: input.parentConditionId, branch: input.branch },
        );
        const step = withTexts(
          {
            kind: 'STEP',
            id,
            campaignId,
            stepType: input.stepType,
            subjectLine: '',
            messageTemplate: '',
            subjectLineB: '',
            messageTemplateB: '',
            delayInHours: defaultDelay(flow.root === id),
            addUnsubscribe: false,
            createdAt: at,
            updatedAt: at,
          },
          input,
        );
        checkStepContent(step.stepType, contentOf(step));
        checkFlowTextSize(stepsWith(found), stepsWith(found, step, flow.root));
        return { write: 'flow', change: { flow, put: [step], delete: [] } };
      });
      return { node: stepOf(after, id), detail: await detailOf(after) };
    },

    /**
     * Changes a step's texts, delay, A/B variant and unsubscribe flag (any status but ARCHIVED),
     * and moves it when the wiring fields say so (DRAFT and PAUSED only; a move to where it already
     * is changes nothing). Its type cannot change. Content rules apply to the step as stored.
     */
    async updateStep(workspaceId: number, campaignId: number, stepId: number, patch: StepPatch): Promise<NodeChange<CampaignStep>> {
      const after = await change(workspaceId, campaignId, (found, at) => {
        const step = stepOf(found, stepId);
        const { campaign } = found;
        assertWritable(campaign);
        if (patch.stepType !== undefined && patch.stepType !== step.stepType) throw validationError(STEP_TYPE_FIXED);
        const merged = withTexts(step, patch);
        checkStepContent(merged.stepType, contentOf(merged));
        const contentChanged = !isDeepStrictEqual(merged, step);
        const wiring = withoutNoneLinks(campaign.flow, stepId, patch);
        const flow = hasWiring(wiring) ? rewireStep(campaign.flow, stepId, wiring) : campaign.flow;
        checkFlowTextSize(stepsWith(found), stepsWith(found, merged, flow.root));
        if (!isDeepStrictEqual(flow, campaign.flow)) {
          assertStructureEditable(campaign);
          const moved = { ...merged, updatedAt: touched(step.updatedAt, at) };
          return { write: 'flow', change: { flow, put: [moved], delete: [], expectedUpdatedAt: { [stepId]: step.updatedAt } } };
        }
        if (!contentChanged) return NOTHING;
        return { write: 'node', node: { ...merged, updatedAt: touched(step.updatedAt, at) }, expectedUpdatedAt: step.updatedAt };
      });
      await delayNamed(after, stepId, patch.delayInHours);
      return { node: stepOf(after, stepId), detail: await detailOf(after) };
    },

    /**
     * Deletes a step: its child takes its place (the root's child becomes the root), and prospects
     * waiting on it move on to that child, its delay counted from when they reached the deleted
     * step, or finish when it had none (the flow's redirects).
     */
    async removeStep(workspaceId: number, campaignId: number, stepId: number): Promise<CampaignDetail> {
      const after = await change(workspaceId, campaignId, (found) => {
        stepOf(found, stepId);
        assertStructureEditable(found.campaign);
        return { write: 'flow', change: { flow: removeNode(found.campaign.flow, stepId, 'STEP'), put: [], delete: [stepId] } };
      });
      // Those waiting on it for its delay now wait for the delay of the node in its place (the
      // prospects page shows when), not the deleted one's.
      await retimeWaiting(after, stepId);
      return detailOf(after);
    },

    /**
     * Adds a condition (flow-edit's addCondition has the placement rules). Its delay defaults as
     * a step's: 0 at the root, 24 hours otherwise.
     */
    async addCondition(workspaceId: number, campaignId: number, input: NewCondition): Promise<NodeChange<CampaignCondition>> {
      const id = await deps.ids.next();
      const after = await change(workspaceId, campaignId, ({ campaign }, at) => {
        assertStructureEditable(campaign);
        assertRoom(campaign);
        const flow = addCondition(
          campaign.flow,
          { id, type: input.conditionType },
          { parentStepId: input.parentStepId, yesChildStepId: input.yesChildStepId, noChildStepId: input.noChildStepId },
        );
        const condition: CampaignCondition = {
          kind: 'CONDITION',
          id,
          campaignId,
          conditionType: input.conditionType,
          delayInHours: input.delayInHours ?? defaultDelay(flow.root === id),
          createdAt: at,
          updatedAt: at,
        };
        return { write: 'flow', change: { flow, put: [condition], delete: [] } };
      });
      return { node: conditionOf(after, id), detail: await detailOf(after) };
    },

    /**
     * Changes a condition's delay (any status but ARCHIVED) or its type (a structure change:
     * DRAFT and PAUSED only, and ACCEPTED_INVITE needs a NETWORK_INVITE step before it).
     */
    async updateCondition(workspaceId: number, campaignId: number, conditionId: number, patch: ConditionPatch): Promise<NodeChange<CampaignCondition>> {
      const after = await change(workspaceId, campaignId, (found, at) => {
        const condition = conditionOf(found, conditionId);
        const { campaign } = found;
        assertWritable(campaign);
        const current = conditionWiring(campaign.flow, conditionId);
        for (const [field, value] of Object.entries(patch.wiring ?? {}) as [keyof ConditionWiring, number | null | undefined][]) {
          if (value !== undefined && value !== current[field]) {
            throw validationError(`${field} cannot be changed on a condition: move steps with PATCH .../steps/{step_id}/ (parent_condition_id and branch)`);
          }
        }
        const merged: CampaignCondition = {
          ...condition,
          conditionType: patch.conditionType ?? condition.conditionType,
          delayInHours: patch.delayInHours ?? condition.delayInHours,
        };
        if (merged.conditionType !== condition.conditionType) {
          assertStructureEditable(campaign);
          const flow = retypeNode(campaign.flow, conditionId, 'CONDITION', merged.conditionType);
          return {
            write: 'flow',
            change: {
              flow,
              put: [{ ...merged, updatedAt: touched(condition.updatedAt, at) }],
              delete: [],
              expectedUpdatedAt: { [conditionId]: condition.updatedAt },
            },
          };
        }
        if (merged.delayInHours === condition.delayInHours) return NOTHING;
        return { write: 'node', node: { ...merged, updatedAt: touched(condition.updatedAt, at) }, expectedUpdatedAt: condition.updatedAt };
      });
      await delayNamed(after, conditionId, patch.delayInHours);
      return { node: conditionOf(after, conditionId), detail: await detailOf(after) };
    },

    /** Deletes a condition without children (409 otherwise); prospects waiting on it finish. */
    async removeCondition(workspaceId: number, campaignId: number, conditionId: number): Promise<CampaignDetail> {
      const after = await change(workspaceId, campaignId, (found) => {
        conditionOf(found, conditionId);
        assertStructureEditable(found.campaign);
        return { write: 'flow', change: { flow: removeNode(found.campaign.flow, conditionId, 'CONDITION'), put: [], delete: [conditionId] } };
      });
      // Those waiting on it (it has no steps left to go on to) finish now, not at its deadline.
      await retimeWaiting(after, conditionId);
      return detailOf(after);
    },
  };
}

export type FlowService = ReturnType<typeof createFlowService>;
