/**
 * A page of `limit` from a Query asked for `limit + 1`, and the sort key to go on after it: its
 * last item's when there was one more, else where DynamoDB stopped (its 1 MB), else none. Before
 * 2026-11-29 a page that ended the listing exactly gave a cursor to an empty page (a probe).
 */
export function pageOf(items: Record<string, unknown>[], limit: number, stoppedAt: Record<string, unknown> | undefined, sortKey: string) {
  if (items.length > limit) {
    const page = items.slice(0, limit);
    return { page, last: String(page[limit - 1]?.[sortKey]) };
  }
  const stopped = stoppedAt?.[sortKey];
  return { page: items, last: typeof stopped === 'string' ? stopped : undefined };
}
