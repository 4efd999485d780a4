/** What the connection check needs to know about a prospect. */
export interface ProspectRef {
  id: number;
  workspaceId: number;
  networkProfileUrl: string | null;
}

/**
 * Finds a prospect by id whatever its workspace, so the caller can tell "not yours" (403) from
 * "no such prospect" (404). Implemented over the prospects' items (shared/db/prospect-lookup.ts).
 */
export interface ProspectLookup {
  findProspect(prospectId: number): Promise<ProspectRef | undefined>;
}
