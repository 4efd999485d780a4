import { createHash } from 'node:crypto';
import type { SearchType } from './lead';
import { foldText } from './normalize';
import type { SearchFilters } from './search-filters';

/**
 * The `cursor` of a workspace search: where the next page starts, bound to the search it came
 * from. It is `base64url("1.<after>.<check>")`: `after` is the id up to which the workspace's
 * leads have been read, `check` the first 128 bits (hex) of the SHA-256 of the version, the
 * workspace, the search type, the filters (canonical: keys sorted, values folded, sorted, without
 * repeats) and `after`. A cursor that was edited, damaged, or comes from another workspace,
 * search type or filter set fails the check.
 *
 * It is not a secret and needs none: the workspace is always the caller's (from the API key),
 * never the cursor's, so a cursor someone computed by hand can only start the caller's own search
 * at another id of the caller's own workspace.
 */

export interface SearchCursorScope {
  workspaceId: number;
  searchType: SearchType;
  filters: SearchFilters;
}

export const CURSOR_NOT_VALID = 'cursor is not valid for this search';
export const CURSOR_NEEDS_WORKSPACE = 'cursor is only accepted with source WORKSPACE';

const VERSION = '1';
/** Longer than any cursor this module makes; the body schema refuses longer ones. */
export const MAX_CURSOR_LENGTH = 200;

const canonicalValues = (values: string[]): string[] => [...new Set(values.map(foldText))].sort();

/** The filters as data that is equal exactly when they select the same leads in the same way. */
function canonicalFilters(filters: SearchFilters): [string, string[], string[]][] {
  return Object.keys(filters)
    .sort()
    .map((key) => {
      const clause = filters[key] ?? { any: [], none: [] };
      return [key, canonicalValues(clause.any), canonicalValues(clause.none)];
    });
}

function check(scope: SearchCursorScope, after: number): string {
  const bound = JSON.stringify([VERSION, scope.workspaceId, scope.searchType, canonicalFilters(scope.filters), after]);
  return createHash('sha256').update(bound).digest('hex').slice(0, 32);
}

export function encodeSearchCursor(scope: SearchCursorScope, after: number): string {
  return Buffer.from(`${VERSION}.${after}.${check(scope, after)}`, 'utf8').toString('base64url');
}

/** The id a cursor continues after, or undefined when it is not a cursor of this search. */
export function decodeSearchCursor(scope: SearchCursorScope, cursor: string): number | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // Only the one spelling this module writes (base64url's last character may carry ignored bits).
  if (Buffer.from(text, 'utf8').toString('base64url') !== cursor) return undefined;
  const match = /^1\.(0|[1-9][0-9]{0,15})\.([0-9a-f]{32})$/.exec(text);
  if (!match) return undefined;
  const after = Number(match[1]);
  if (!Number.isSafeInteger(after) || match[2] !== check(scope, after)) return undefined;
  return after;
}
