import { padId, pkEndingIn } from './key-parts';

/** Lead lists, their members and digest, prospects, companies and their counts and identities. */

/** A lead list, stored under its workspace: fetching it by (workspace, id) is the isolation check. */
export const leadListKey = (workspaceId: number, listId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}`,
  sk: `LEADLIST#${padId(listId)}`,
});
export const LEAD_LIST_PREFIX = 'LEADLIST#';

/**
 * A lead's membership of a list: one partition per list, so listing, sorting (sk and the LSIs)
 * and filtering a list are Queries on that partition alone.
 */
export const listMemberKey = (listId: number, leadId: number) => ({
  pk: `LEADLIST#${padId(listId)}#MEMBERS`,
  sk: `LEAD#${padId(leadId)}`,
});
export const LIST_MEMBER_PREFIX = 'LEAD#';

/** A chunk of a list's member digest (shared/domain/leads/member-digest.ts), beside its members. */
export const digestChunkKey = (listId: number, chunk: number) => ({
  pk: `LEADLIST#${padId(listId)}#MEMBERS`,
  sk: `${DIGEST_PREFIX}${String(chunk).padStart(6, '0')}`,
});
export const DIGEST_PREFIX = 'DIGEST#';

/**
 * The journal of one batch of lead writes: which leads, lists and identity claims it touches, so
 * that a batch interrupted half-way is finished (or undone) by whoever finds it later.
 */
export const leadJournalKey = (token: string) => ({ pk: `LEADJOURNAL#${token}`, sk: 'LEADJOURNAL' });

/** A prospect, in a partition of its own; `workspaceId` on the item says whose it is. */
export const prospectKey = (prospectId: number) => ({ pk: `PROSPECT#${padId(prospectId)}`, sk: 'PROSPECT' });
/** GSI1 on a prospect: the workspace's prospects (workspace-only search). */
export const prospectsByWorkspace = (workspaceId: number, prospectId: number) => ({
  gsi1pk: `WORKSPACE#${padId(workspaceId)}#PROSPECTS`,
  gsi1sk: `PROSPECT#${padId(prospectId)}`,
});
/**
 * GSI2 keys that prospects written before the member digest carry (a company's prospects). Nothing
 * writes or reads them any more: a company's prospects are found through the lists' digests. Kept
 * so the layout migration and its test can name such items.
 */
export const prospectsByCompany = (companyId: number, prospectId: number) => ({
  gsi2pk: `COMPANY#${padId(companyId)}#PROSPECTS`,
  gsi2sk: `PROSPECT#${padId(prospectId)}`,
});

export const companyKey = (companyId: number) => ({ pk: `COMPANY#${padId(companyId)}`, sk: 'COMPANY' });
/** GSI1 on a company: the workspace's companies (workspace-only search). */
export const companiesByWorkspace = (workspaceId: number, companyId: number) => ({
  gsi1pk: `WORKSPACE#${padId(workspaceId)}#COMPANIES`,
  gsi1sk: `COMPANY#${padId(companyId)}`,
});

/**
 * A workspace's lead counts: prospects that are not archived and companies, moved in the same
 * transaction as the leads. Its sort key does not begin with LEAD_LIST_PREFIX, so listing the
 * workspace's lists never sees it.
 */
export const workspaceLeadCountsKey = (workspaceId: number) => ({ pk: `WORKSPACE#${padId(workspaceId)}`, sk: 'LEADCOUNTS' });

/**
 * Uniqueness guard of a lead identity within a workspace (`url:<canonical profile URL>`,
 * `email:<address>` for prospects; `domain:`, `url:`, `name:` for companies). Holds the lead's id;
 * written in the same transaction as the lead, so one identity can never name two leads.
 */
export const leadIdentityKey = (workspaceId: number, kind: 'PROSPECT' | 'COMPANY', identity: string) => ({
  pk: pkEndingIn(`LEADIDENTITY#${padId(workspaceId)}#${kind}#`, identity),
  sk: 'LEADIDENTITY',
});

/** A workspace's directory-search usage in one calendar month (`YYYY-MM`, UTC). */
export const searchUsageKey = (workspaceId: number, month: string) => ({
  pk: `WORKSPACE#${padId(workspaceId)}`,
  sk: `SEARCHUSAGE#${month}`,
});
