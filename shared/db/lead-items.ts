import { brotliDecompressSync } from 'node:zlib';
import * as v from 'valibot';
import { type Company, type LeadList, type LeadListStatus, type Prospect, SEARCH_TYPES, type SearchType } from '../domain/leads/lead';
import type { MemberState } from '../domain/leads/list-query';
import { everyValueOf, idSet, intAttribute, itemSchema, parseItem } from './item-schema';
import {
  companiesByWorkspace,
  companyKey,
  leadListKey,
  listMemberKey,
  padId,
  prospectKey,
  prospectsByWorkspace,
} from './keys';

/**
 * The layout of lead-list items. A list member carries, besides its keys, one LSI sort key per
 * sortable field of its list type and a folded copy of each filterable field (`f_<key>`), so a
 * page of a list is read from the list's partition alone.
 */

/** Which LSI sorts a list's members by which field (`id` is the table's own sort key). */
export const SORT_INDEX: Record<SearchType, Record<string, { index: string; attribute: string }>> = {
  PEOPLE: {
    first_name: { index: 'lsi1', attribute: 'lsi1sk' },
    last_name: { index: 'lsi2', attribute: 'lsi2sk' },
    job_title: { index: 'lsi3', attribute: 'lsi3sk' },
    location: { index: 'lsi4', attribute: 'lsi4sk' },
    created_at: { index: 'lsi5', attribute: 'lsi5sk' },
  },
  COMPANY: {
    name: { index: 'lsi1', attribute: 'lsi1sk' },
    industry: { index: 'lsi2', attribute: 'lsi2sk' },
    revenue: { index: 'lsi3', attribute: 'lsi3sk' },
    location: { index: 'lsi4', attribute: 'lsi4sk' },
    amount_of_employees: { index: 'lsi5', attribute: 'lsi5sk' },
  },
};

/** Lower than any character a folded value holds, so a value sorts before its own extensions. */
const SORT_SEPARATOR = '\u0001';

/**
 * The largest view a member item carries. With it a member item stays under ~3.3 KB (view, five
 * sort keys of at most ~220 bytes, keys), so a full list (100,000 members, each in the table with
 * an entry of its keys in five LSIs) stays under 0.5 GB of its partition's 10 GB item-collection
 * cap (2 GB in a table created with ALL LSIs, which copy it whole).
 */
export const MAX_INLINE_VIEW_BYTES = 2048;

/**
 * A lead's membership of a list, carrying the page's view of the lead (the API object, as JSON)
 * and one LSI sort key per sortable field: a page in any order is one Query that returns the
 * views themselves. `version` is the lead version the view was derived from.
 */
export function memberItem(searchType: SearchType, listId: number, leadId: number, version: number, member: MemberState) {
  const view = JSON.stringify(member.view);
  const item: Record<string, unknown> = {
    ...listMemberKey(listId, leadId),
    entityType: 'ListMember',
    leadId,
    version,
    // A view too large to copy into five indexes stays with the lead: the page reads it there.
    ...(Buffer.byteLength(view) <= MAX_INLINE_VIEW_BYTES ? { view } : {}),
  };
  for (const [field, slot] of Object.entries(SORT_INDEX[searchType])) {
    item[slot.attribute] = `${member.projection.sort[field] ?? ''}${SORT_SEPARATOR}${padId(leadId)}`;
  }
  return item;
}

const numberSet = (ids: number[]) => (ids.length > 0 ? new Set(ids) : undefined);

export function leadListItem(list: LeadList) {
  const { openJournals: _open, ...stored } = list;
  return { ...leadListKey(list.workspaceId, list.id), entityType: 'LeadList', ...stored, capacityClaimed: list.totalProspects };
}

export const LeadListItem = itemSchema(
  'LeadList',
  v.object({
    id: intAttribute,
    workspaceId: intAttribute,
    name: v.string(),
    searchType: v.picklist(SEARCH_TYPES),
    status: v.picklist(everyValueOf<LeadListStatus>({ DRAFT: true, ACTIVE: true })),
    totalProspects: intAttribute,
    /** Members plus the joins that open batches reserved; absent on lists older than it (= totalProspects). */
    capacityClaimed: v.optional(intAttribute),
    /** Tokens of the batches of writes still open on the list. */
    openJournals: v.optional(v.pipe(v.set(v.string()), v.transform((set) => [...set]))),
    createdAt: v.string(),
    updatedAt: v.string(),
  }),
);

export const toLeadList = (item: Record<string, unknown>): LeadList => parseItem(LeadListItem, item);

/** A list member as a page reads it: the lead's id, the version its view was derived from, the view. */
export const ListMemberItem = itemSchema(
  'ListMember',
  v.pipe(
    v.object({ leadId: intAttribute, version: intAttribute, view: v.optional(v.string()) }),
    v.transform(({ leadId, version, view }) => ({
      leadId,
      version,
      ...(view === undefined ? {} : { view: JSON.parse(view) as Record<string, unknown> }),
    })),
  ),
);

/** A chunk of a list's member digest: its revision (for conditional rewrites) and its bytes. */
export const DigestChunkItem = itemSchema('MemberDigest', v.object({ rev: intAttribute, data: v.instance(Uint8Array) }));

/** A batch of lead writes in progress (see shared/db/lead-journal.ts). */
export const LeadJournalItem = itemSchema(
  'LeadJournal',
  v.object({
    token: v.string(),
    workspaceId: intAttribute,
    searchType: v.picklist(SEARCH_TYPES),
    at: v.string(),
    /** Joins reserved per list (list id as a string key). */
    reserved: v.record(v.string(), intAttribute),
    lists: v.array(intAttribute),
    /** Brotli-compressed JSON: every lead id of the batch, and the new leads with their claimed identities. */
    leads: v.pipe(
      v.instance(Uint8Array),
      v.transform((bytes) => JSON.parse(brotliDecompressSync(bytes).toString('utf8')) as unknown),
      v.object({
        leadIds: v.array(intAttribute),
        created: v.array(v.object({ id: intAttribute, identities: v.array(v.string()) })),
      }),
    ),
  }),
);

