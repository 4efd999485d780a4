/**
 * Lead lists and the leads they hold: prospects (PEOPLE lists) and companies (COMPANY lists).
 * Limits are documented in docs/lead-lists.md.
 */

import { pageUrlIdentity } from './normalize';

export const SEARCH_TYPES = ['PEOPLE', 'COMPANY'] as const;

/** Where a prospect search looks: the B2B directory, or the workspace's own leads. */
export const SEARCH_SOURCES = ['DIRECTORY', 'WORKSPACE'] as const;
export type SearchSource = (typeof SEARCH_SOURCES)[number];
export type SearchType = (typeof SEARCH_TYPES)[number];

export type LeadListStatus = 'DRAFT' | 'ACTIVE';

export interface LeadList {
  id: number;
  workspaceId: number;
  name: string;
  searchType: SearchType;
  /** DRAFT on creation; ACTIVE from the first lead added. */
  status: LeadListStatus;
  /** Leads in the list, changed in the same transaction as the membership. */
  totalProspects: number;
  /** Members plus joins reserved by batches still open (see shared/db/lead-journal.ts). */
  capacityClaimed?: number;
  /** Batches of writes still open on the list. */
  openJournals?: string[];
  createdAt: string;
  updatedAt: string;
}

/**
 * A prospect outside any campaign is NEW; ARCHIVED after deletion from a list (kept, in no list
 * and no campaign). Moved into a campaign it is IN_REVIEW (docs/campaigns.md).
 */
export const PROSPECT_STATUS = { new: 'NEW', archived: 'ARCHIVED', inReview: 'IN_REVIEW' } as const;

export interface CompanyFields {
  name: string;
  websiteUrl?: string;
  /** Canonical company page URL on the network. */
  networkUrl?: string;
  logoUrl?: string;
  industry?: string;
  location?: string;
  /** Size range, e.g. `51-200`. */
  amountOfEmployees?: string;
  /** Revenue range, e.g. `$10M-$50M`. */
  revenue?: string;
}

export interface Company extends CompanyFields {
  id: number;
  workspaceId: number;
  /** Lower-case host of websiteUrl without `www.`; the company's primary identity. */
  domain?: string;
  /** COMPANY lists holding the company. */
  listIds: number[];
  /** Incremented on every write; writes are conditional on it. */
  version: number;
  /** The version whose data every list member of its prospects carries (see lead-writer.ts). */
  membersSyncedVersion: number;
  createdAt: string;
  updatedAt: string;
}

export interface ProspectFields {
  firstName: string;
  lastName: string;
  email?: string;
  phoneNumber?: string;
  /** Canonical profile URL. */
  networkProfileUrl?: string;
  jobTitle?: string;
  location?: string;
  headline?: string;
  industry?: string;
  profilePictureUrl?: string;
  /** Known for directory results; searchable in workspace searches. */
  seniority?: string;
  department?: string;
  customFields?: Record<string, unknown>;
}

export interface Prospect extends ProspectFields {
  id: number;
  workspaceId: number;
  companyId?: number;
  status: string;
  /** PEOPLE lists holding the prospect. */
  listIds: number[];
  /** The campaign the prospect is in (one at a time); its place there is a campaign prospect item. */
  campaignId?: number;
  /**
   * The enrichment job that held the prospect while it ran, in the layout before 2026-11-26 (a claim
   * per prospect): shown as 'Loading…' until the job lets go. No job sets it any more.
   */
  enrichJob?: number;
  /** The last email enrichment that searched the prospect and was charged for it (docs/enrichment.md, "Exactly once"). */
  emailEnrichment?: EnrichmentMark;
  /** The same for the phone: a search of one field never stands in for the other's. */
  phoneEnrichment?: EnrichmentMark;
  /** How the email or phone found by enrichment was verified (`verified`, `risky`). */
  emailStatus?: string;
  phoneStatus?: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * What an enrichment job left on a prospect it searched and charged for: which job, when, and what
 * it found. A job that meets another job's mark made after it started skips the prospect (the other
 * charged for it); a redelivery of the same job reads its outcome from it instead of asking again.
 */
