import type { HeldSlot } from '../engine/action';
import type { CampaignStatus, ProspectStatus } from '../campaigns/campaign';
import type { CampaignProspect } from '../campaigns/campaign-prospect';
import type { Fingerprint, FingerprintStamp } from './import-fingerprint';
import type { Company, Lead, LeadList, Prospect } from './lead';
import type { ListFilter, MemberState, SortDirection } from './list-query';
import type { SearchFilters } from './search-filters';

export interface MemberPageQuery {
  sortField: string;
  direction: SortDirection;
  filters: ListFilter[];
  offset: number;
  limit: number;
}

/** A member of a page: its view, or only its lead id when the view was too large to keep with it. */
export interface PageMember {
  leadId: number;
  view?: Record<string, unknown>;
}

export interface MemberPage {
  /** The page's members, in order. */
  members: PageMember[];
  /** Members matching the filters; only counted when there are filters (otherwise the list's counter is the count). */
  matched?: number;
}

export interface LeadListRepository {
  create(list: LeadList): Promise<void>;
  /** The list if it belongs to the workspace. */
  get(workspaceId: number, listId: number): Promise<LeadList | undefined>;
  /** The workspace's lists, newest first. */
  listForWorkspace(workspaceId: number): Promise<LeadList[]>;
  /** One page of a list's members in the requested order, read from the list's own items only. */
  queryMembers(list: LeadList, query: MemberPageQuery): Promise<MemberPage>;
}

/**
 * One lead's change, written atomically together with its list memberships, its identity guards
 * and the counters of the lists it joins or leaves. Memberships follow `after.listIds`.
 */
export interface LeadChange {
  /** Undefined for a new lead. The write is conditional on `before.version`. */
  before?: Lead;
  after: Lead;
  /** What the lead's list members carry: sort and filter values, and the page's view. */
  member: MemberState;
  /** Identities to claim for the lead (`url:...`, `email:...`, `domain:...`, `name:...`). */
  claim: string[];
  /** Identities the lead gives up. */
  release: string[];
  /** Rewrite the members of the lists the lead stays in (their projection changed). */
  refreshMembers: boolean;
  /** The import row's fingerprint to record on the lead's primary identity guard. */
  stamp?: FingerprintStamp;
  /** A prospect's move into, out of or between campaigns, written in the same transaction as it. */
  campaign?: CampaignMove;
}

/**
 * What a prospect's change does to campaigns, atomically with the prospect (conditional on its
 * version): the campaign prospect item of the campaign it leaves is deleted and the one of the
 * campaign it enters is put, and each campaign's `prospectCount` moves by the same amount in the
 * same transaction. Only for a prospect that exists already (`before`).
 */
export interface CampaignMove {
  /** The campaign the prospect leaves (its `campaignId` before). */
  leave?: number;
  /**
   * The prospect's action in the campaign it leaves, as read just before the write, when it holds a
   * slot reserved in that campaign's daily cap or a place in line past it: the write deletes the
   * action only at this version, so the slot is given back, or the place handed on, exactly once
   * (shared/domain/engine/held-slots.ts).
   */
  leaving?: HeldSlot;
  /** Its place in the campaign it enters (its `campaignId` after). */
  enter?: CampaignProspect;
  /**
   * The status a campaign must still have when the write lands (as read when the move was
   * planned): otherwise the write fails like a concurrent change and is planned again.
   */
  expect?: { campaignId: number; status: CampaignStatus };
  /**
   * The outreach engine moved the prospect's status in the campaign it stays in: its campaign
   * prospect item takes the same status (and the error that ended its sequence, if any).
   */
  progress?: { campaignId: number; status: ProspectStatus; lastError: string | null; at: string };
}

/** `conflict`: the lead or an identity changed meanwhile; `list_full`: a list it joins is at its maximum. */
export type ChangeOutcome = 'applied' | 'conflict' | 'list_full';

export interface WorkspaceLeadsPageQuery {
  /** Only leads with a greater id; from the first when absent. */
  after?: number;
  /** At most this many leads (fewer when the read reaches DynamoDB's 1 MB page). */
  limit: number;
}

export interface WorkspaceLeadsPage<T> {
  items: T[];
  /** The id of the last lead read when the workspace may hold more; absent at its end. */
  lastId?: number;
}

