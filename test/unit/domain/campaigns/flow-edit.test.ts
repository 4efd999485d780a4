import { describe, expect, it } from 'vitest';
import { emptyFlow } from '../../../../shared/domain/campaigns/flow';
import { addCondition, addStep, INVITE_NEEDED, type ConditionPlacement, type StepPlacement } from '../../../../shared/domain/campaigns/flow-edit';
import { condition, failure, flowOf, frozen, step } from '../../../support/flows';
import { withStep, withCondition, without, invalid, conflicting, sample, SAMPLE, inviteSample } from './flow-edit-helpers';

describe('addStep', () => {
  it('makes the first step of an empty flow its root', () => {
    expect(withStep(emptyFlow(), 1, 'EMAIL')).toStrictEqual(flowOf(1, { 1: step('EMAIL', null, null) }));
  });

  it('appends along the main path, through each condition’s YES branch', () => {
    expect(sample()).toStrictEqual(SAMPLE);
  });

  it('appends on the YES branch of a condition that ends the main path, even when its NO branch is taken', () => {
    let flow = withStep(emptyFlow(), 1, 'EMAIL');
    flow = withCondition(flow, 2, 'HAS_EMAIL');
    flow = withStep(flow, 3, 'EMAIL', { parentConditionId: 2, branch: 'NO' });
    expect(withStep(flow, 4, 'NETWORK_INVITE')).toStrictEqual(
      flowOf(1, {
        1: step('EMAIL', null, 2),
        2: condition('HAS_EMAIL', 1, 4, 3),
        3: step('EMAIL', 2, null, 'NO'),
        4: step('NETWORK_INVITE', 2, null, 'YES'),
      }),
    );
  });

  it('hangs under a step with a free child slot', () => {
    expect(withStep(SAMPLE, 7, 'EMAIL', { parentStepId: 6 }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      6: step('EMAIL', 3, 7, 'NO'),
      7: step('EMAIL', 6, null),
    });
  });

  it('inserts itself between a step and its child step', () => {
    expect(withStep(SAMPLE, 7, 'EMAIL', { parentStepId: 4 }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      4: step('EMAIL', 3, 7, 'YES'),
      5: step('EMAIL', 7, null),
      7: step('EMAIL', 4, 5),
    });
  });

  it('inserts itself between a step and its child condition', () => {
    expect(withStep(SAMPLE, 7, 'NETWORK_MESSAGE', { parentStepId: 2 }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      2: step('EMAIL', 1, 7),
      3: condition('HAS_EMAIL', 7, 4, 6),
      7: step('NETWORK_MESSAGE', 2, 3),
    });
  });

  it('takes a condition’s free branch, YES first, and answers 409 when both are taken', () => {
    let flow = withStep(emptyFlow(), 1, 'EMAIL');
    flow = withCondition(flow, 2, 'HAS_EMAIL');
    flow = withStep(flow, 3, 'EMAIL', { parentConditionId: 2 });
    expect(flow.nodes['3']).toStrictEqual(step('EMAIL', 2, null, 'YES'));
    flow = withStep(flow, 4, 'EMAIL', { parentConditionId: 2 });
    expect(flow.nodes['4']).toStrictEqual(step('EMAIL', 2, null, 'NO'));
    expect(failure(() => addStep(flow, { id: 5, type: 'EMAIL' }, { parentConditionId: 2 }))).toEqual(conflicting('Condition 2 has no free branch'));
  });

  it('inserts itself on a taken branch it names, the former step becoming its child', () => {
    expect(withStep(SAMPLE, 7, 'EMAIL', { parentConditionId: 3, branch: 'NO' }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      3: condition('HAS_EMAIL', 2, 4, 7),
      6: step('EMAIL', 7, null),
      7: step('EMAIL', 3, 6, 'NO'),
    });
  });

  it.each([
    [{ parentStepId: 1, parentConditionId: 3 }, invalid('parent_step_id and parent_condition_id cannot both be set')],
    [{ parentStepId: 1, branch: 'NO' }, invalid('branch needs parent_condition_id')],
    [{ branch: 'YES' }, invalid('branch needs parent_condition_id')],
    [{ parentStepId: 99 }, invalid('parent_step_id: step 99 not found in this campaign')],
    [{ parentStepId: 3 }, invalid('parent_step_id must be a step')],
    [{ parentConditionId: 99 }, invalid('parent_condition_id: condition 99 not found in this campaign')],
    [{ parentConditionId: 2 }, invalid('parent_condition_id must be a condition')],
  ] as [StepPlacement, object][])('refuses the placement %o', (placement, error) => {
    expect(failure(() => addStep(SAMPLE, { id: 7, type: 'EMAIL' }, placement))).toEqual(error);
  });

  it('treats an id of another campaign’s flow, or a deleted one, as unknown', () => {
    const other = withStep(withStep(emptyFlow(), 50, 'EMAIL'), 51, 'EMAIL');
    expect(failure(() => addStep(SAMPLE, { id: 7, type: 'EMAIL' }, { parentStepId: 51 }))).toEqual(
      invalid('parent_step_id: step 51 not found in this campaign'),
    );
    expect(other.nodes['51']).toBeDefined();
    const deleted = without(SAMPLE, 5);
    expect(failure(() => addStep(deleted, { id: 7, type: 'EMAIL' }, { parentStepId: 5 }))).toEqual(
      invalid('parent_step_id: step 5 not found in this campaign'),
    );
  });

  it('refuses an unknown type and an id the flow has used', () => {
    expect(failure(() => addStep(SAMPLE, { id: 7, type: 'HAS_EMAIL' }))).toEqual(
      invalid('step_type must be one of EMAIL, NETWORK_INVITE, NETWORK_MESSAGE'),
    );
    expect(failure(() => addStep(SAMPLE, { id: 4, type: 'EMAIL' }))).toEqual(conflicting('Node id 4 is already used in this flow'));
    expect(failure(() => addStep(without(SAMPLE, 5), { id: 5, type: 'EMAIL' }))).toEqual(conflicting('Node id 5 is already used in this flow'));
  });

  it('leaves its input as it was', () => {
    const input = frozen(structuredClone(SAMPLE));
    addStep(input, { id: 7, type: 'EMAIL' }, { parentStepId: 4 });
    expect(input).toStrictEqual(SAMPLE);
  });
});