export interface EnrichmentMark {
  job: number;
  at: string;
  outcome: 'found' | 'not_found' | 'duplicate';
  provider?: string;
  /** With `duplicate`: the prospect of the workspace that has the email found, and that email. */
  duplicateOf?: number;
  value?: string;
}

/** A prospect's status while an enrichment job holds it; its own status is kept underneath. */
export const LOADING_STATUS = 'Loading…';

export type Lead = Prospect | Company;

export const LIMITS = {
  maxListNameLength: 200,
  defaultPageSize: 25,
  maxPageSize: 100,
  /** Pages of list-leads: ten times the pages of a full list (100,000 leads) at page_size 1. */
  maxPage: 1_000_000,
  /** Ids in one add-leads or delete-leads request. */
  maxIdsPerRequest: 1000,
  /** Rows in one import request. */
  maxImportRows: 1000,
  /** Lists one lead may be in at once: bounds the work of archiving or updating a lead. */
  maxListsPerLead: 20,
  /** Characters of one text field of a lead. */
  maxFieldLength: 1000,
} as const;

/** Every identity a prospect is matched by: canonical profile URL and email. */
export function prospectIdentities(fields: Pick<ProspectFields, 'networkProfileUrl' | 'email'>): string[] {
  return [
    ...(fields.networkProfileUrl ? [`url:${pageUrlIdentity(fields.networkProfileUrl)}`] : []),
    ...(fields.email ? [`email:${fields.email}`] : []),
  ];
}

/** Every identity a company is matched by, strongest first: domain, network URL, name. */
export function companyIdentities(fields: Pick<Company, 'domain' | 'networkUrl' | 'name'>): string[] {
  const name = fields.name.trim().toLowerCase().replace(/\s+/g, ' ');
  return [
    ...(fields.domain ? [`domain:${fields.domain}`] : []),
    ...(fields.networkUrl ? [`url:${pageUrlIdentity(fields.networkUrl)}`] : []),
    ...(name ? [`name:${name.slice(0, 300)}`] : []),
  ];
}

export const isProspect = (lead: Lead): lead is Prospect => 'firstName' in lead;

// ---- API shapes (spec: Lead list, Prospect, Company) ----

export function toLeadListView(list: LeadList) {
  return {
    id: list.id,
    name: list.name,
    description: '',
    total_prospects: list.totalProspects,
    status: list.status,
    search_type: list.searchType,
    created_at: list.createdAt,
    updated_at: list.updatedAt,
  };
}

export function toCompanyView(company: Company) {
  return {
    id: company.id,
    name: company.name,
    website_url: company.websiteUrl ?? '',
    network_url: company.networkUrl ?? '',
    logo_url: company.logoUrl ?? '',
    industry: company.industry ?? '',
    location: company.location ?? '',
    amount_of_employees: company.amountOfEmployees ?? '',
    revenue: company.revenue ?? '',
  };
}

/** A prospect's company as the list-leads response shows it: the company view without logo and revenue. */
export function toCompanySummary(company: Company) {
  const { logo_url: _logo, revenue: _revenue, ...summary } = toCompanyView(company);
  return summary;
}

export function toProspectView(prospect: Prospect, company: Company | undefined) {
  return {
    id: prospect.id,
    first_name: prospect.firstName,
    last_name: prospect.lastName,
    email: prospect.email ?? '',
    phone_number: prospect.phoneNumber ?? '',
    network_profile_url: prospect.networkProfileUrl ?? '',
    job_title: prospect.jobTitle ?? '',
    location: prospect.location ?? '',
    headline: prospect.headline ?? '',
    industry: prospect.industry ?? '',
    profile_picture_url: prospect.profilePictureUrl ?? '',
    custom_fields: prospect.customFields ?? {},
    status: prospect.enrichJob === undefined ? prospect.status : LOADING_STATUS,
    campaign_id: prospect.campaignId ?? null,
    company: company ? toCompanySummary(company) : null,
    created_at: prospect.createdAt,
    updated_at: prospect.updatedAt,
  };
}
