import { conflict, type DomainError, notFound, validationError } from '../errors';
import {
  ancestorsOf,
  type Branch,
  CONDITION_TYPES,
  checkFlow,
  conditionsMissingInvite,
  type FlowLink,
  type FlowStructure,
  isConditionType,
  isStepType,
  linkOf,
  mainPath,
  type NodeKind,
  occupant,
  STEP_TYPES,
  type Slot,
  slotOf,
} from './flow';

/**
 * The changes to a flow's structure (docs/campaigns.md). Each one is pure: it copies the flow,
 * changes the copy and returns it after checking every invariant; the input is never touched.
 * Ids are the caller's (globally unique). A request's own mistakes are 400s naming the field; a
 * request the current flow does not allow is a 409.
 *
 * ACCEPTED_INVITE needs a NETWORK_INVITE step before it. Adding or moving a node so that one
 * would lack it is a 400 (`ACCEPTED_INVITE needs a NETWORK_INVITE step before it`: the request
 * points somewhere wrong); deleting a step that is the only invite before one is a 409 naming
 * the condition (the flow, not the request, is in the way).
 */

export interface NewNode {
  id: number;
  type: string;
}
/** Where a new step goes; neither parent: after the main path's last node. */
export interface StepPlacement {
  parentStepId?: number;
  parentConditionId?: number;
  branch?: Branch;
}
/** Where a new condition goes, and existing steps to hang on its branches. */
export interface ConditionPlacement {
  parentStepId?: number;
  yesChildStepId?: number;
  noChildStepId?: number;
}
/** The wiring fields of a step's PATCH; absent fields stay as they are. */
export interface StepRewiring {
  parentStepId?: number;
  parentConditionId?: number;
  branch?: Branch;
  childStepId?: number;
  childConditionId?: number;
}

export const INVITE_NEEDED = 'ACCEPTED_INVITE needs a NETWORK_INVITE step before it';

type Field = 'parent_step_id' | 'parent_condition_id' | 'child_step_id' | 'child_condition_id' | 'yes_child_step_id' | 'no_child_step_id';

const copy = (flow: FlowStructure): FlowStructure => structuredClone(flow);
const kindWord = (kind: NodeKind) => (kind === 'STEP' ? 'step' : 'condition');

/** The node an id field names, of the kind the field needs. */
function refer(flow: FlowStructure, field: Field, id: number, kind: NodeKind): FlowLink {
  const link = linkOf(flow, id);
  if (!link) throw validationError(`${field}: ${kindWord(kind)} ${id} not found in this campaign`);
  if (link.kind !== kind) throw validationError(`${field} must be a ${kindWord(kind)}`);
  return link;
}

const cycles = (flow: FlowStructure, moved: number, under: number | null): boolean =>
  under !== null && (under === moved || ancestorsOf(flow, under).includes(moved));

function setOccupant(flow: FlowStructure, slot: Slot, id: number | null): void {
  if (slot.parent === null) {
    flow.root = id;
    return;
  }
  const parent = linkOf(flow, slot.parent)!;
  if (parent.kind === 'STEP') parent.child = id;
  else if (slot.branch === 'NO') parent.no = id;
  else parent.yes = id;
}

/** Hangs a node (with whatever it carries) in a slot, overwriting the slot. */
function place(flow: FlowStructure, id: number, slot: Slot): void {
  setOccupant(flow, slot, id);
  const link = linkOf(flow, id)!;
  link.parent = slot.parent;
  if (slot.branch === undefined) delete link.branch;
  else link.branch = slot.branch;
}

/** Takes a non-root node (with its subtree) out of its slot, which becomes free. */
function lift(flow: FlowStructure, id: number): void {
  const link = linkOf(flow, id)!;
  setOccupant(flow, slotOf(link), null);
  link.parent = null;
  delete link.branch;
}

/** Hangs a childless step in a slot; the slot's former occupant becomes the step's child. */
function insertStep(flow: FlowStructure, id: number, slot: Slot): void {
  const former = occupant(flow, slot);
  place(flow, id, slot);
  if (former !== null) place(flow, former, { parent: id });
}

