/**
 * SANDBOX: a fake B2B people/company directory speaking the wire protocol the directory adapter
 * (shared/providers/directory/http-directory.ts) talks, over real HTTP, backed by the generated
 * data set in ./data.ts. Started by the local stack; never used in AWS.
 *
 * POST /v1/people/search     {page, per_page, filters} -> {pagination, people}
 * POST /v1/companies/search  {page, per_page, filters} -> {pagination, organizations}
 * A filter is {include: string[], exclude: string[]}; text filters match by case-insensitive
 * "contains", seniorities/departments/sizes by whole value. Requests need `X-Api-Key`.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type SandboxCompany, type SandboxPerson, sandboxData } from './data';

export const SANDBOX_DIRECTORY_API_KEY = 'sandbox-directory-key';
const MAX_PER_PAGE = 100;

interface WireFilter {
  include?: string[];
  exclude?: string[];
}

const fold = (value: string) =>
  value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .trim();

type Facets = Record<string, { values: string[]; exact?: boolean }>;

const personFacets = (p: SandboxPerson): Facets => ({
  titles: { values: [p.title] },
  seniorities: { values: [p.seniority], exact: true },
  departments: { values: [p.department], exact: true },
  company_names: { values: [p.organization.name] },
  company_sizes: { values: [p.organization.employee_range], exact: true },
  industries: { values: [p.organization.industry] },
  locations: { values: [p.location] },
  keywords: { values: [p.headline, p.title, p.organization.name, p.organization.industry, p.first_name, p.last_name] },
});

const companyFacets = (c: SandboxCompany): Facets => ({
  names: { values: [c.name] },
  industries: { values: [c.industry] },
  locations: { values: [c.location] },
  sizes: { values: [c.employee_range], exact: true },
  revenues: { values: [c.revenue_range] },
  keywords: { values: [c.name, c.industry, c.domain, c.location] },
});

function matches(facets: Facets, filters: Record<string, WireFilter>): boolean {
  for (const [key, filter] of Object.entries(filters)) {
    const facet = facets[key];
    if (!facet) throw new Error(`unknown filter ${key}`);
    const values = facet.values.map(fold);
    const hit = (wanted: string) => values.some((value) => (facet.exact ? value === fold(wanted) : value.includes(fold(wanted))));
    if (filter.include?.length && !filter.include.some(hit)) return false;
    if (filter.exclude?.some(hit)) return false;
  }
  return true;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('body must be an object');
  return parsed as Record<string, unknown>;
}

export interface SandboxDirectory {
  url: string;
  apiKey: string;
  /** Searches served, for tests that check how often the provider was asked. */
  requests: number;
  stop(): Promise<void>;
}

export async function startSandboxDirectory(options: { port?: number; host?: string; apiKey?: string } = {}): Promise<SandboxDirectory> {
  const apiKey = options.apiKey ?? SANDBOX_DIRECTORY_API_KEY;
  const state = { requests: 0 };
  const server: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || (req.url !== '/v1/people/search' && req.url !== '/v1/companies/search')) {
      return send(res, 404, { error: 'not found' });
    }
    if (req.headers['x-api-key'] !== apiKey) return send(res, 401, { error: 'invalid api key' });
    let body: Record<string, unknown>;
    try {
      body = await readJson(req);
    } catch (error) {
      return send(res, 400, { error: `invalid JSON body: ${(error as Error).message}` });
    }
    const page = Number(body.page ?? 1);
    const perPage = Number(body.per_page ?? 25);
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) {
      return send(res, 400, { error: `page must be >= 1 and per_page between 1 and ${MAX_PER_PAGE}` });
    }
    const filters = (body.filters ?? {}) as Record<string, WireFilter>;
    state.requests += 1;
    const data = sandboxData();
    try {
      const offset = (page - 1) * perPage;
      if (req.url === '/v1/people/search') {
        const found = data.people.filter((person) => matches(personFacets(person), filters));
        return send(res, 200, {
          pagination: { page, per_page: perPage, total_entries: found.length },
          people: found.slice(offset, offset + perPage),
        });
      }
      const found = data.companies.filter((company) => matches(companyFacets(company), filters));
      return send(res, 200, {
        pagination: { page, per_page: perPage, total_entries: found.length },
        organizations: found.slice(offset, offset + perPage),
      });
    } catch (error) {
      return send(res, 400, { error: (error as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    apiKey,
    get requests() {
      return state.requests;
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