export interface LeadRepository {
  /** Prospects by id, in any workspace: the caller checks ownership. Unknown ids are left out. */
  getProspects(ids: number[], options?: { consistent?: boolean }): Promise<Prospect[]>;
  /** Strongly consistent unless `consistent: false`. */
  getCompanies(ids: number[], options?: { consistent?: boolean }): Promise<Company[]>;
  /** The owners (lead ids) of those identities in the workspace that are taken. */
  findIdentities(workspaceId: number, kind: 'PROSPECT' | 'COMPANY', identities: string[]): Promise<Map<string, number>>;
  /** Applies changes, each atomically; the outcome of each, in order. */
  save(changes: LeadChange[], options: { maxLeadsPerList: number }): Promise<ChangeOutcome[]>;
  /**
   * Applies a change of a prospect that its lists' digests do not see (its status: no sort or
   * filter value, company or campaign changes): the prospect and its campaign prospect item in one
   * transaction (conditional on `before.version`), then its view in each of its lists. No batch is
   * opened (no list item, digest or journal is written). `conflict`: the prospect changed meanwhile.
   */
  saveViewOnly(change: LeadChange): Promise<'applied' | 'conflict'>;
  /**
   * Puts the prospect's views in its lists unless they already hold its version or a newer one:
   * what a repeated status write does, in case the first was interrupted before its views.
   */
  repairViews(prospect: Prospect, member: MemberState): Promise<void>;
  /**
   * Up to `limit` of the workspace's prospects (archived ones included) with ids above `after`, in
   * id order. `lastId` is the id to continue after; absent when the workspace has no more.
   */
  workspaceProspectsPage(workspaceId: number, page: WorkspaceLeadsPageQuery): Promise<WorkspaceLeadsPage<Prospect>>;
  /** The same for the workspace's companies. */
  workspaceCompaniesPage(workspaceId: number, page: WorkspaceLeadsPageQuery): Promise<WorkspaceLeadsPage<Company>>;
  /**
   * The companies' prospects that are members of lists, by company; `complete` is false when a
   * batch of writes was still open on one of the lists read (it may add more).
   */
  prospectsOfCompanies(companies: Company[]): Promise<{ byCompany: Map<number, Prospect[]>; complete: boolean }>;
  /** Finishes the workspace's batches of writes interrupted past their lease; true when it finished any. */
  settleStaleWrites(workspaceId: number): Promise<boolean>;
  /** Records that every member of the company's prospects carries `company.version`. */
  markCompanyMembersSynced(company: Company): Promise<void>;
  /**
   * The fingerprints on the guards of these prospect identities, and which identities have no guard
   * (eventually consistent: confirm a fingerprint before use; an identity taken a moment ago may
   * still show as unclaimed, which its claim's condition catches).
   */
  findFingerprints(workspaceId: number, identities: string[]): Promise<{ prints: Map<string, Fingerprint>; unclaimed: Set<string> }>;
  /**
   * Checks, without reading them, that each fingerprint's prospect and company are still at its
   * versions (in the workspace); returns the owners whose check failed.
   */
  confirmUnchanged<O>(checks: { owner: O; workspaceId: number; fingerprint: Fingerprint }[]): Promise<Set<O>>;
  /** Records fingerprints on prospect identity guards still held by their lead. */
  stampFingerprints(workspaceId: number, stamps: FingerprintStamp[]): Promise<void>;
}

/** How many leads a workspace has: prospects that are not archived, and companies. */
export interface LeadCounts {
  prospects: number;
  companies: number;
}

/** The workspace's lead counts, kept exact by the lead writes themselves (0 and 0 for a workspace without leads). */
export interface WorkspaceLeadCounts {
  get(workspaceId: number): Promise<LeadCounts>;
}

/** A person as the directory returns it, in import field names (`company_*` for the company). */
export type DirectoryPerson = Record<string, string | undefined> & { first_name: string; last_name: string };
/** A company as the directory returns it, in import field names. */
export type DirectoryCompany = Record<string, string | undefined> & { name: string };

export interface DirectorySearch {
  filters: SearchFilters;
  page: number;
  pageSize: number;
}

/** The B2B people and company directory that searches run against. */
export interface DirectoryProvider {
  searchPeople(search: DirectorySearch): Promise<{ total: number; people: DirectoryPerson[] }>;
  searchCompanies(search: DirectorySearch): Promise<{ total: number; companies: DirectoryCompany[] }>;
}

export interface SearchUsageRepository {
  /** Counts one search in the month if fewer than `limit` were counted; false when the quota is used up. */
  reserve(workspaceId: number, month: string, limit: number): Promise<boolean>;
  /** Gives back a search that did not happen (the provider failed). */
  release(workspaceId: number, month: string): Promise<void>;
}
