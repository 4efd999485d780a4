import { describe, expect, it } from 'vitest';
import { emptyFlow, resolveNode } from '../../../../shared/domain/campaigns/flow';
import { INVITE_NEEDED, removeNode, retypeNode, rewireStep, type StepRewiring } from '../../../../shared/domain/campaigns/flow-edit';
import { condition, edited, failure, flowOf, step } from '../../../support/flows';
import { withStep, withCondition, rewired, without, invalid, conflicting, missing, SAMPLE, inviteSample, withoutKey } from './flow-edit-helpers';

describe('rewireStep', () => {
  it('moves a step with its subtree under a step with a free child slot', () => {
    expect(rewired(SAMPLE, 4, { parentStepId: 6 }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      3: condition('HAS_EMAIL', 2, null, 6),
      4: step('EMAIL', 6, 5),
      6: step('EMAIL', 3, 4, 'NO'),
    });
  });

  it('inserts a childless step into a taken slot, the former child following it', () => {
    expect(rewired(SAMPLE, 6, { parentStepId: 4 }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      3: condition('HAS_EMAIL', 2, 4, null),
      4: step('EMAIL', 3, 6, 'YES'),
      5: step('EMAIL', 6, null),
      6: step('EMAIL', 4, 5),
    });
  });

  it('answers 409 when a step with a child is moved into a taken slot', () => {
    expect(failure(() => rewireStep(SAMPLE, 4, { parentStepId: 1 }))).toEqual(conflicting('parent_step_id: step 1 already has a child'));
    const flow = withStep(SAMPLE, 7, 'EMAIL', { parentStepId: 6 });
    expect(failure(() => rewireStep(flow, 6, { parentConditionId: 3, branch: 'YES' }))).toEqual(
      conflicting('parent_condition_id: condition 3 already has a YES child'),
    );
  });

  it('moves onto a condition’s free branch, YES first, or the one it names', () => {
    const flow = withCondition(SAMPLE, 7, 'HAS_EMAIL', { parentStepId: 5 });
    expect(rewired(flow, 6, { parentConditionId: 7 }).nodes['7']).toStrictEqual(condition('HAS_EMAIL', 5, 6, null));
    expect(rewired(flow, 6, { parentConditionId: 7, branch: 'NO' }).nodes['6']).toStrictEqual(step('EMAIL', 7, null, 'NO'));
    const full = withStep(rewired(flow, 6, { parentConditionId: 7 }), 8, 'EMAIL', { parentConditionId: 7 });
    expect(full.nodes['7']).toStrictEqual(condition('HAS_EMAIL', 5, 6, 8));
    expect(failure(() => rewireStep(full, 1, { parentConditionId: 7 }))).toEqual(conflicting('Condition 7 has no free branch'));
  });

  it('leaves a step where it is when it is moved to the slot it is in', () => {
    expect(rewired(SAMPLE, 4, { parentConditionId: 3 })).toStrictEqual(SAMPLE);
    expect(rewired(SAMPLE, 5, { parentStepId: 4 })).toStrictEqual(SAMPLE);
    expect(rewired(SAMPLE, 6, { parentConditionId: 3, branch: 'NO' })).toStrictEqual(SAMPLE);
  });

  it('moves a step to the other branch of its own condition', () => {
    expect(rewired(SAMPLE, 6, { parentConditionId: 3, branch: 'YES' }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      3: condition('HAS_EMAIL', 2, 6, null),
      4: step('EMAIL', 6, 5),
      6: step('EMAIL', 3, 4, 'YES'),
    });
  });

  it('refuses a parent inside the moved subtree as a cycle', () => {
    expect(failure(() => rewireStep(SAMPLE, 2, { parentStepId: 5 }))).toEqual(invalid('parent_step_id would make a cycle'));
    expect(failure(() => rewireStep(SAMPLE, 4, { parentStepId: 4 }))).toEqual(invalid('parent_step_id would make a cycle'));
    expect(failure(() => rewireStep(SAMPLE, 2, { parentConditionId: 3 }))).toEqual(invalid('parent_condition_id would make a cycle'));
    expect(failure(() => rewireStep(SAMPLE, 1, { parentStepId: 1 }))).toEqual(invalid('parent_step_id would make a cycle'));
  });

  it('moves the root alone: its child step becomes the root', () => {
    expect(rewired(SAMPLE, 1, { parentStepId: 5 })).toStrictEqual(
      flowOf(2, {
        ...SAMPLE.nodes,
        1: step('EMAIL', 5, null),
        2: step('EMAIL', null, 3),
        5: step('EMAIL', 4, 1),
      }),
    );
    // Under its own child: the two swap.
    expect(rewired(SAMPLE, 1, { parentStepId: 2 })).toStrictEqual(
      flowOf(2, { ...SAMPLE.nodes, 1: step('EMAIL', 2, 3), 2: step('EMAIL', null, 1), 3: condition('HAS_EMAIL', 1, 4, 6) }),
    );
  });

  it('moves the root alone: its child condition becomes the root', () => {
    const flow = without(SAMPLE, 2);
    expect(flow.nodes['3']).toStrictEqual(condition('HAS_EMAIL', 1, 4, 6));
    expect(rewired(flow, 1, { parentStepId: 6 })).toStrictEqual(
      flowOf(3, { ...flow.nodes, 1: step('EMAIL', 6, null), 3: condition('HAS_EMAIL', null, 4, 6), 6: step('EMAIL', 3, 1, 'NO') }, { 2: 3 }),
    );
  });

  it('hangs an existing node, with its subtree, as the child of a childless step', () => {
    expect(rewired(SAMPLE, 6, { childStepId: 4 }).nodes).toStrictEqual({
      ...SAMPLE.nodes,
      3: condition('HAS_EMAIL', 2, null, 6),
      4: step('EMAIL', 6, 5),
      6: step('EMAIL', 3, 4, 'NO'),
    });
    const flow = withCondition(SAMPLE, 7, 'HAS_EMAIL', { parentStepId: 5 });
    expect(rewired(flow, 6, { childConditionId: 7 }).nodes).toStrictEqual({
      ...flow.nodes,
      5: step('EMAIL', 4, null),
      6: step('EMAIL', 3, 7, 'NO'),
      7: condition('HAS_EMAIL', 6, null, null),
    });
  });

  it('accepts the child a step already has', () => {
    expect(rewired(SAMPLE, 2, { childConditionId: 3 })).toStrictEqual(SAMPLE);
  });

  it('refuses a child that is taken, above the step, or of the wrong kind', () => {
    expect(failure(() => rewireStep(SAMPLE, 4, { childStepId: 6 }))).toEqual(conflicting('child_step_id: step 4 already has a child'));
    expect(failure(() => rewireStep(SAMPLE, 5, { childStepId: 4 }))).toEqual(invalid('child_step_id would make a cycle'));
    expect(failure(() => rewireStep(SAMPLE, 5, { childStepId: 1 }))).toEqual(invalid('child_step_id would make a cycle'));
    expect(failure(() => rewireStep(SAMPLE, 5, { childStepId: 5 }))).toEqual(invalid('child_step_id would make a cycle'));
    expect(failure(() => rewireStep(SAMPLE, 5, { childConditionId: 3 }))).toEqual(invalid('child_condition_id would make a cycle'));
    expect(failure(() => rewireStep(SAMPLE, 5, { childStepId: 3 }))).toEqual(invalid('child_step_id must be a step'));
    expect(failure(() => rewireStep(SAMPLE, 5, { childConditionId: 6 }))).toEqual(invalid('child_condition_id must be a condition'));
    expect(failure(() => rewireStep(SAMPLE, 5, { childStepId: 99 }))).toEqual(invalid('child_step_id: step 99 not found in this campaign'));
    expect(failure(() => rewireStep(SAMPLE, 5, { childConditionId: 99 }))).toEqual(
      invalid('child_condition_id: condition 99 not found in this campaign'),
    );
  });

  it('applies a new parent, then a new child', () => {
    const flow = withStep(SAMPLE, 7, 'EMAIL', { parentStepId: 6 });
    expect(rewired(flow, 7, { parentStepId: 5, childStepId: 6 })).toStrictEqual(
      flowOf(1, {
        1: step('EMAIL', null, 2),
        2: step('EMAIL', 1, 3),
        3: condition('HAS_EMAIL', 2, 4, null),
        4: step('EMAIL', 3, 5, 'YES'),
        5: step('EMAIL', 4, 7),
        6: step('EMAIL', 7, null),
        7: step('EMAIL', 5, 6),
      }),
    );
    // The child is judged where the parent change left the step.
    expect(failure(() => rewireStep(flow, 7, { parentStepId: 5, childStepId: 4 }))).toEqual(invalid('child_step_id would make a cycle'));
  });

  it.each([
    [{ parentStepId: 1, parentConditionId: 3 }, invalid('parent_step_id and parent_condition_id cannot both be set')],
    [{ childStepId: 1, childConditionId: 3 }, invalid('child_step_id and child_condition_id cannot both be set')],
    [{ parentStepId: 1, branch: 'YES' }, invalid('branch needs parent_condition_id')],
    [{ parentStepId: 99 }, invalid('parent_step_id: step 99 not found in this campaign')],
    [{ parentStepId: 3 }, invalid('parent_step_id must be a step')],
    [{ parentConditionId: 99 }, invalid('parent_condition_id: condition 99 not found in this campaign')],
    [{ parentConditionId: 1 }, invalid('parent_condition_id must be a condition')],
  ] as [StepRewiring, object][])('refuses the fields %o', (rewiring, error) => {
    expect(failure(() => rewireStep(SAMPLE, 5, rewiring))).toEqual(error);
  });

  it('answers 404 for a step the flow does not have', () => {
    expect(failure(() => rewireStep(SAMPLE, 99, { parentStepId: 1 }))).toEqual(missing('Step not found'));
    expect(failure(() => rewireStep(SAMPLE, 3, { parentStepId: 1 }))).toEqual(missing('Step not found'));
  });

  it('refuses a move that leaves an ACCEPTED_INVITE condition without its NETWORK_INVITE step', () => {
    // The root moves alone: the condition would become the root.
    expect(failure(() => rewireStep(inviteSample(), 1, { parentStepId: 4 }))).toEqual(invalid(INVITE_NEEDED));
    // 1 EMAIL -> 10 HAS_EMAIL { YES: 2 NETWORK_INVITE -> 3 ACCEPTED_INVITE { YES: 4 }; NO: 5 }
    let flow = withStep(emptyFlow(), 1, 'EMAIL');
    flow = withCondition(flow, 10, 'HAS_EMAIL');
    flow = withStep(flow, 2, 'NETWORK_INVITE');
    flow = withCondition(flow, 3, 'ACCEPTED_INVITE');
    flow = withStep(flow, 4, 'EMAIL');
    flow = withStep(flow, 5, 'EMAIL', { parentConditionId: 10 });
    expect(failure(() => rewireStep(flow, 5, { childConditionId: 3 }))).toEqual(invalid(INVITE_NEEDED));
    // With its subtree, the invite step takes the condition along.
    expect(rewired(flow, 2, { parentStepId: 5 }).nodes['3']).toStrictEqual(condition('ACCEPTED_INVITE', 2, 4, null));
    // A step moved in above the invite keeps the condition valid.
    expect(rewired(flow, 5, { parentStepId: 2 }).nodes['3']).toStrictEqual(condition('ACCEPTED_INVITE', 5, 4, null));
  });
});

