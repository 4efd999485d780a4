import type { TestStack } from '../../support/test-stack';
import type { ProspectView, Workspace } from './helpers';

export interface SearchResponse<T = ProspectView> {
  success: boolean;
  search_type: string;
  source: string;
  page: number;
  page_size: number;
  total_count: number | null;
  next_cursor: string | null;
  results: T[];
}

/** POST /public/prospects/search/ as the workspace. */
export const searchAs = <T = ProspectView>(stack: TestStack, ws: Workspace, body: unknown) =>
  stack.call<SearchResponse<T>>('POST', '/public/prospects/search/', { apiKey: ws.key, body });
