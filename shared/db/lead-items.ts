import type { Company, LeadList, Prospect, SearchType } from '../domain/leads/lead';
import type { MemberProjection } from '../domain/leads/list-query';
import {
  companiesByWorkspace,
  companyKey,
  leadListKey,
  listMemberKey,
  padId,
  prospectKey,
  prospectsByCompany,
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

export const filterAttribute = (key: string): string => `f_${key}`;

export function memberItem(searchType: SearchType, listId: number, lead: { id: number; workspaceId: number }, projection: MemberProjection) {
  const item: Record<string, unknown> = {
    ...listMemberKey(listId, lead.id),
    entityType: 'ListMember',
    workspaceId: lead.workspaceId,
    listId,
    leadId: lead.id,
  };
  for (const [field, slot] of Object.entries(SORT_INDEX[searchType])) {
    item[slot.attribute] = `${projection.sort[field] ?? ''}${SORT_SEPARATOR}${padId(lead.id)}`;
  }
  for (const [key, value] of Object.entries(projection.filter)) item[filterAttribute(key)] = value;
  return item;
}

const numberSet = (ids: number[]) => (ids.length > 0 ? new Set(ids) : undefined);
const numbers = (value: unknown): number[] => (value instanceof Set ? [...value].map(Number).sort((a, b) => a - b) : []);
const optional = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export function leadListItem(list: LeadList) {
  return { ...leadListKey(list.workspaceId, list.id), entityType: 'LeadList', ...list };
}

export function toLeadList(item: Record<string, unknown>): LeadList {
  return {
    id: Number(item.id),
    workspaceId: Number(item.workspaceId),
    name: String(item.name),
    searchType: item.searchType === 'COMPANY' ? 'COMPANY' : 'PEOPLE',
    status: item.status === 'ACTIVE' ? 'ACTIVE' : 'DRAFT',
    totalProspects: Number(item.totalProspects ?? 0),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
}

export function prospectItem(prospect: Prospect) {
  return {
    ...prospectKey(prospect.id),
    ...prospectsByWorkspace(prospect.workspaceId, prospect.id),
    ...(prospect.companyId === undefined ? {} : prospectsByCompany(prospect.companyId, prospect.id)),
    entityType: 'Prospect',
    ...prospect,
    listIds: numberSet(prospect.listIds),
  };
}

export function toProspect(item: Record<string, unknown>): Prospect {
  const prospect: Prospect = {
    id: Number(item.id),
    workspaceId: Number(item.workspaceId),
    firstName: String(item.firstName ?? ''),
    lastName: String(item.lastName ?? ''),
    status: String(item.status ?? 'NEW'),
    listIds: numbers(item.listIds),
    version: Number(item.version ?? 0),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
  for (const field of [
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
  ] as const) {
    const value = optional(item[field]);
    if (value !== undefined) prospect[field] = value;
  }
  if (typeof item.companyId === 'number') prospect.companyId = item.companyId;
  if (item.customFields && typeof item.customFields === 'object') prospect.customFields = item.customFields as Record<string, unknown>;
  return prospect;
}

export function companyItem(company: Company) {
  return {
    ...companyKey(company.id),
    ...companiesByWorkspace(company.workspaceId, company.id),
    entityType: 'Company',
    ...company,
    listIds: numberSet(company.listIds),
  };
}

export function toCompany(item: Record<string, unknown>): Company {
  const company: Company = {
    id: Number(item.id),
    workspaceId: Number(item.workspaceId),
    name: String(item.name ?? ''),
    listIds: numbers(item.listIds),
    version: Number(item.version ?? 0),
    membersSyncedVersion: Number(item.membersSyncedVersion ?? 0),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
  for (const field of ['websiteUrl', 'networkUrl', 'logoUrl', 'industry', 'location', 'amountOfEmployees', 'revenue', 'domain'] as const) {
    const value = optional(item[field]);
    if (value !== undefined) company[field] = value;
  }
  return company;
}