describe('removeNode', () => {
  it('deletes a leaf step: its slot becomes free and its prospects finish', () => {
    expect(without(SAMPLE, 5)).toStrictEqual(flowOf(1, { ...withoutKey(SAMPLE, 5), 4: step('EMAIL', 3, null, 'YES') }, { 5: null }));
    expect(without(SAMPLE, 6, 'STEP')).toStrictEqual(flowOf(1, { ...withoutKey(SAMPLE, 6), 3: condition('HAS_EMAIL', 2, 4, null) }, { 6: null }));
  });

  it('relinks a deleted step’s child to its parent, on the same branch', () => {
    expect(without(SAMPLE, 4)).toStrictEqual(
      flowOf(1, { ...withoutKey(SAMPLE, 4), 3: condition('HAS_EMAIL', 2, 5, 6), 5: step('EMAIL', 3, null, 'YES') }, { 4: 5 }),
    );
    expect(without(SAMPLE, 2)).toStrictEqual(flowOf(1, { ...withoutKey(SAMPLE, 2), 1: step('EMAIL', null, 3), 3: condition('HAS_EMAIL', 1, 4, 6) }, { 2: 3 }));
  });

  it('makes the root’s child the root, a condition included', () => {
    const noRoot = without(SAMPLE, 1);
    expect(noRoot).toStrictEqual(flowOf(2, { ...withoutKey(SAMPLE, 1), 2: step('EMAIL', null, 3) }, { 1: 2 }));
    expect(without(noRoot, 2)).toStrictEqual(
      flowOf(3, { ...withoutKey(SAMPLE, 1, 2), 3: condition('HAS_EMAIL', null, 4, 6) }, { 1: 3, 2: 3 }),
    );
  });

  it('empties a flow with its last node', () => {
    expect(without(withStep(emptyFlow(), 1, 'EMAIL'), 1)).toStrictEqual(flowOf(null, {}, { 1: null }));
    expect(without(withCondition(emptyFlow(), 1, 'HAS_EMAIL'), 1, 'CONDITION')).toStrictEqual(flowOf(null, {}, { 1: null }));
  });

  it('points earlier redirects to where the deleted node’s prospects go, so each resolves in one hop', () => {
    let flow = without(SAMPLE, 2);
    flow = without(flow, 1);
    expect(flow.redirects).toStrictEqual({ 1: 3, 2: 3 });
    flow = without(flow, 4);
    flow = without(flow, 5);
    expect(flow.redirects).toStrictEqual({ 1: 3, 2: 3, 4: null, 5: null });
    flow = without(flow, 6);
    flow = without(flow, 3, 'CONDITION');
    expect(flow).toStrictEqual(flowOf(null, {}, { 1: null, 2: null, 3: null, 4: null, 5: null, 6: null }));
    expect(resolveNode(flow, 1)).toBeNull();
  });

  it('deletes a childless condition; one with children is a 409', () => {
    expect(failure(() => removeNode(SAMPLE, 3, 'CONDITION'))).toEqual(conflicting('Condition 3 has children; delete or move them first'));
    const oneChild = without(SAMPLE, 6);
    expect(failure(() => removeNode(oneChild, 3, 'CONDITION'))).toEqual(conflicting('Condition 3 has children; delete or move them first'));
    const bare = without(without(oneChild, 5), 4);
    expect(without(bare, 3, 'CONDITION')).toStrictEqual(
      flowOf(1, { 1: step('EMAIL', null, 2), 2: step('EMAIL', 1, null) }, { 3: null, 4: null, 5: null, 6: null }),
    );
  });

  it('answers 409 for a step whose child condition would land on a condition’s branch', () => {
    const flow = withCondition(SAMPLE, 7, 'HAS_EMAIL', { parentStepId: 6 });
    expect(failure(() => removeNode(flow, 6))).toEqual(conflicting('Step 6 is between conditions 3 and 7, and a condition cannot follow a condition'));
  });

  it('answers 404 for an id the flow does not have, or of the other kind', () => {
    expect(failure(() => removeNode(SAMPLE, 99, 'STEP'))).toEqual(missing('Step not found'));
    expect(failure(() => removeNode(SAMPLE, 3, 'STEP'))).toEqual(missing('Step not found'));
    expect(failure(() => removeNode(SAMPLE, 4, 'CONDITION'))).toEqual(missing('Condition not found'));
    expect(failure(() => removeNode(SAMPLE, 99))).toEqual(missing('Node not found'));
    expect(failure(() => removeNode(without(SAMPLE, 5), 5, 'STEP'))).toEqual(missing('Step not found'));
  });

  it('refuses to delete the only NETWORK_INVITE step before an ACCEPTED_INVITE condition', () => {
    const flow = inviteSample();
    expect(failure(() => removeNode(flow, 1, 'STEP'))).toEqual(
      conflicting('Deleting step 1 would leave ACCEPTED_INVITE condition 2 without a NETWORK_INVITE step before it'),
    );
    const twoInvites = withStep(flow, 5, 'NETWORK_INVITE', { parentStepId: 1 });
    expect(without(twoInvites, 1).nodes['2']).toStrictEqual(condition('ACCEPTED_INVITE', 5, 3, 4));
  });
});

