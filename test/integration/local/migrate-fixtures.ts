import {
  companiesByWorkspace,
  companyKey,
  leadListKey,
  listMemberKey,
  padId,
  prospectKey,
  prospectsByCompany,
  prospectsByWorkspace,
} from '../../../shared/db/keys';

/** The items of a table written by the layout before the member digest (migrate.test.ts), for one workspace. */
// Far above the ids the stack's allocator hands out in this table.
export const PEOPLE_LIST = 10_000_001;
export const COMPANY_LIST = 10_000_002;
export const ACME = 10_000_101;
export const BETA = 10_000_102;
export const ADA = 10_000_201;
export const GRACE = 10_000_202;
export const ALAN = 10_000_203;
export const ARCHIE = 10_000_204;

export const at = (day: number) => `2024-01-0${day}T10:00:00.000Z`;

export interface OldCompany {
  id: number;
  name: string;
  websiteUrl: string;
  domain: string;
  industry: string;
  location: string;
  amountOfEmployees: string;
  revenue: string;
}

export interface OldProspect {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  jobTitle: string;
  location: string;
  companyId?: number;
  status: string;
  listIds: number[];
  createdAt: string;
}

export const companies: OldCompany[] = [
  {
    id: ACME,
    name: 'Acme Corp',
    websiteUrl: 'https://acme.example',
    domain: 'acme.example',
    industry: 'Software',
    location: 'Berlin',
    amountOfEmployees: '51-200',
    revenue: '$10M-$50M',
  },
  {
    id: BETA,
    name: 'Beta Freight',
    websiteUrl: 'https://beta.example',
    domain: 'beta.example',
    industry: 'Logistics',
    location: 'Hamburg',
    amountOfEmployees: '11-50',
    revenue: '$1M-$10M',
  },
];

export const prospects: OldProspect[] = [
  { id: ADA, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@acme.example', jobTitle: 'Engineer', location: 'London', companyId: ACME, status: 'NEW', listIds: [PEOPLE_LIST], createdAt: at(1) },
  { id: GRACE, firstName: 'Grace', lastName: 'Hopper', email: 'grace@navy.example', jobTitle: 'Rear Admiral', location: 'Arlington', status: 'NEW', listIds: [PEOPLE_LIST], createdAt: at(2) },
  { id: ALAN, firstName: 'Alan', lastName: 'Turing', email: 'alan@beta.example', jobTitle: 'Mathematician', location: 'Manchester', companyId: BETA, status: 'NEW', listIds: [PEOPLE_LIST], createdAt: at(3) },
  // Archived (deleted from the list): in no list, not counted; its old member item was left behind.
  { id: ARCHIE, firstName: 'Archie', lastName: 'Ved', email: 'archie@example.com', jobTitle: 'Clerk', location: 'Leeds', status: 'ARCHIVED', listIds: [], createdAt: at(4) },
];

export const fold = (value: string) => value.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
/** An LSI sort key of the old layout: folded value, separator, padded id. */
export const oldSortKey = (value: string, id: number) => `${fold(value)}\u0001${padId(id)}`;

/** The items exactly as the code before the member digest wrote them. */
export function oldLayout(workspaceId: number): Record<string, unknown>[] {
  const companyOf = (id: number | undefined) => companies.find((c) => c.id === id);
  return [
    {
      ...leadListKey(workspaceId, PEOPLE_LIST),
      entityType: 'LeadList',
      id: PEOPLE_LIST,
      workspaceId,
      name: 'Pioneers',
      searchType: 'PEOPLE',
      status: 'ACTIVE',
      totalProspects: 3,
      createdAt: at(1),
      updatedAt: at(4),
    },
    {
      ...leadListKey(workspaceId, COMPANY_LIST),
      entityType: 'LeadList',
      id: COMPANY_LIST,
      workspaceId,
      name: 'Accounts',
      searchType: 'COMPANY',
      status: 'ACTIVE',
      totalProspects: 2,
      // A token whose journal is gone: dropped.
      openJournals: new Set(['journal-long-gone']),
      createdAt: at(1),
      updatedAt: at(2),
    },
    ...companies.map((c) => ({
      ...companyKey(c.id),
      ...companiesByWorkspace(workspaceId, c.id),
      entityType: 'Company',
      workspaceId,
      ...c,
      listIds: new Set([COMPANY_LIST]),
      version: 1,
      membersSyncedVersion: 1,
      createdAt: at(1),
      updatedAt: at(1),
    })),
    ...prospects.map((p) => ({
      ...prospectKey(p.id),
      ...prospectsByWorkspace(workspaceId, p.id),
      ...(p.companyId === undefined ? {} : prospectsByCompany(p.companyId, p.id)),
      entityType: 'Prospect',
      workspaceId,
      ...p,
      listIds: p.listIds.length ? new Set(p.listIds) : undefined,
      version: p.status === 'ARCHIVED' ? 2 : 1,
      updatedAt: p.createdAt,
    })),
    // Old PEOPLE members (Archie's is stale: he left the list).
    ...prospects.map((p) => {
      const company = companyOf(p.companyId);
      return {
        ...listMemberKey(PEOPLE_LIST, p.id),
        entityType: 'ListMember',
        workspaceId,
        listId: PEOPLE_LIST,
        leadId: p.id,
        lsi1sk: oldSortKey(p.firstName, p.id),
        lsi2sk: oldSortKey(p.lastName, p.id),
        lsi3sk: oldSortKey(p.jobTitle, p.id),
        lsi4sk: oldSortKey(p.location, p.id),
        lsi5sk: `${p.createdAt}\u0001${padId(p.id)}`,
        f_first_name: fold(p.firstName),
        f_last_name: fold(p.lastName),
        f_email: p.email,
        f_job_title: fold(p.jobTitle),
        f_location: fold(p.location),
        ...(company
          ? { f_company_name: fold(company.name), f_company_industry: fold(company.industry), f_industry: fold(company.industry), f_company_location: fold(company.location) }
          : {}),
      };
    }),
    ...companies.map((c) => ({
      ...listMemberKey(COMPANY_LIST, c.id),
      entityType: 'ListMember',
      workspaceId,
      listId: COMPANY_LIST,
      leadId: c.id,
      lsi1sk: oldSortKey(c.name, c.id),
      lsi2sk: oldSortKey(c.industry, c.id),
      lsi3sk: `N${'0'.repeat(16)}\u0001${padId(c.id)}`,
      lsi4sk: oldSortKey(c.location, c.id),
      lsi5sk: `N${'0'.repeat(16)}\u0001${padId(c.id)}`,
      f_name: fold(c.name),
      f_industry: fold(c.industry),
      f_location: fold(c.location),
      f_website_url: c.websiteUrl,
    })),
  ];
}