/**
 * An optional text field of a lead. Writers leave unknown fields out, but an empty string has
 * always meant "not known" too, so it reads as absent.
 */
const optionalText = v.optional(v.string());

const textFields = <K extends string>(names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, optionalText])) as Record<K, typeof optionalText>;

/** Copies the non-empty text fields onto a lead. */
function withText<T extends object>(lead: T, text: Record<string, string | undefined>): T {
  for (const [name, value] of Object.entries(text)) if (value) Object.assign(lead, { [name]: value });
  return lead;
}

export function prospectItem(prospect: Prospect) {
  return {
    ...prospectKey(prospect.id),
    ...prospectsByWorkspace(prospect.workspaceId, prospect.id),
    entityType: 'Prospect',
    ...prospect,
    listIds: numberSet(prospect.listIds),
  };
}

const PROSPECT_TEXT_FIELDS = [
  'email',
  'phoneNumber',
  'networkProfileUrl',
  'jobTitle',
  'location',
  'headline',
  'industry',
  'profilePictureUrl',
  'seniority',
  'department',
  'emailStatus',
  'phoneStatus',
] as const satisfies readonly (keyof Prospect)[];

/** An enrichment job's mark on a prospect it searched and charged for (shared/domain/leads/lead.ts). */
const EnrichmentMarkAttribute = v.object({
  job: intAttribute,
  at: v.string(),
  outcome: v.picklist(['found', 'not_found', 'duplicate']),
  provider: v.optional(v.string()),
  duplicateOf: v.optional(intAttribute),
  value: v.optional(v.string()),
});

export const ProspectItem = itemSchema(
  'Prospect',
  v.pipe(
    v.object({
      id: intAttribute,
      workspaceId: intAttribute,
      companyId: v.optional(intAttribute),
      campaignId: v.optional(intAttribute),
      enrichJob: v.optional(intAttribute),
      emailEnrichment: v.optional(EnrichmentMarkAttribute),
      phoneEnrichment: v.optional(EnrichmentMarkAttribute),
      firstName: v.string(),
      lastName: v.string(),
      status: v.string(),
      listIds: idSet,
      version: intAttribute,
      createdAt: v.string(),
      updatedAt: v.string(),
      customFields: v.optional(v.record(v.string(), v.unknown())),
      ...textFields(PROSPECT_TEXT_FIELDS),
    }),
    v.transform((item): Prospect => {
      const { id, workspaceId, companyId, campaignId, enrichJob, emailEnrichment, phoneEnrichment, firstName, lastName, status, listIds, version, createdAt, updatedAt, customFields, ...text } =
        item;
      const prospect = withText<Prospect>({ id, workspaceId, firstName, lastName, status, listIds, version, createdAt, updatedAt }, text);
      if (companyId !== undefined) prospect.companyId = companyId;
      if (campaignId !== undefined) prospect.campaignId = campaignId;
      if (enrichJob !== undefined) prospect.enrichJob = enrichJob;
      if (emailEnrichment !== undefined) prospect.emailEnrichment = emailEnrichment;
      if (phoneEnrichment !== undefined) prospect.phoneEnrichment = phoneEnrichment;
      if (customFields !== undefined) prospect.customFields = customFields;
      return prospect;
    }),
  ),
);

export const toProspect = (item: Record<string, unknown>): Prospect => parseItem(ProspectItem, item);

export function companyItem(company: Company) {
  return {
    ...companyKey(company.id),
    ...companiesByWorkspace(company.workspaceId, company.id),
    entityType: 'Company',
    ...company,
    listIds: numberSet(company.listIds),
  };
}

const COMPANY_TEXT_FIELDS = [
  'websiteUrl',
  'networkUrl',
  'logoUrl',
  'industry',
  'location',
  'amountOfEmployees',
  'revenue',
  'domain',
] as const satisfies readonly (keyof Company)[];

export const CompanyItem = itemSchema(
  'Company',
  v.pipe(
    v.object({
      id: intAttribute,
      workspaceId: intAttribute,
      name: v.string(),
      listIds: idSet,
      version: intAttribute,
      membersSyncedVersion: intAttribute,
      createdAt: v.string(),
      updatedAt: v.string(),
      ...textFields(COMPANY_TEXT_FIELDS),
    }),
    v.transform((item): Company => {
      const { id, workspaceId, name, listIds, version, membersSyncedVersion, createdAt, updatedAt, ...text } = item;
      return withText({ id, workspaceId, name, listIds, version, membersSyncedVersion, createdAt, updatedAt }, text);
    }),
  ),
);

export const toCompany = (item: Record<string, unknown>): Company => parseItem(CompanyItem, item);

/** A lead identity guard: which lead holds the identity in its workspace. */
export const LeadIdentityItem = itemSchema('LeadIdentity', v.object({ identity: v.string(), leadId: intAttribute }));

/** A prospect identity guard with the fingerprint of the last import row applied through it, if any. */
export const FingerprintedGuardItem = itemSchema(
  'LeadIdentity',
  v.object({
    identity: v.string(),
    leadId: intAttribute,
    fp: v.optional(v.string()),
    fpVersion: v.optional(intAttribute),
    fpCompanyId: v.optional(intAttribute),
    fpCompanyVersion: v.optional(intAttribute),
  }),
);
