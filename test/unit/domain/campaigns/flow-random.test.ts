import { describe, expect, it } from 'vitest';
import {
  type Branch,
  CONDITION_TYPES,
  emptyFlow,
  type FlowStructure,
  flowProblems,
  type NodeKind,
  orderedNodes,
  resolveNode,
  STEP_TYPES,
} from '../../../../shared/domain/campaigns/flow';
import { addCondition, addStep, removeNode, retypeNode, rewireStep } from '../../../../shared/domain/campaigns/flow-edit';
import { DomainError } from '../../../../shared/domain/errors';
import { frozen } from '../../../support/flows';

// fast-check is not a dependency: a seeded generator gives the same random sequences on every run.
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => next() < p;
  return { int, pick, chance };
}
type Random = ReturnType<typeof generator>;

const OPERATIONS = ['addStep', 'addCondition', 'rewireStep', 'removeNode', 'retypeNode'] as const;
type Operation = (typeof OPERATIONS)[number];

/** Edits drawn by weight, so that flows grow before they shrink. */
const WEIGHTS: Record<Operation, number> = { addStep: 3, addCondition: 2, rewireStep: 3, removeNode: 1, retypeNode: 1 };
const WEIGHTED = OPERATIONS.flatMap((operation) => Array<Operation>(WEIGHTS[operation]).fill(operation));

/** A random edit: ids mostly from the flow, sometimes deleted, unknown or of the other kind, and now and then fields that clash. */
function randomEdit(random: Random, flow: FlowStructure, nextId: number, used: number[]): [Operation, (flow: FlowStructure) => FlowStructure] {
  const live = Object.keys(flow.nodes).map(Number);
  const ofKind = (kind: NodeKind) => live.filter((id) => flow.nodes[String(id)]!.kind === kind);
  const anyId = (kind?: NodeKind): number => {
    const preferred = kind === undefined ? live : ofKind(kind);
    if (preferred.length > 0 && random.chance(0.8)) return random.pick(preferred);
    if (live.length > 0 && random.chance(0.5)) return random.pick(live);
    return used.length > 0 && random.chance(0.5) ? random.pick(used) : 999;
  };
  const branch = (): Branch | undefined => (random.chance(0.4) ? random.pick(['YES', 'NO'] as const) : undefined);
  const newId = random.chance(0.03) && used.length > 0 ? random.pick(used) : nextId;
  /** A parent: none, a step, a condition (maybe with a branch), or now and then both or a lone branch. */
  const parent = () => {
    const mode = random.int(20);
    if (mode < 6) return {};
    if (mode < 12) return { parentStepId: anyId('STEP') };
    if (mode < 18) return { parentConditionId: anyId('CONDITION'), branch: branch() };
    return mode === 18 ? { parentStepId: anyId(), parentConditionId: anyId() } : { branch: branch() ?? 'YES' };
  };
  const operation = random.pick(WEIGHTED);
  switch (operation) {
    case 'addStep': {
      const type = random.chance(0.02) ? 'SMS' : random.pick(STEP_TYPES);
      const placement = parent();
      return [operation, (input) => addStep(input, { id: newId, type }, placement)];
    }
    case 'addCondition': {
      const type = random.pick(CONDITION_TYPES);
      const placement = {
        parentStepId: random.chance(0.5) ? anyId('STEP') : undefined,
        yesChildStepId: random.chance(0.2) ? anyId('STEP') : undefined,
        noChildStepId: random.chance(0.2) ? anyId('STEP') : undefined,
      };
      return [operation, (input) => addCondition(input, { id: newId, type }, placement)];
    }
    case 'rewireStep': {
      const id = anyId('STEP');
      const mode = random.int(20);
      const child =
        mode < 10
          ? {}
          : mode < 16
            ? { childStepId: anyId('STEP') }
            : mode < 19
              ? { childConditionId: anyId('CONDITION') }
              : { childStepId: anyId(), childConditionId: anyId() };
      const rewiring = { ...(random.chance(0.75) || Object.keys(child).length === 0 ? parent() : {}), ...child };
      return [operation, (input) => rewireStep(input, id, rewiring)];
    }
    case 'removeNode': {
      const id = anyId();
      const actual = flow.nodes[String(id)]?.kind;
      const expected = random.chance(0.8) ? actual : random.pick(['STEP', 'CONDITION', undefined] as const);
      return [operation, (input) => removeNode(input, id, expected)];
    }
    case 'retypeNode': {
      const id = anyId();
      const actual = flow.nodes[String(id)]?.kind ?? 'STEP';
      const expected = random.chance(0.9) ? actual : random.pick(['STEP', 'CONDITION'] as const);
      const type = random.chance(0.9) ? random.pick<string>(expected === 'STEP' ? STEP_TYPES : CONDITION_TYPES) : 'SMS';
      return [operation, (input) => retypeNode(input, id, expected, type)];
    }
  }
}

describe('flow edits in random sequences', () => {
  it('keep every invariant, and fail only with DomainErrors that leave the flow as it was', () => {
    const succeeded = new Map<Operation, number>(OPERATIONS.map((operation) => [operation, 0]));
    const refused = new Map<Operation, number>(OPERATIONS.map((operation) => [operation, 0]));
    let largest = 0;
    for (let seed = 1; seed <= 200; seed += 1) {
      const random = generator(seed);
      // Frozen: an edit that wrote into its input would throw a TypeError, which fails the test.
      let flow = frozen(emptyFlow());
      let nextId = 1;
      const used: number[] = [];
      for (let round = 0; round < 80; round += 1) {
        const [operation, edit] = randomEdit(random, flow, nextId, used);
        let result: FlowStructure;
        try {
          result = edit(flow);
        } catch (error) {
          if (!(error instanceof DomainError)) throw new Error(`seed ${seed}, round ${round}, ${operation}: ${String(error)}`);
          refused.set(operation, refused.get(operation)! + 1);
          continue;
        }
        succeeded.set(operation, succeeded.get(operation)! + 1);
        expect(flowProblems(result), `seed ${seed}, round ${round}, ${operation}`).toEqual([]);
        expect(orderedNodes(result)).toHaveLength(Object.keys(result.nodes).length);
        if (result.nodes[String(nextId)] !== undefined) {
          used.push(nextId);
          nextId += 1;
        }
        // Every id the flow ever had is live or redirects, in one hop, to a live node or to null.
        const lost = used.filter((id) =>
          result.nodes[String(id)]
            ? resolveNode(result, id) !== id
            : !Object.hasOwn(result.redirects, String(id)) || resolveNode(result, id) !== result.redirects[String(id)],
        );
        expect(lost, `seed ${seed}, round ${round}, ${operation}`).toEqual([]);
        largest = Math.max(largest, Object.keys(result.nodes).length);
        flow = frozen(result);
      }
    }
    // The sequences reach every edit's successes and refusals, and flows of some size.
    for (const operation of OPERATIONS) {
      expect(succeeded.get(operation), operation).toBeGreaterThan(100);
      expect(refused.get(operation), operation).toBeGreaterThan(100);
    }
    expect(largest).toBeGreaterThan(15);
  });
});
