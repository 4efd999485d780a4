import { notFound } from '../errors';

/**
 * A campaign's flow: a tree of steps and conditions, stored as-is on the campaign item. This file
 * holds the structure, its invariants (`flowProblems` / `checkFlow`) and the read-only queries; the
 * changes are in flow-edit.ts, the content rules of a step in flow-content.ts.
 *
 * Invariants (docs/campaigns.md):
 * - a step has at most one parent (a step, or one branch of a condition) and at most one child
 *   (a step or a condition);
 * - a condition has a parent step, or is the root, and a YES and a NO child, both steps or null;
 * - only the root has no parent; every node is reachable from the root exactly once (no cycle, no
 *   orphan, never two nodes in one slot), and parent and child links agree both ways;
 * - an ACCEPTED_INVITE condition has a NETWORK_INVITE step among its ancestors;
 * - a redirect (a deleted node) points to a live node or to null, never to another redirect.
 */

export const STEP_TYPES = ['EMAIL', 'NETWORK_INVITE', 'NETWORK_MESSAGE'] as const;
export type StepType = (typeof STEP_TYPES)[number];
export const CONDITION_TYPES = ['HAS_EMAIL', 'HAS_EMAIL_PREMIUM', 'ACCEPTED_INVITE', 'ALREADY_CONNECTED'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];
/** What a step sends through; activation needs a sender account for each channel the flow uses. */
export type Channel = 'EMAIL' | 'NETWORK';

export type NodeKind = 'STEP' | 'CONDITION';
export type Branch = 'YES' | 'NO';
export interface FlowLink {
  kind: NodeKind;
  /** step_type or condition_type */
  type: string;
  /** Parent node id (a step, or a condition when `branch` is set); null only for the root. */
  parent: number | null;
  /** Which branch of the parent condition this node hangs on. */
  branch?: Branch;
  /** STEP: its one child (step or condition) or null. */
  child?: number | null;
  /** CONDITION: its YES and NO children (steps only) or null. */
  yes?: number | null;
  no?: number | null;
}
export interface FlowStructure {
  root: number | null;
  nodes: Record<string, FlowLink>; // keyed by String(node id)
  /** Deleted node id -> the node that took its place (its former child) or null; prospects waiting on a deleted node move there. */
  redirects: Record<string, number | null>;
}
export const emptyFlow = (): FlowStructure => ({ root: null, nodes: {}, redirects: {} });

/** A place a node can hang: the root (parent null), a step's child slot, or one branch of a condition. */
export interface Slot {
  parent: number | null;
  branch?: Branch;
}

export const isStepType = (type: string): type is StepType => (STEP_TYPES as readonly string[]).includes(type);
export const isConditionType = (type: string): type is ConditionType => (CONDITION_TYPES as readonly string[]).includes(type);

/** The node with this id, undefined when the flow has none (a deleted id included). */
export const linkOf = (flow: FlowStructure, id: number): FlowLink | undefined =>
  Object.hasOwn(flow.nodes, String(id)) ? flow.nodes[String(id)] : undefined;

/**
 * From node `id` on, along the steps' children, the first node that is not a step in `done` (the
 * steps a prospect's stay carried out, which an edit put after its place again, are passed over:
 * docs/engine.md, "The state of an action"); null at the end of the flow.
 */
export function firstNotDone(flow: FlowStructure, id: number | null, done: readonly number[]): number | null {
  let next = id;
  const most = Object.keys(flow.nodes).length;
  for (let hops = 0; next !== null && hops <= most && linkOf(flow, next)?.kind === 'STEP' && done.includes(next); hops += 1) {
    next = linkOf(flow, next)?.child ?? null;
  }
  return next;
}

const stepLink = (flow: FlowStructure, id: number): FlowLink => {
  const link = linkOf(flow, id);
  if (link?.kind !== 'STEP') throw notFound('Step not found');
  return link;
};
const conditionLink = (flow: FlowStructure, id: number): FlowLink => {
  const link = linkOf(flow, id);
  if (link?.kind !== 'CONDITION') throw notFound('Condition not found');
  return link;
};

