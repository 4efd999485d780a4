import { validationError } from '../errors';
import type { CampaignDetail } from './campaign-service';
import { type Branch, type ConditionWiring, type FlowStructure, type StepWiring, stepWiring } from './flow';
import type { StepRewiring } from './flow-edit';
import type { CampaignNode, ConditionType, StepType } from './nodes';

/** What the flow service takes (the routes' bodies, in domain names) and answers. */

/** The texts and settings of a step, in domain names. */
export interface StepTexts {
  subjectLine?: string;
  messageTemplate?: string;
  subjectLineB?: string;
  messageTemplateB?: string;
  delayInHours?: number;
  addUnsubscribe?: boolean;
}
export interface NewStep extends StepTexts {
  stepType: StepType;
  parentStepId?: number;
  parentConditionId?: number;
  branch?: Branch;
}
/** A step's PATCH: absent fields stay as they are. */
export interface StepPatch extends StepTexts {
  /** Only the step's own type is accepted (a client sending the step back). */
  stepType?: StepType;
  /** null: none, as a step without that link reads (withoutNoneLinks). */
  parentStepId?: number | null;
  parentConditionId?: number | null;
  branch?: Branch | null;
  childStepId?: number | null;
  childConditionId?: number | null;
}

/**
 * The links a PATCH names as none (null), as a step reads that has no such link, so that a step
 * can be sent back as it was read: null is accepted where the step has no such link, or where the
 * PATCH names the other kind of parent (or child) in its place, and then asks for nothing; a null
 * branch asks for nothing (the free branch, as on creation, or the step's own when the PATCH names
 * the condition it is under). A null where the step has that link would unlink it: 400.
 */
export function withoutNoneLinks(flow: FlowStructure, stepId: number, patch: StepPatch): StepRewiring {
  const current = stepWiring(flow, stepId);
  const kept = (field: keyof StepWiring, value: number | null | undefined, other: number | null | undefined): number | undefined => {
    if (value !== null) return value;
    if (current[field] !== null && (other === null || other === undefined)) {
      throw validationError(`${field} cannot be null: the step has one; move the step by naming its new parent, or delete it`);
    }
    return undefined;
  };
  // Naming the condition it is under without a branch keeps its branch (not the free one).
  const sameCondition = patch.parentConditionId !== undefined && patch.parentConditionId === current.parent_condition_id;
  return {
    parentStepId: kept('parent_step_id', patch.parentStepId, patch.parentConditionId),
    parentConditionId: kept('parent_condition_id', patch.parentConditionId, patch.parentStepId),
    branch: patch.branch ?? (sameCondition ? (current.branch ?? undefined) : undefined),
    childStepId: kept('child_step_id', patch.childStepId, patch.childConditionId),
    childConditionId: kept('child_condition_id', patch.childConditionId, patch.childStepId),
  };
}
export interface NewCondition {
  conditionType: ConditionType;
  delayInHours?: number;
  parentStepId?: number;
  yesChildStepId?: number;
  noChildStepId?: number;
}
export interface ConditionPatch {
  conditionType?: ConditionType;
  delayInHours?: number;
  /** The wiring as the client sent it back: each given field must be what the condition has. */
  wiring?: { [field in keyof ConditionWiring]?: number | null };
}

/** A node and the campaign as it is after the change (the detail the API answers with). */
export interface NodeChange<N extends CampaignNode> {
  node: N;
  detail: CampaignDetail;
}
