import { padId } from './key-parts';

/** Credit balances and ledgers, enrichment jobs, their chunks and leases. */

/** A workspace's credit balance (the one item every debit, grant and refund updates, conditionally). */
export const creditBalanceKey = (workspaceId: number) => ({ pk: `WORKSPACE#${padId(workspaceId)}`, sk: 'CREDITS' });
/**
 * One entry of a workspace's append-only credit ledger, in a partition of its own (the balance's
 * partition holds the workspace's lists): time-ordered, so the ledger reads newest first.
 */
export const creditLedgerKey = (workspaceId: number, at: string, entryId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}#LEDGER`,
  sk: `${CREDIT_LEDGER_PREFIX}${at}#${padId(entryId)}`,
});
export const CREDIT_LEDGER_PREFIX = 'ENTRY#';
/** Guard of a grant made once per workspace under a name (the development workspace's welcome credits). */
export const creditGrantKey = (workspaceId: number, name: string) => ({ pk: `WORKSPACE#${padId(workspaceId)}`, sk: `CREDITGRANT#${name}` });

/** An enrichment job: its workspace, list, type, selection (compressed ids), counts and credits. */
export const enrichmentJobKey = (jobId: number) => ({ pk: `ENRICHJOB#${padId(jobId)}`, sk: 'JOB' });
/** GSI2 keys of a job while it runs: the sweeper finds unfinished jobs with one Query, oldest first. */
export const enrichmentJobRunning = (createdAt: string, jobId: number) => ({
  gsi2pk: 'ENRICHJOBS#RUNNING',
  gsi2sk: `${createdAt}#${padId(jobId)}`,
});
/**
 * One chunk of an enrichment job while it is being worked (the prospects of one queue message),
 * beside the members of the job's list: its presence is what shows those prospects as 'Loading…'
 * in the list's pages and keeps them out of the list's next count and selection. Deleted when the
 * chunk's results are applied.
 */
export const enrichmentChunkKey = (listId: number, jobId: number, chunk: number) => ({
  pk: `LEADLIST#${padId(listId)}#MEMBERS`,
  sk: `${ENRICHMENT_CHUNK_PREFIX}${padId(jobId)}#${String(chunk).padStart(5, '0')}`,
});
export const ENRICHMENT_CHUNK_PREFIX = 'ENRICHING#';
/**
 * The lease one enrichment start holds in its workspace from choosing its prospects until their
 * chunks are written: a prospect is in several lists, so two starts in one workspace (any lists)
 * never choose it both.
 */
export const enrichmentStartKey = (workspaceId: number) => ({ pk: `WORKSPACE#${padId(workspaceId)}#ENRICH_START`, sk: 'LEASE' });
/**
 * A running enrichment job, in its workspace's partition from its debit to its completion: the
 * jobs whose chunks show prospects as 'Loading…' in every list and keep them out of every count and
 * selection of the workspace (strongly consistent, unlike the sweeper's index).
 */
export const enrichmentRunningKey = (workspaceId: number, jobId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}#ENRICHING`,
  sk: `JOB#${padId(jobId)}`,
});
/**
 * An enrichment job that completed, by completion time in its workspace's partition, for a quarter
 * of an hour (TTL): a start that waited for the start lease while the job ran leaves out what the
 * job searched, so a request repeated at once (a retried sync call) is not charged twice.
 */
export const enrichmentCompletedKey = (workspaceId: number, completedAt: string, jobId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}#ENRICHED`,
  sk: `${completedAt}#${padId(jobId)}`,
});
