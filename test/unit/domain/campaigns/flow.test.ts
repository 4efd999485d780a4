import { describe, expect, it } from 'vitest';
import {
  ancestorsOf,
  channelsOf,
  checkFlow,
  conditionWiring,
  emptyFlow,
  type FlowLink,
  type FlowStructure,
  flowProblems,
  mainPath,
  orderedNodes,
  pathHasInvite,
  resolveNode,
  stepWiring,
} from '../../../../shared/domain/campaigns/flow';
import { DomainError } from '../../../../shared/domain/errors';
import { condition, failure, flowOf, step } from '../../../support/flows';

/**
 * 1 NETWORK_INVITE -> 2 ACCEPTED_INVITE
 *   YES: 3 NETWORK_MESSAGE -> 4 HAS_EMAIL { YES: 5 EMAIL; NO: 6 EMAIL -> 7 EMAIL }
 *   NO:  8 NETWORK_MESSAGE -> 9 ALREADY_CONNECTED { YES: 10 NETWORK_MESSAGE; NO: 11 NETWORK_MESSAGE }
 */
const NESTED = flowOf(
  1,
  {
    1: step('NETWORK_INVITE', null, 2),
    2: condition('ACCEPTED_INVITE', 1, 3, 8),
    3: step('NETWORK_MESSAGE', 2, 4, 'YES'),
    4: condition('HAS_EMAIL', 3, 5, 6),
    5: step('EMAIL', 4, null, 'YES'),
    6: step('EMAIL', 4, 7, 'NO'),
    7: step('EMAIL', 6, null),
    8: step('NETWORK_MESSAGE', 2, 9, 'NO'),
    9: condition('ALREADY_CONNECTED', 8, 10, 11),
    10: step('NETWORK_MESSAGE', 9, null, 'YES'),
    11: step('NETWORK_MESSAGE', 9, null, 'NO'),
  },
  { 12: 5, 13: null },
);

/** 1 EMAIL -> 2 HAS_EMAIL { YES: 3 EMAIL } */
const SMALL = flowOf(1, { 1: step('EMAIL', null, 2), 2: condition('HAS_EMAIL', 1, 3, null), 3: step('EMAIL', 2, null, 'YES') });
const changed = (nodes: Record<number, FlowLink>, change: Partial<FlowStructure> = {}): FlowStructure => ({
  ...flowOf(1, { ...SMALL.nodes, ...nodes }),
  ...change,
});

describe('flow queries', () => {
  it('orders the main path first, then each condition’s NO subtree in path order, each kept together', () => {
    expect(flowProblems(NESTED)).toEqual([]);
    expect(mainPath(NESTED)).toEqual([1, 2, 3, 4, 5]);
    expect(orderedNodes(NESTED)).toEqual([1, 2, 3, 4, 5, 8, 9, 10, 11, 6, 7]);
    expect(mainPath(emptyFlow())).toEqual([]);
    expect(orderedNodes(emptyFlow())).toEqual([]);
  });

  it('lists ancestors nearest first and finds a NETWORK_INVITE step before a node', () => {
    expect(ancestorsOf(NESTED, 11)).toEqual([9, 8, 2, 1]);
    expect(ancestorsOf(NESTED, 1)).toEqual([]);
    expect(pathHasInvite(NESTED, 7)).toBe(true);
    expect(pathHasInvite(NESTED, 1)).toBe(false);
    expect(pathHasInvite(SMALL, 3)).toBe(false);
    expect(pathHasInvite(NESTED, 99)).toBe(false);
  });

  it('names the channels the steps use', () => {
    expect([...channelsOf(NESTED)].sort()).toEqual(['EMAIL', 'NETWORK']);
    expect([...channelsOf(SMALL)]).toEqual(['EMAIL']);
    expect([...channelsOf(flowOf(1, { 1: step('NETWORK_MESSAGE', null, null) }))]).toEqual(['NETWORK']);
    expect([...channelsOf(flowOf(1, { 1: condition('HAS_EMAIL', null, null, null) }))]).toEqual([]);
  });

  it('resolves a node to itself while it lives, through its redirect once deleted, and to null when finished or unknown', () => {
    expect(resolveNode(NESTED, 6)).toBe(6);
    expect(resolveNode(NESTED, 12)).toBe(5);
    expect(resolveNode(NESTED, 13)).toBeNull();
    expect(resolveNode(NESTED, 99)).toBeNull();
    // An old item whose redirects were never flattened still resolves.
    expect(resolveNode({ ...NESTED, redirects: { 20: 21, 21: 22, 22: 3 } }, 20)).toBe(3);
  });

  it('shows a step’s and a condition’s wiring as the API does', () => {
    expect(stepWiring(NESTED, 1)).toEqual({ parent_step_id: null, parent_condition_id: null, branch: null, child_step_id: null, child_condition_id: 2 });
    expect(stepWiring(NESTED, 3)).toEqual({ parent_step_id: null, parent_condition_id: 2, branch: 'YES', child_step_id: null, child_condition_id: 4 });
    expect(stepWiring(NESTED, 6)).toEqual({ parent_step_id: null, parent_condition_id: 4, branch: 'NO', child_step_id: 7, child_condition_id: null });
    expect(stepWiring(NESTED, 7)).toEqual({ parent_step_id: 6, parent_condition_id: null, branch: null, child_step_id: null, child_condition_id: null });
    expect(conditionWiring(NESTED, 9)).toEqual({ parent_step_id: 8, yes_child_step_id: 10, no_child_step_id: 11 });
    expect(conditionWiring(SMALL, 2)).toEqual({ parent_step_id: 1, yes_child_step_id: 3, no_child_step_id: null });
    expect(failure(() => stepWiring(NESTED, 2))).toEqual({ kind: 'not_found', message: 'Step not found' });
    expect(failure(() => stepWiring(NESTED, 12))).toEqual({ kind: 'not_found', message: 'Step not found' });
    expect(failure(() => conditionWiring(NESTED, 1))).toEqual({ kind: 'not_found', message: 'Condition not found' });
  });
});