const freeBranch = (link: FlowLink): Branch | undefined =>
  (link.yes ?? null) === null ? 'YES' : (link.no ?? null) === null ? 'NO' : undefined;

/** After the main path's last node: its child slot, or the YES branch of a condition ending it; the root of an empty flow. */
function appendSlot(flow: FlowStructure): Slot {
  const last = mainPath(flow).at(-1);
  if (last === undefined) return { parent: null };
  return linkOf(flow, last)!.kind === 'STEP' ? { parent: last } : { parent: last, branch: 'YES' };
}

function checkType(kind: NodeKind, type: string): void {
  if (kind === 'STEP' && !isStepType(type)) throw validationError(`step_type must be one of ${STEP_TYPES.join(', ')}`);
  if (kind === 'CONDITION' && !isConditionType(type)) throw validationError(`condition_type must be one of ${CONDITION_TYPES.join(', ')}`);
}

function checkNew(flow: FlowStructure, node: NewNode, kind: NodeKind): void {
  checkType(kind, node.type);
  if (!Number.isSafeInteger(node.id)) throw validationError(`Node id ${node.id} is not an integer`);
  // Ids come from the id generator: a reused one (deleted ones included, their redirects live on) is a bug upstream.
  if (linkOf(flow, node.id) || Object.hasOwn(flow.redirects, String(node.id))) throw conflict(`Node id ${node.id} is already used in this flow`);
}

/** The invite rule, then every structural invariant (a failure there is a bug: a plain Error, a 500). */
function finish(flow: FlowStructure, inviteError: (condition: number) => DomainError): FlowStructure {
  const missing = conditionsMissingInvite(flow)[0];
  if (missing !== undefined) throw inviteError(missing);
  checkFlow(flow);
  return flow;
}
const inviteNeeded = () => validationError(INVITE_NEEDED);

/**
 * Adds a step. Under a step: in its child slot. On a condition: on `branch`, or without it on the
 * free branch, YES first (409 when both are taken). A taken slot is inserted into: its former
 * occupant becomes the new step's child. Without a parent: after the main path's last node (the
 * root of an empty flow).
 */
export function addStep(flow: FlowStructure, node: NewNode, placement: StepPlacement = {}): FlowStructure {
  const draft = copy(flow);
  checkNew(draft, node, 'STEP');
  const { parentStepId, parentConditionId, branch } = placement;
  if (parentStepId !== undefined && parentConditionId !== undefined) throw validationError('parent_step_id and parent_condition_id cannot both be set');
  if (branch !== undefined && parentConditionId === undefined) throw validationError('branch needs parent_condition_id');
  let slot: Slot;
  if (parentStepId !== undefined) {
    refer(draft, 'parent_step_id', parentStepId, 'STEP');
    slot = { parent: parentStepId };
  } else if (parentConditionId !== undefined) {
    const parent = refer(draft, 'parent_condition_id', parentConditionId, 'CONDITION');
    const chosen = branch ?? freeBranch(parent);
    if (chosen === undefined) throw conflict(`Condition ${parentConditionId} has no free branch`);
    slot = { parent: parentConditionId, branch: chosen };
  } else {
    slot = appendSlot(draft);
  }
  draft.nodes[String(node.id)] = { kind: 'STEP', type: node.type, parent: null, child: null };
  insertStep(draft, node.id, slot);
  return finish(draft, inviteNeeded);
}

/**
 * Adds a condition. Under `parentStepId`: in that step's child slot, and the step's former child
 * becomes the YES child (the NO child when it is the one `no_child_step_id` names). Without it:
 * after the main path's last step (the root of an empty flow), or, when `yes_child_step_id` or
 * `no_child_step_id` names the root, as the new root with the old root on that branch.
 * `yes_child_step_id` / `no_child_step_id` move existing steps, with their subtrees, onto the
 * branches; a step above the new condition would make a cycle.
 */