/** The node in a slot, null when the slot is free. */
export function occupant(flow: FlowStructure, slot: Slot): number | null {
  if (slot.parent === null) return flow.root;
  const parent = linkOf(flow, slot.parent);
  if (!parent) return null;
  if (parent.kind === 'STEP') return parent.child ?? null;
  return (slot.branch === 'NO' ? parent.no : parent.yes) ?? null;
}

/** The slot a node hangs in. */
export function slotOf(link: FlowLink): Slot {
  return link.branch === undefined ? { parent: link.parent } : { parent: link.parent, branch: link.branch };
}

/** The next node along a path: a step's child, a condition's YES child. */
const nextOnPath = (link: FlowLink): number | null => (link.kind === 'STEP' ? link.child : link.yes) ?? null;

/** The nodes from `start` following each step's child and each condition's YES branch. */
function pathFrom(flow: FlowStructure, start: number | null, seen: Set<number>): number[] {
  const path: number[] = [];
  for (let id = start; id !== null && !seen.has(id); ) {
    const link = linkOf(flow, id);
    if (!link) break;
    seen.add(id);
    path.push(id);
    id = nextOnPath(link);
  }
  return path;
}

/** The main path: from the root through each step's child and each condition's YES branch. */
export const mainPath = (flow: FlowStructure): number[] => pathFrom(flow, flow.root, new Set());

/**
 * Every node in display order: a path (the main path first), then, for each condition on that path
 * in order, its NO subtree ordered the same way (its own path, then its conditions' NO subtrees).
 * Each subtree stays together; the order depends on the structure only.
 */
export function orderedNodes(flow: FlowStructure): number[] {
  const seen = new Set<number>();
  const order: number[] = [];
  const walk = (start: number | null) => {
    const path = pathFrom(flow, start, seen);
    order.push(...path);
    for (const id of path) {
      const link = linkOf(flow, id)!;
      if (link.kind === 'CONDITION') walk(link.no ?? null);
    }
  };
  walk(flow.root);
  return order;
}

/** A node's ancestors, nearest first; empty for the root or an unknown id. */
export function ancestorsOf(flow: FlowStructure, id: number): number[] {
  const ancestors: number[] = [];
  const limit = Object.keys(flow.nodes).length;
  for (let parent = linkOf(flow, id)?.parent ?? null; parent !== null && ancestors.length <= limit; ) {
    ancestors.push(parent);
    parent = linkOf(flow, parent)?.parent ?? null;
  }
  return ancestors;
}

/** Whether a NETWORK_INVITE step comes before the node on its path (the node itself not counted). */
export const pathHasInvite = (flow: FlowStructure, nodeId: number): boolean =>
  ancestorsOf(flow, nodeId).some((id) => {
    const link = linkOf(flow, id);
    return link?.kind === 'STEP' && link.type === 'NETWORK_INVITE';
  });

/** ACCEPTED_INVITE conditions with no NETWORK_INVITE step before them, in display order. */
export const conditionsMissingInvite = (flow: FlowStructure): number[] =>
  orderedNodes(flow).filter((id) => {
    const link = linkOf(flow, id)!;
    return link.kind === 'CONDITION' && link.type === 'ACCEPTED_INVITE' && !pathHasInvite(flow, id);
  });

/** The channels the flow's steps use: EMAIL for EMAIL steps, NETWORK for NETWORK_INVITE and NETWORK_MESSAGE. */
export function channelsOf(flow: FlowStructure): Set<Channel> {
  const channels = new Set<Channel>();
  for (const link of Object.values(flow.nodes)) {
    if (link.kind !== 'STEP') continue;
    channels.add(link.type === 'EMAIL' ? 'EMAIL' : 'NETWORK');
  }
  return channels;
}

/** The conditions that look at the prospect's network profile through a network account of the campaign. */
const NETWORK_CONDITION_TYPES = new Set<string>(['ACCEPTED_INVITE', 'ALREADY_CONNECTED'] satisfies ConditionType[]);

