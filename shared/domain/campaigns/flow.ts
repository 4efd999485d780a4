// TEMPORARY placeholder until h-flow merges (not to be committed).
export type NodeKind = 'STEP' | 'CONDITION';
export type Branch = 'YES' | 'NO';
export interface FlowLink { kind: NodeKind; type: string; parent: number | null; branch?: Branch; child?: number | null; yes?: number | null; no?: number | null }
export interface FlowStructure { root: number | null; nodes: Record<string, FlowLink>; redirects: Record<string, number | null> }
export const emptyFlow = (): FlowStructure => ({ root: null, nodes: {}, redirects: {} });
export declare function orderedNodes(flow: FlowStructure): number[];
export declare function stepWiring(flow: FlowStructure, id: number): { parent_step_id: number | null; parent_condition_id: number | null; branch: Branch | null; child_step_id: number | null; child_condition_id: number | null };
export declare function conditionWiring(flow: FlowStructure, id: number): { parent_step_id: number | null; yes_child_step_id: number | null; no_child_step_id: number | null };
export declare function channelsOf(flow: FlowStructure): Set<'EMAIL' | 'NETWORK'>;