describe('retypeNode', () => {
  it('changes a node’s type within its kind', () => {
    expect(edited((flow) => retypeNode(flow, 4, 'STEP', 'NETWORK_MESSAGE'), SAMPLE).nodes['4']).toStrictEqual(step('NETWORK_MESSAGE', 3, 5, 'YES'));
    expect(edited((flow) => retypeNode(flow, 3, 'CONDITION', 'ALREADY_CONNECTED'), SAMPLE).nodes['3']).toStrictEqual(
      condition('ALREADY_CONNECTED', 2, 4, 6),
    );
  });

  it('refuses a type of the other kind, an unknown node, and a change that breaks ACCEPTED_INVITE', () => {
    expect(failure(() => retypeNode(SAMPLE, 4, 'STEP', 'HAS_EMAIL'))).toEqual(invalid('step_type must be one of EMAIL, NETWORK_INVITE, NETWORK_MESSAGE'));
    expect(failure(() => retypeNode(SAMPLE, 4, 'CONDITION', 'HAS_EMAIL'))).toEqual(missing('Condition not found'));
    expect(failure(() => retypeNode(inviteSample(), 1, 'STEP', 'EMAIL'))).toEqual(invalid(INVITE_NEEDED));
    expect(failure(() => retypeNode(SAMPLE, 3, 'CONDITION', 'ACCEPTED_INVITE'))).toEqual(invalid(INVITE_NEEDED));
  });
});
