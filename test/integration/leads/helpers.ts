import { expect } from 'vitest';
import type { LocalStackOptions } from '../../../infra/local/local-stack';
import { aTimestamp, anId } from '../../support/formats';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

export interface LeadListView {
  id: number;
  name: string;
  description: string;
  total_prospects: number;
  status: string;
  search_type: string;
  created_at: string;
  updated_at: string;
}

export interface ProspectView {
  id: number;
  first_name: string;
  last_name: string;
  email: string;
  network_profile_url: string;
  job_title: string;
  location: string;
  status: string;
  campaign_id: number | null;
  company: Record<string, unknown> | null;
  created_at: string;
  [key: string]: unknown;
}

export interface CompanyView {
  id: number;
  name: string;
  industry: string;
  location: string;
  amount_of_employees: string;
  revenue: string;
  [key: string]: unknown;
}

export interface LeadsPage {
  success: boolean;
  search_type: string;
  total_count: number;
  page: number;
  page_size: number;
  prospects?: ProspectView[];
  companies?: CompanyView[];
}

/** A workspace reached through one API key. */
export interface Workspace {
  key: string;
  workspaceId: number;
  user?: SignedUpUser;
}

/** A stack for one test file (no per-key rate limit in the way) and two independent workspaces. */
export async function leadsStack(options: LocalStackOptions = {}): Promise<{ stack: TestStack; alice: Workspace; bob: Workspace }> {
  const stack = await startTestStack({ rateLimitPerMinute: 100_000, ...options });
  const workspace = async (): Promise<Workspace> => {
    const user = await signUp(stack);
    return { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId, user };
  };
  return { stack, alice: await workspace(), bob: await workspace() };
}

export async function createList(stack: TestStack, ws: Workspace, name: string, searchType?: 'PEOPLE' | 'COMPANY'): Promise<LeadListView> {
  const response = await stack.call<{ lead_list: LeadListView }>('POST', '/public/lead-lists/', {
    apiKey: ws.key,
    body: { name, ...(searchType ? { search_type: searchType } : {}) },
  });
  expect(response.status).toBe(201);
  return response.body.lead_list;
}

export interface ImportResponse {
  success: boolean;
  search_type: string;
  total_rows: number;
  created: number;
  updated: number;
  skipped: number;
  skipped_rows: { row: number; reason: string }[];
  leads: { row: number; id: number; status: string }[];
  total_prospects: number;
}

export async function importLeads(stack: TestStack, ws: Workspace, listId: number, body: unknown): Promise<ImportResponse> {
  const response = await stack.call<ImportResponse>('POST', `/public/lead-lists/${listId}/import/`, { apiKey: ws.key, body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function leadsOf(stack: TestStack, ws: Workspace, listId: number, query = ''): Promise<LeadsPage> {
  const response = await stack.call<LeadsPage>('GET', `/public/lead-lists/${listId}/leads/${query ? `?${query}` : ''}`, { apiKey: ws.key });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function getList(stack: TestStack, ws: Workspace, listId: number): Promise<LeadListView | undefined> {
  const response = await stack.call<{ searches: LeadListView[] }>('GET', '/public/lead-lists/', { apiKey: ws.key });
  return response.body.searches.find((list) => list.id === listId);
}

/** A PEOPLE import row with a unique profile URL. */
export function person(n: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: `First${n}`,
    last_name: `Last${n}`,
    network_profile_url: `https://www.linkedin.com/in/person-${n}`,
    ...overrides,
  };
}

/**
 * A prospect exactly as list-leads and search answer it: every field the spec lists, missing
 * text as "", no company, a generated id and ISO timestamps unless given.
 */
export function expectedProspect(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id: anId(),
    first_name: '',
    last_name: '',
    email: '',
    phone_number: '',
    network_profile_url: '',
    job_title: '',
    location: '',
    headline: '',
    industry: '',
    profile_picture_url: '',
    custom_fields: {},
    status: 'NEW',
    campaign_id: null,
    company: null,
    created_at: aTimestamp(),
    updated_at: aTimestamp(),
    ...fields,
  };
}

/** The company summary a prospect carries. */
export function expectedCompanySummary(fields: Record<string, unknown>): Record<string, unknown> {
  return { id: anId(), name: '', website_url: '', network_url: '', industry: '', location: '', amount_of_employees: '', ...fields };
}

/** A company as a COMPANY list and company search answer it. */
export function expectedCompany(fields: Record<string, unknown>): Record<string, unknown> {
  return { ...expectedCompanySummary({}), logo_url: '', revenue: '', ...fields };
}

/** An import answer with its defaults (PEOPLE, nothing skipped). */
export function expectedImport(fields: Record<string, unknown>): Record<string, unknown> {
  return { success: true, search_type: 'PEOPLE', updated: 0, skipped: 0, skipped_rows: [], ...fields };
}