export function addCondition(flow: FlowStructure, node: NewNode, placement: ConditionPlacement = {}): FlowStructure {
  const draft = copy(flow);
  checkNew(draft, node, 'CONDITION');
  const { parentStepId, yesChildStepId: yes, noChildStepId: no } = placement;
  if (yes !== undefined && yes === no) throw validationError('yes_child_step_id and no_child_step_id must differ');
  if (yes !== undefined) refer(draft, 'yes_child_step_id', yes, 'STEP');
  if (no !== undefined) refer(draft, 'no_child_step_id', no, 'STEP');
  let slot: Slot;
  if (parentStepId !== undefined) {
    refer(draft, 'parent_step_id', parentStepId, 'STEP');
    slot = { parent: parentStepId };
  } else if (draft.root !== null && (yes === draft.root || no === draft.root)) {
    slot = { parent: null };
  } else {
    slot = appendSlot(draft);
    if (slot.branch !== undefined) {
      throw conflict(`The main path ends with condition ${slot.parent}, and a condition cannot follow a condition; give parent_step_id`);
    }
  }
  const displaced = occupant(draft, slot);
  const moved: [Field, number | undefined, Branch][] = [
    ['yes_child_step_id', yes, 'YES'],
    ['no_child_step_id', no, 'NO'],
  ];
  // A cycle first: it is what is wrong with such a request, whatever the slot holds.
  for (const [field, id] of moved) {
    if (id !== undefined && id !== displaced && cycles(draft, id, slot.parent)) throw validationError(`${field} would make a cycle`);
  }
  let displacedBranch: Branch = 'YES';
  if (displaced !== null) {
    if (linkOf(draft, displaced)!.kind === 'CONDITION') {
      throw conflict(`parent_step_id: step ${parentStepId} is followed by condition ${displaced}, and a condition cannot follow a condition`);
    }
    displacedBranch = no === displaced ? 'NO' : 'YES';
    if (displacedBranch === 'YES' && yes !== undefined && yes !== displaced) {
      throw validationError(`yes_child_step_id: step ${parentStepId}'s child ${displaced} becomes the YES child`);
    }
  }
  for (const [, id] of moved) if (id !== undefined && id !== displaced) lift(draft, id);
  draft.nodes[String(node.id)] = { kind: 'CONDITION', type: node.type, parent: null, yes: null, no: null };
  place(draft, node.id, slot);
  if (displaced !== null) place(draft, displaced, { parent: node.id, branch: displacedBranch });
  for (const [, id, branch] of moved) if (id !== undefined && id !== displaced) place(draft, id, { parent: node.id, branch });
  return finish(draft, inviteNeeded);
}

/**
 * Moves a step under a new parent, and/or hangs an existing node as its child (the PATCH of a
 * step; the parent change applies first).
 *
 * A new parent: the step moves with its subtree. A taken slot is inserted into only when the
 * moved step has no child (the former occupant becomes its child); otherwise it is a 409, since
 * the former occupant would have nowhere to go. On a condition without `branch`: its free branch,
 * YES first. The root moves alone (with its subtree every target would be a cycle): its child
 * becomes the root and the step arrives childless.
 *
 * A new child: the node moves there with its subtree; the step's child slot must be free (409).
 */
export function rewireStep(flow: FlowStructure, stepId: number, rewiring: StepRewiring): FlowStructure {
  const draft = copy(flow);
  const step = linkOf(draft, stepId);
  if (step?.kind !== 'STEP') throw notFound('Step not found');
  const { parentStepId, parentConditionId, branch, childStepId, childConditionId } = rewiring;
  if (parentStepId !== undefined && parentConditionId !== undefined) throw validationError('parent_step_id and parent_condition_id cannot both be set');
  if (childStepId !== undefined && childConditionId !== undefined) throw validationError('child_step_id and child_condition_id cannot both be set');
  if (branch !== undefined && parentConditionId === undefined) throw validationError('branch needs parent_condition_id');
  if (parentStepId !== undefined) moveStep(draft, stepId, 'parent_step_id', parentStepId, 'STEP', undefined);
  if (parentConditionId !== undefined) moveStep(draft, stepId, 'parent_condition_id', parentConditionId, 'CONDITION', branch);
  if (childStepId !== undefined) attachChild(draft, stepId, 'child_step_id', childStepId, 'STEP');
  if (childConditionId !== undefined) attachChild(draft, stepId, 'child_condition_id', childConditionId, 'CONDITION');
  return finish(draft, inviteNeeded);
}

