/**
 * Creation order of the items a workspace lists in full (campaigns, lead lists, sender accounts,
 * API keys). Ids are unique but not given out in creation order (each process takes its ids from
 * one of 64 counter shards: data-model.md, "Ids"), so the order is by `createdAt`, then id.
 */
interface Created {
  id: number;
  createdAt: string;
}

export const oldestFirst = (a: Created, b: Created): number => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id - b.id);

export const newestFirst = (a: Created, b: Created): number => oldestFirst(b, a);