/** Whether the flow has a condition answered through a network account (activation needs one). */
export function hasNetworkConditions(flow: FlowStructure): boolean {
  return Object.values(flow.nodes).some((link) => link.kind === 'CONDITION' && NETWORK_CONDITION_TYPES.has(link.type));
}

/**
 * Where a prospect waiting on `id` is now: the node itself while it lives, else where its
 * redirect leads (a live node, or null: the prospect's flow is finished). An id the flow never
 * had is null as well.
 */
export function resolveNode(flow: FlowStructure, id: number): number | null {
  // Edits keep redirects one hop long; following a longer chain (never a loop) costs nothing.
  const seen = new Set<number>();
  for (let current: number | null = id; current !== null && !seen.has(current); ) {
    if (linkOf(flow, current)) return current;
    seen.add(current);
    const key: string = String(current);
    current = Object.hasOwn(flow.redirects, key) ? (flow.redirects[key] ?? null) : null;
  }
  return null;
}

export interface StepWiring {
  parent_step_id: number | null;
  parent_condition_id: number | null;
  branch: Branch | null;
  child_step_id: number | null;
  child_condition_id: number | null;
}
export interface ConditionWiring {
  parent_step_id: number | null;
  yes_child_step_id: number | null;
  no_child_step_id: number | null;
}

/** A step's links as the API shows them; 404 `Step not found` for anything else. */
export function stepWiring(flow: FlowStructure, id: number): StepWiring {
  const link = stepLink(flow, id);
  const parentKind = link.parent === null ? undefined : linkOf(flow, link.parent)?.kind;
  const child = link.child ?? null;
  const childKind = child === null ? undefined : linkOf(flow, child)?.kind;
  return {
    parent_step_id: parentKind === 'STEP' ? link.parent : null,
    parent_condition_id: parentKind === 'CONDITION' ? link.parent : null,
    branch: link.branch ?? null,
    child_step_id: childKind === 'STEP' ? child : null,
    child_condition_id: childKind === 'CONDITION' ? child : null,
  };
}

/** A condition's links as the API shows them; 404 `Condition not found` for anything else. */
export function conditionWiring(flow: FlowStructure, id: number): ConditionWiring {
  const link = conditionLink(flow, id);
  return { parent_step_id: link.parent, yes_child_step_id: link.yes ?? null, no_child_step_id: link.no ?? null };
}

const isIdKey = (key: string): boolean => Number.isSafeInteger(Number(key)) && String(Number(key)) === key;
const isLinkValue = (value: unknown): value is number | null | undefined =>
  value === null || value === undefined || Number.isSafeInteger(value);

/** What is wrong with a node's own fields, before looking at its neighbours. */
function linkProblem(key: string, link: FlowLink): string | undefined {
  if (!isIdKey(key)) return `node key ${key} is not an integer id`;
  if (link.kind === 'STEP') {
    if (!isStepType(link.type)) return `step ${key} has unknown type ${link.type}`;
    if (!isLinkValue(link.child)) return `step ${key} has a malformed child`;
    if ((link.yes ?? null) !== null || (link.no ?? null) !== null) return `step ${key} has branches`;
  } else if (link.kind === 'CONDITION') {
    if (!isConditionType(link.type)) return `condition ${key} has unknown type ${link.type}`;
    if (!isLinkValue(link.yes) || !isLinkValue(link.no)) return `condition ${key} has a malformed branch`;
    if ((link.child ?? null) !== null) return `condition ${key} has a step's child`;
  } else {
    return `node ${key} has unknown kind ${String(link.kind)}`;
  }
  if (link.parent !== null && !Number.isSafeInteger(link.parent)) return `node ${key} has a malformed parent`;
  if (link.branch !== undefined && link.branch !== 'YES' && link.branch !== 'NO') return `node ${key} has unknown branch ${String(link.branch)}`;
  return undefined;
}

