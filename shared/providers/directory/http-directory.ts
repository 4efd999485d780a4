import { DomainError } from '../../domain/errors';
import type { DirectoryCompany, DirectoryPerson, DirectoryProvider, DirectorySearch } from '../../domain/leads/ports';
import type { SearchFilters } from '../../domain/leads/search-filters';

/**
 * The B2B directory over HTTP. Speaks the directory's wire protocol (documented in
 * docs/lead-lists.md): our filter keys become its filter names, its people and organizations
 * become rows in our import field names. Locally it talks to the sandbox directory.
 */

const PEOPLE_FILTER_NAMES: Record<string, string> = {
  job_title: 'titles',
  seniority: 'seniorities',
  department: 'departments',
  company_name: 'company_names',
  company_size: 'company_sizes',
  industry: 'industries',
  location: 'locations',
  keywords: 'keywords',
};

const COMPANY_FILTER_NAMES: Record<string, string> = {
  name: 'names',
  industry: 'industries',
  location: 'locations',
  company_size: 'sizes',
  revenue: 'revenues',
  keywords: 'keywords',
};

interface WireOrganization {
  name?: string;
  website_url?: string;
  linkedin_url?: string;
  industry?: string;
  employee_range?: string;
  revenue_range?: string;
  location?: string;
  logo_url?: string;
}

interface WirePerson {
  first_name?: string;
  last_name?: string;
  title?: string;
  seniority?: string;
  department?: string;
  headline?: string;
  location?: string;
  email?: string | null;
  phone?: string | null;
  linkedin_url?: string;
  photo_url?: string;
  organization?: WireOrganization | null;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function toCompany(org: WireOrganization): DirectoryCompany {
  return {
    name: str(org.name) ?? '',
    website_url: str(org.website_url),
    network_url: str(org.linkedin_url),
    industry: str(org.industry),
    amount_of_employees: str(org.employee_range),
    revenue: str(org.revenue_range),
    location: str(org.location),
    logo_url: str(org.logo_url),
  };
}

function toPerson(person: WirePerson): DirectoryPerson {
  const company = person.organization ? toCompany(person.organization) : undefined;
  return {
    first_name: str(person.first_name) ?? '',
    last_name: str(person.last_name) ?? '',
    job_title: str(person.title),
    seniority: str(person.seniority),
    department: str(person.department),
    headline: str(person.headline),
    location: str(person.location),
    email: str(person.email),
    phone_number: str(person.phone),
    network_profile_url: str(person.linkedin_url),
    profile_picture_url: str(person.photo_url),
    ...(company ? Object.fromEntries(Object.entries(company).map(([key, value]) => [`company_${key}`, value])) : {}),
  };
}

function wireFilters(filters: SearchFilters, names: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(filters).map(([key, clause]) => [names[key] ?? key, { include: clause.any, exclude: clause.none }]),
  );
}

export interface HttpDirectoryOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
}

export class HttpDirectoryProvider implements DirectoryProvider {
  constructor(private readonly options: HttpDirectoryOptions) {}

  async searchPeople(search: DirectorySearch): Promise<{ total: number; people: DirectoryPerson[] }> {
    const body = await this.post('/v1/people/search', search, PEOPLE_FILTER_NAMES);
    const people = Array.isArray(body.people) ? (body.people as WirePerson[]) : [];
    return { total: this.total(body), people: people.map(toPerson) };
  }

  async searchCompanies(search: DirectorySearch): Promise<{ total: number; companies: DirectoryCompany[] }> {
    const body = await this.post('/v1/companies/search', search, COMPANY_FILTER_NAMES);
    const organizations = Array.isArray(body.organizations) ? (body.organizations as WireOrganization[]) : [];
    return { total: this.total(body), companies: organizations.map(toCompany) };
  }

  private total(body: Record<string, unknown>): number {
    const total = Number((body.pagination as { total_entries?: unknown } | undefined)?.total_entries);
    return Number.isSafeInteger(total) && total >= 0 ? total : 0;
  }

  private async post(path: string, search: DirectorySearch, names: Record<string, string>): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.options.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': this.options.apiKey },
        body: JSON.stringify({ page: search.page, per_page: search.pageSize, filters: wireFilters(search.filters, names) }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? 'the directory did not answer in time' : 'the directory could not be reached';
      throw new DomainError('upstream', `Directory search failed: ${reason}`);
    }
    if (!response.ok) {
      throw new DomainError('upstream', `Directory search failed: the directory answered HTTP ${response.status}`);
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (typeof body !== 'object' || body === null) throw new DomainError('upstream', 'Directory search failed: the directory sent an unreadable answer');
    return body as Record<string, unknown>;
  }
}