function moveStep(flow: FlowStructure, stepId: number, field: Field, target: number, kind: NodeKind, branch: Branch | undefined): void {
  const parent = refer(flow, field, target, kind);
  const step = linkOf(flow, stepId)!;
  const isRoot = flow.root === stepId;
  if (isRoot ? target === stepId : cycles(flow, stepId, target)) throw validationError(`${field} would make a cycle`);
  if (isRoot) {
    // The root's only node is itself when it has no child; then every target is itself or unknown, both refused above.
    place(flow, step.child!, { parent: null });
    step.child = null;
  } else {
    lift(flow, stepId);
  }
  const chosen = kind === 'CONDITION' ? (branch ?? freeBranch(parent)) : undefined;
  if (kind === 'CONDITION' && chosen === undefined) throw conflict(`Condition ${target} has no free branch`);
  const slot: Slot = chosen === undefined ? { parent: target } : { parent: target, branch: chosen };
  if (occupant(flow, slot) !== null && (step.child ?? null) !== null) {
    throw conflict(`${field}: ${kindWord(kind)} ${target} already has a ${chosen === undefined ? 'child' : `${chosen} child`}`);
  }
  insertStep(flow, stepId, slot);
}

function attachChild(flow: FlowStructure, stepId: number, field: Field, childId: number, kind: NodeKind): void {
  refer(flow, field, childId, kind);
  const step = linkOf(flow, stepId)!;
  if (step.child === childId) return;
  if (cycles(flow, childId, stepId)) throw validationError(`${field} would make a cycle`);
  if ((step.child ?? null) !== null) throw conflict(`${field}: step ${stepId} already has a child`);
  lift(flow, childId);
  place(flow, childId, { parent: stepId });
}

/**
 * Deletes a node. A step: its child takes its slot (the same branch; the root's child becomes the
 * root, a condition included), and prospects waiting on it move to that child
 * (`redirects[id]`, and earlier redirects to it follow, so every redirect resolves in one hop).
 * A condition: only without children (409); its waiting prospects finish (redirect to null).
 * `kind` is what the caller addresses (`Step not found` / `Condition not found` for anything else).
 */
export function removeNode(flow: FlowStructure, id: number, kind?: NodeKind): FlowStructure {
  const found = linkOf(flow, id);
  if (!found || (kind !== undefined && found.kind !== kind)) {
    throw notFound(kind === 'STEP' ? 'Step not found' : kind === 'CONDITION' ? 'Condition not found' : 'Node not found');
  }
  const draft = copy(flow);
  const link = linkOf(draft, id)!;
  const slot = slotOf(link);
  let successor: number | null = null;
  if (link.kind === 'CONDITION') {
    if ((link.yes ?? null) !== null || (link.no ?? null) !== null) throw conflict(`Condition ${id} has children; delete or move them first`);
    setOccupant(draft, slot, null);
  } else {
    successor = link.child ?? null;
    if (successor !== null && slot.branch !== undefined && linkOf(draft, successor)!.kind === 'CONDITION') {
      throw conflict(`Step ${id} is between conditions ${slot.parent} and ${successor}, and a condition cannot follow a condition`);
    }
    if (successor === null) setOccupant(draft, slot, null);
    else place(draft, successor, slot);
  }
  delete draft.nodes[String(id)];
  for (const [key, target] of Object.entries(draft.redirects)) if (target === id) draft.redirects[key] = successor;
  draft.redirects[String(id)] = successor;
  return finish(draft, (condition) =>
    conflict(`Deleting step ${id} would leave ACCEPTED_INVITE condition ${condition} without a NETWORK_INVITE step before it`),
  );
}

/**
 * Changes a node's type within its kind (a step's step_type, a condition's condition_type); 400
 * when an ACCEPTED_INVITE condition would lose its NETWORK_INVITE step, or gain none.
 */
export function retypeNode(flow: FlowStructure, id: number, kind: NodeKind, type: string): FlowStructure {
  const found = linkOf(flow, id);
  if (found?.kind !== kind) throw notFound(kind === 'STEP' ? 'Step not found' : 'Condition not found');
  const draft = copy(flow);
  checkType(kind, type);
  linkOf(draft, id)!.type = type;
  return finish(draft, inviteNeeded);
}
