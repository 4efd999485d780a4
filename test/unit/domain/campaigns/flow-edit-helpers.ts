/** What the flow-edit unit tests share: edits that must succeed, the errors' shapes, two sample flows. */
import { emptyFlow, type FlowStructure } from '../../../../shared/domain/campaigns/flow';
import {
  addCondition,
  addStep,
  type ConditionPlacement,
  removeNode,
  type StepPlacement,
  type StepRewiring,
  rewireStep,
} from '../../../../shared/domain/campaigns/flow-edit';
import { condition, edited, flowOf, step } from '../../../support/flows';

export const withStep = (flow: FlowStructure, id: number, type: string, placement?: StepPlacement) =>
  edited((input) => addStep(input, { id, type }, placement), flow);
export const withCondition = (flow: FlowStructure, id: number, type: string, placement?: ConditionPlacement) =>
  edited((input) => addCondition(input, { id, type }, placement), flow);
export const rewired = (flow: FlowStructure, id: number, rewiring: StepRewiring) => edited((input) => rewireStep(input, id, rewiring), flow);
export const without = (flow: FlowStructure, id: number, kind?: 'STEP' | 'CONDITION') => edited((input) => removeNode(input, id, kind), flow);

export const invalid = (message: string) => ({ kind: 'validation', message });
export const conflicting = (message: string) => ({ kind: 'conflict', message });
export const missing = (message: string) => ({ kind: 'not_found', message });

/** 1 EMAIL -> 2 EMAIL -> 3 HAS_EMAIL { YES: 4 EMAIL -> 5 EMAIL; NO: 6 EMAIL }, built by appending. */
export function sample(): FlowStructure {
  let flow = withStep(emptyFlow(), 1, 'EMAIL');
  flow = withStep(flow, 2, 'EMAIL');
  flow = withCondition(flow, 3, 'HAS_EMAIL');
  flow = withStep(flow, 4, 'EMAIL');
  flow = withStep(flow, 5, 'EMAIL');
  return withStep(flow, 6, 'EMAIL', { parentConditionId: 3 });
}
export const SAMPLE = flowOf(1, {
  1: step('EMAIL', null, 2),
  2: step('EMAIL', 1, 3),
  3: condition('HAS_EMAIL', 2, 4, 6),
  4: step('EMAIL', 3, 5, 'YES'),
  5: step('EMAIL', 4, null),
  6: step('EMAIL', 3, null, 'NO'),
});

/** 1 NETWORK_INVITE -> 2 ACCEPTED_INVITE { YES: 3 NETWORK_MESSAGE; NO: 4 EMAIL }. */
export function inviteSample(): FlowStructure {
  let flow = withStep(emptyFlow(), 1, 'NETWORK_INVITE');
  flow = withCondition(flow, 2, 'ACCEPTED_INVITE');
  flow = withStep(flow, 3, 'NETWORK_MESSAGE');
  return withStep(flow, 4, 'EMAIL', { parentConditionId: 2 });
}

export function withoutKey(flow: FlowStructure, ...ids: number[]) {
  const nodes = { ...flow.nodes };
  for (const id of ids) delete nodes[String(id)];
  return Object.fromEntries(Object.entries(nodes).map(([key, link]) => [Number(key), link]));
}
