import type { Campaign } from './campaign';
import type { ConditionType, StepType } from './flow';

export { CONDITION_TYPES, type ConditionType, STEP_TYPES, type StepType } from './flow';

/**
 * The contents of a flow's nodes: a step's texts and delay, a condition's type and delay. Where a
 * node sits (parent, children) is the campaign's flow structure (flow.ts), not the node's.
 */

export interface CampaignStep {
  kind: 'STEP';
  id: number;
  campaignId: number;
  stepType: StepType;
  subjectLine: string;
  messageTemplate: string;
  subjectLineB: string;
  messageTemplateB: string;
  delayInHours: number;
  addUnsubscribe: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface CampaignCondition {
  kind: 'CONDITION';
  id: number;
  campaignId: number;
  conditionType: ConditionType;
  delayInHours: number;
  createdAt: string;
  updatedAt: string;
}

export type CampaignNode = CampaignStep | CampaignCondition;

/** A campaign read with its whole flow (one Query of its partition). */
export interface CampaignWithFlow {
  campaign: Campaign;
  nodes: Map<number, CampaignNode>;
}