describe('flowProblems', () => {
  it('finds nothing wrong with an empty flow, or with one whose deleted nodes redirect', () => {
    expect(flowProblems(emptyFlow())).toEqual([]);
    expect(flowProblems(flowOf(null, {}, { 1: null }))).toEqual([]);
    expect(flowProblems({ ...SMALL, redirects: { 4: 3, 5: null } })).toEqual([]);
  });

  it.each<[string, FlowStructure, string[]]>([
    ['an orphan', changed({ 4: step('EMAIL', null, null) }), ['node 4 has no parent but is not the root']],
    ['a child its parent does not name', changed({ 4: step('EMAIL', 3, null) }), ['step 3 does not have node 4 as its child']],
    ['two nodes in one slot', changed({ 4: step('EMAIL', 2, null, 'YES') }), ['condition 2 does not have step 4 on its YES branch']],
    [
      'a cycle apart from the root',
      changed({ 4: step('EMAIL', 5, 5), 5: step('EMAIL', 4, 4) }),
      ['node 4 is not reachable from the root', 'node 5 is not reachable from the root'],
    ],
    [
      'a cycle through the root',
      changed({ 1: step('EMAIL', 3, 2), 3: step('EMAIL', 2, 1, 'YES') }),
      ['root 1 has a parent'],
    ],
    [
      'a condition under a condition',
      changed({ 3: { kind: 'CONDITION', type: 'HAS_EMAIL', parent: 2, branch: 'YES', yes: null, no: null } }),
      ["condition 2's YES child 3 is not a step", 'condition 3 hangs under condition 2'],
    ],
    ['a step with branches', changed({ 3: { ...step('EMAIL', 2, null, 'YES'), no: 1 } }), ['step 3 has branches']],
    ['a condition with a step’s child', changed({ 2: { ...condition('HAS_EMAIL', 1, 3, null), child: 3 } }), ["condition 2 has a step's child"]],
    ['an unknown type', changed({ 3: step('SMS', 2, null, 'YES') }), ['step 3 has unknown type SMS']],
    ['a type of the other kind', changed({ 2: condition('EMAIL', 1, 3, null) }), ['condition 2 has unknown type EMAIL']],
    [
      'an unknown kind',
      changed({ 3: { ...step('EMAIL', 2, null, 'YES'), kind: 'WAIT' as 'STEP' } }),
      ["condition 2's YES child 3 is not a step", 'node 3 has unknown kind WAIT'],
    ],
    ['a key that is no id', { ...SMALL, nodes: { ...SMALL.nodes, '03': step('EMAIL', 2, null, 'YES') } }, ['node key 03 is not an integer id']],
    [
      'a branch its condition does not agree with',
      changed({ 3: step('EMAIL', 2, null, 'NO') }),
      ["condition 2's YES child 3 does not name it back", 'condition 2 does not have step 3 on its NO branch'],
    ],
    [
      'a node with a branch under a step',
      changed({ 2: { ...condition('HAS_EMAIL', 1, 3, null), branch: 'YES' } }),
      ["step 1's child 2 does not name it back", 'node 2 has a branch under step 1'],
    ],
    [
      'a step on a condition without a branch',
      changed({ 3: step('EMAIL', 2, null) }),
      ["condition 2's YES child 3 does not name it back", 'step 3 has no branch under condition 2'],
    ],
    ['a child not in the flow', changed({ 3: step('EMAIL', 2, 9, 'YES') }), ["step 3's child 9 is not in the flow"]],
    [
      'a parent not in the flow',
      changed({ 3: step('EMAIL', 9, null, 'YES') }),
      ["condition 2's YES child 3 does not name it back", 'node 3 has parent 9, which is not in the flow'],
    ],
    ['nodes without a root', { ...SMALL, root: null }, ['node 1 has no parent but is not the root', 'the flow has nodes but no root']],
    ['a root not in the flow', { ...SMALL, root: 9 }, ['node 1 has no parent but is not the root', 'root 9 is not in the flow']],
    ['a redirect of a live node', { ...SMALL, redirects: { 3: null } }, ['redirect 3 names a live node']],
    ['a redirect to a deleted node', { ...SMALL, redirects: { 4: 5, 5: null } }, ['redirect 4 leads to 5, which is not a live node']],
    [
      'an ACCEPTED_INVITE condition without a NETWORK_INVITE step before it',
      changed({ 2: condition('ACCEPTED_INVITE', 1, 3, null) }),
      ['ACCEPTED_INVITE condition 2 has no NETWORK_INVITE step before it'],
    ],
  ])('finds %s', (_, flow, problems) => {
    expect(flowProblems(flow)).toEqual(problems);
  });

  it('makes checkFlow throw a plain Error (a 500), not a DomainError', () => {
    expect(() => checkFlow(SMALL)).not.toThrow();
    const broken = changed({ 4: step('EMAIL', null, null) });
    expect(() => checkFlow(broken)).toThrow(new Error('Invalid flow: node 4 has no parent but is not the root'));
    let thrown: unknown;
    try {
      checkFlow(broken);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).not.toBeInstanceOf(DomainError);
  });
});