/** What is wrong with the way a non-root node hangs from its parent. */
function parentProblem(flow: FlowStructure, id: number, link: FlowLink): string | undefined {
  if (link.parent === null) return `node ${id} has no parent but is not the root`;
  const parent = linkOf(flow, link.parent);
  if (!parent) return `node ${id} has parent ${link.parent}, which is not in the flow`;
  if (parent.kind === 'STEP') {
    if (link.branch !== undefined) return `node ${id} has a branch under step ${link.parent}`;
    if (parent.child !== id) return `step ${link.parent} does not have node ${id} as its child`;
    return undefined;
  }
  if (link.kind !== 'STEP') return `condition ${id} hangs under condition ${link.parent}`;
  if (link.branch === undefined) return `step ${id} has no branch under condition ${link.parent}`;
  const held = link.branch === 'YES' ? parent.yes : parent.no;
  return held === id ? undefined : `condition ${link.parent} does not have step ${id} on its ${link.branch} branch`;
}

/** What is wrong with the children a node names. */
function childrenProblem(flow: FlowStructure, id: number, link: FlowLink): string | undefined {
  const slots: [number | null | undefined, Branch | undefined][] =
    link.kind === 'STEP' ? [[link.child, undefined]] : [[link.yes, 'YES'], [link.no, 'NO']];
  for (const [child, branch] of slots) {
    if (child === null || child === undefined) continue;
    const childLink = linkOf(flow, child);
    const where = branch === undefined ? `step ${id}'s child` : `condition ${id}'s ${branch} child`;
    if (!childLink) return `${where} ${child} is not in the flow`;
    if (childLink.parent !== id || childLink.branch !== branch) return `${where} ${child} does not name it back`;
    if (branch !== undefined && childLink.kind !== 'STEP') return `${where} ${child} is not a step`;
  }
  return undefined;
}

/** Every broken invariant of a flow; empty when it is valid. */
export function flowProblems(flow: FlowStructure): string[] {
  const problems: string[] = [];
  const keys = Object.keys(flow.nodes);
  for (const key of keys) {
    const link = flow.nodes[key]!;
    const own = linkProblem(key, link);
    if (own) {
      problems.push(own);
      continue;
    }
    const id = Number(key);
    const up = id === flow.root ? (link.parent === null && link.branch === undefined ? undefined : `root ${id} has a parent`) : parentProblem(flow, id, link);
    const down = childrenProblem(flow, id, link);
    if (up) problems.push(up);
    if (down) problems.push(down);
  }
  if (flow.root === null) {
    if (keys.length > 0) problems.push('the flow has nodes but no root');
  } else if (!linkOf(flow, flow.root)) {
    problems.push(`root ${flow.root} is not in the flow`);
  }
  if (problems.length === 0) {
    // Links agree both ways, so a walk from the root meets each node at most once; what it misses is orphaned or on a cycle.
    const reached = new Set(orderedNodes(flow));
    for (const key of keys) if (!reached.has(Number(key))) problems.push(`node ${key} is not reachable from the root`);
  }
  for (const [key, target] of Object.entries(flow.redirects)) {
    if (!isIdKey(key)) problems.push(`redirect key ${key} is not an integer id`);
    else if (Object.hasOwn(flow.nodes, key)) problems.push(`redirect ${key} names a live node`);
    if (target !== null && !linkOf(flow, target)) problems.push(`redirect ${key} leads to ${target}, which is not a live node`);
  }
  if (problems.length === 0) {
    for (const id of conditionsMissingInvite(flow)) problems.push(`ACCEPTED_INVITE condition ${id} has no NETWORK_INVITE step before it`);
  }
  return problems;
}

/**
 * Throws a plain Error (a 500: the stored flow is corrupt, or an edit has a bug) naming every
 * broken invariant. The repository runs it on every flow it reads; every edit runs it on its result.
 */
export function checkFlow(flow: FlowStructure): void {
  const problems = flowProblems(flow);
  if (problems.length > 0) throw new Error(`Invalid flow: ${problems.join('; ')}`);
}
