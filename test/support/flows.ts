import { expect } from 'vitest';
import { type Branch, type FlowLink, type FlowStructure, flowProblems } from '../../shared/domain/campaigns/flow';
import { DomainError, type DomainErrorKind } from '../../shared/domain/errors';

/** A step as stored: `branch` only when it hangs on a condition. */
export const step = (type: string, parent: number | null, child: number | null, branch?: Branch): FlowLink =>
  branch === undefined ? { kind: 'STEP', type, parent, child } : { kind: 'STEP', type, parent, branch, child };
export const condition = (type: string, parent: number | null, yes: number | null, no: number | null): FlowLink => ({
  kind: 'CONDITION',
  type,
  parent,
  yes,
  no,
});

export const flowOf = (root: number | null, nodes: Record<number, FlowLink>, redirects: Record<number, number | null> = {}): FlowStructure => ({
  root,
  nodes: Object.fromEntries(Object.entries(nodes)),
  redirects: Object.fromEntries(Object.entries(redirects)),
});

/** Freezes a flow all the way down, so an edit that writes into its input throws. */
export function frozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

/** Runs an edit on a frozen copy of its input, checks the result's invariants and returns it frozen. */
export function edited(edit: (flow: FlowStructure) => FlowStructure, flow: FlowStructure): FlowStructure {
  const result = edit(frozen(structuredClone(flow)));
  expect(flowProblems(result)).toEqual([]);
  return frozen(result);
}

/** The DomainError a call throws, as `{ kind, message }`. */
export function failure(call: () => unknown): { kind: DomainErrorKind; message: string } {
  try {
    call();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { kind: error.kind, message: error.message };
  }
  throw new Error('expected a DomainError, nothing was thrown');
}