describe('addCondition', () => {
  it('becomes the root of an empty flow, and follows the main path’s last step otherwise', () => {
    expect(withCondition(emptyFlow(), 1, 'HAS_EMAIL')).toStrictEqual(flowOf(1, { 1: condition('HAS_EMAIL', null, null, null) }));
    expect(withCondition(SAMPLE, 7, 'ALREADY_CONNECTED').nodes).toStrictEqual({
      ...SAMPLE.nodes,
      5: step('EMAIL', 4, 7),
      7: condition('ALREADY_CONNECTED', 5, null, null),
    });
  });

  it('answers 409 when the main path ends with a condition and no parent is given', () => {
    const flow = withCondition(withStep(emptyFlow(), 1, 'EMAIL'), 2, 'HAS_EMAIL');
    expect(failure(() => addCondition(flow, { id: 3, type: 'HAS_EMAIL' }))).toEqual(
      conflicting('The main path ends with condition 2, and a condition cannot follow a condition; give parent_step_id'),
    );
  });

  it('takes a step’s child slot, the displaced child step becoming its YES child', () => {
    expect(withCondition(SAMPLE, 7, 'HAS_EMAIL_PREMIUM', { parentStepId: 4 }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      4: step('EMAIL', 3, 7, 'YES'),
      5: step('EMAIL', 7, null, 'YES'),
      7: condition('HAS_EMAIL_PREMIUM', 4, 5, null),
    });
  });

  it('puts the displaced child on NO when no_child_step_id names it, and takes yes_child_step_id then', () => {
    expect(withCondition(SAMPLE, 7, 'HAS_EMAIL', { parentStepId: 4, noChildStepId: 5, yesChildStepId: 6 }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      3: condition('HAS_EMAIL', 2, 4, null),
      4: step('EMAIL', 3, 7, 'YES'),
      5: step('EMAIL', 7, null, 'NO'),
      6: step('EMAIL', 7, null, 'YES'),
      7: condition('HAS_EMAIL', 4, 6, 5),
    });
  });

  it('accepts yes_child_step_id naming the displaced child itself', () => {
    expect(withCondition(SAMPLE, 7, 'HAS_EMAIL', { parentStepId: 4, yesChildStepId: 5 }).nodes['7']).toStrictEqual(
      condition('HAS_EMAIL', 4, 5, null),
    );
  });

  it('refuses yes_child_step_id when the parent’s child takes the YES branch', () => {
    expect(failure(() => addCondition(SAMPLE, { id: 7, type: 'HAS_EMAIL' }, { parentStepId: 4, yesChildStepId: 6 }))).toEqual(
      invalid("yes_child_step_id: step 4's child 5 becomes the YES child"),
    );
  });

  it('answers 409 under a step whose child is a condition', () => {
    expect(failure(() => addCondition(SAMPLE, { id: 7, type: 'HAS_EMAIL' }, { parentStepId: 2 }))).toEqual(
      conflicting('parent_step_id: step 2 is followed by condition 3, and a condition cannot follow a condition'),
    );
  });

  it('moves the steps it names onto its branches with their subtrees, leaving their old slots free', () => {
    expect(withCondition(SAMPLE, 7, 'HAS_EMAIL', { parentStepId: 6, yesChildStepId: 4 }).nodes).toStrictEqual({
      1: step('EMAIL', null, 2),
      2: step('EMAIL', 1, 3),
      3: condition('HAS_EMAIL', 2, null, 6),
      4: step('EMAIL', 7, 5, 'YES'),
      5: step('EMAIL', 4, null),
      6: step('EMAIL', 3, 7, 'NO'),
      7: condition('HAS_EMAIL', 6, 4, null),
    });
  });

  it('moves a step out of the subtree of the other step it names', () => {
    expect(withCondition(SAMPLE, 7, 'HAS_EMAIL', { parentStepId: 6, yesChildStepId: 4, noChildStepId: 5 }).nodes).toStrictEqual({
      1: step('EMAIL', null, 2),
      2: step('EMAIL', 1, 3),
      3: condition('HAS_EMAIL', 2, null, 6),
      4: step('EMAIL', 7, null, 'YES'),
      5: step('EMAIL', 7, null, 'NO'),
      6: step('EMAIL', 3, 7, 'NO'),
      7: condition('HAS_EMAIL', 6, 4, 5),
    });
  });

  it('becomes the root when a branch names the root, the old root hanging there', () => {
    const flow = withStep(withStep(emptyFlow(), 1, 'EMAIL'), 2, 'EMAIL');
    expect(withCondition(flow, 3, 'HAS_EMAIL', { yesChildStepId: 1 })).toStrictEqual(
      flowOf(3, {
        1: step('EMAIL', 3, 2, 'YES'),
        2: step('EMAIL', 1, null),
        3: condition('HAS_EMAIL', null, 1, null),
      }),
    );
    expect(withCondition(flow, 3, 'HAS_EMAIL', { noChildStepId: 1, yesChildStepId: 2 })).toStrictEqual(
      flowOf(3, {
        1: step('EMAIL', 3, null, 'NO'),
        2: step('EMAIL', 3, null, 'YES'),
        3: condition('HAS_EMAIL', null, 2, 1),
      }),
    );
  });

  it.each([
    [{ parentStepId: 4, noChildStepId: 4 }, invalid('no_child_step_id would make a cycle')],
    [{ parentStepId: 5, noChildStepId: 2 }, invalid('no_child_step_id would make a cycle')],
    [{ parentStepId: 6, yesChildStepId: 1 }, invalid('yes_child_step_id would make a cycle')],
    [{ yesChildStepId: 2 }, invalid('yes_child_step_id would make a cycle')],
    // A cycle is named as such, also under a step whose child slot is taken.
    [{ parentStepId: 4, yesChildStepId: 1 }, invalid('yes_child_step_id would make a cycle')],
    [{ parentStepId: 6, yesChildStepId: 4, noChildStepId: 4 }, invalid('yes_child_step_id and no_child_step_id must differ')],
    [{ parentStepId: 6, yesChildStepId: 3 }, invalid('yes_child_step_id must be a step')],
    [{ parentStepId: 6, noChildStepId: 99 }, invalid('no_child_step_id: step 99 not found in this campaign')],
    [{ parentStepId: 3 }, invalid('parent_step_id must be a step')],
    [{ parentStepId: 99 }, invalid('parent_step_id: step 99 not found in this campaign')],
  ] as [ConditionPlacement, object][])('refuses the placement %o', (placement, error) => {
    expect(failure(() => addCondition(SAMPLE, { id: 7, type: 'HAS_EMAIL' }, placement))).toEqual(error);
  });

  it('refuses an unknown type', () => {
    expect(failure(() => addCondition(SAMPLE, { id: 7, type: 'EMAIL' }))).toEqual(
      invalid('condition_type must be one of HAS_EMAIL, HAS_EMAIL_PREMIUM, ACCEPTED_INVITE, ALREADY_CONNECTED'),
    );
  });

  it('places ACCEPTED_INVITE only after a NETWORK_INVITE step', () => {
    expect(inviteSample().nodes['2']).toStrictEqual(condition('ACCEPTED_INVITE', 1, 3, 4));
    expect(failure(() => addCondition(SAMPLE, { id: 7, type: 'ACCEPTED_INVITE' }))).toEqual(invalid(INVITE_NEEDED));
    expect(failure(() => addCondition(emptyFlow(), { id: 1, type: 'ACCEPTED_INVITE' }))).toEqual(invalid(INVITE_NEEDED));
    // As the new root, nothing comes before it.
    expect(failure(() => addCondition(inviteSample(), { id: 7, type: 'ACCEPTED_INVITE' }, { yesChildStepId: 1 }))).toEqual(invalid(INVITE_NEEDED));
    expect(withCondition(inviteSample(), 7, 'ACCEPTED_INVITE', { parentStepId: 4 }).nodes['7']).toStrictEqual(
      condition('ACCEPTED_INVITE', 4, null, null),
    );
  });
});
