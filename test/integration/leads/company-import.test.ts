import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../../support/test-stack';
import { anId } from '../../support/formats';
import {
  type Workspace,
  createList,
  expectedCompany,
  expectedCompanySummary,
  expectedImport,
  importLeads,
  leadsOf,
  leadsStack,
  person,
} from './helpers';

/** Importing rows into a COMPANY list. */
describe('import into a COMPANY list', () => {
  let stack: TestStack;
  let alice: Workspace;

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  it('turns rows into companies, matched by domain or network URL, updated in place', async () => {
    const list = await createList(stack, alice, 'Accounts', 'COMPANY');
    const first = await importLeads(stack, alice, list.id, {
      leads: [
        { name: 'Acme', website_url: 'https://www.acme.example', industry: 'Software', amount_of_employees: '51-200', revenue: '$1M-$10M' },
        { company_name: 'Beta', company_network_url: 'https://www.linkedin.com/company/beta/', company_location: 'Berlin' },
        { industry: 'No name' },
        { name: 'Acme again', website_url: 'acme.example' },
      ],
    });
    expect(first).toEqual(
      expectedImport({
        search_type: 'COMPANY',
        total_rows: 4,
        created: 2,
        updated: 0,
        skipped: 2,
        skipped_rows: first.skipped_rows,
        leads: [
          { row: 1, id: anId(), status: 'created' },
          { row: 2, id: anId(), status: 'created' },
        ],
        total_prospects: 2,
      }),
    );
    expect(first.skipped_rows).toEqual([
      { row: 3, reason: 'name is required' },
      { row: 4, reason: 'duplicate of row 1 (same domain, network_url or name)' },
    ]);
    const updated = await importLeads(stack, alice, list.id, {
      csv: 'name,website_url,industry,location\nAcme Corp,http://acme.example/about,Fintech,Paris',
    });
    expect(updated).toEqual(
      expectedImport({ search_type: 'COMPANY', total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id: first.leads[0]?.id, status: 'updated' }], total_prospects: 2 }),
    );
    expect(updated.leads[0]?.id).toBe(first.leads[0]?.id);
    const page = await leadsOf(stack, alice, list.id);
    expect(page.companies?.find((c) => c.id === first.leads[0]?.id)).toEqual(
      expectedCompany({
        id: first.leads[0]?.id,
        name: 'Acme Corp',
        // The row's non-empty values replace the stored ones.
        website_url: 'http://acme.example/about',
        industry: 'Fintech',
        location: 'Paris',
        amount_of_employees: '51-200',
        revenue: '$1M-$10M',
      }),
    );
    expect(page.companies?.find((c) => c.id === first.leads[1]?.id)).toEqual(
      expectedCompany({
        id: first.leads[1]?.id,
        name: 'Beta',
        network_url: 'https://www.linkedin.com/company/beta',
        location: 'Berlin',
      }),
    );
    expect((await leadsOf(stack, alice, list.id, 'industry=fintech')).total_count).toBe(1);
  });

  it('a row without a name updates a company without renaming it to its domain; the domain names only a company it creates', async () => {
    const list = await createList(stack, alice, 'Nameless rows', 'COMPANY');
    const first = await importLeads(stack, alice, list.id, { leads: [{ name: 'Gamma Corp', website_url: 'https://gamma.example', industry: 'Software' }] });
    const updated = await importLeads(stack, alice, list.id, {
      leads: [
        { website_url: 'https://gamma.example', location: 'Berlin' },
        { website_url: 'https://delta.example', location: 'Oslo' },
      ],
    });
    expect(updated.leads).toEqual([
      { row: 1, id: first.leads[0]?.id, status: 'updated' },
      { row: 2, id: anId(), status: 'created' },
    ]);
    const companies = (await leadsOf(stack, alice, list.id)).companies?.map((c) => [c.name, c.industry, c.location]);
    expect(companies?.sort()).toEqual([
      ['Gamma Corp', 'Software', 'Berlin'],
      ['delta.example', '', 'Oslo'],
    ]);
  });

  it("a person's company known by its network page alone is named by the page's slug until a COMPANY row names it", async () => {
    const people = await createList(stack, alice, 'Companies by page', 'PEOPLE');
    const page = 'https://www.linkedin.com/company/epsilon-labs/';
    const canonical = 'https://www.linkedin.com/company/epsilon-labs';
    await importLeads(stack, alice, people.id, { leads: [person(41, { company: { network_url: page } })] });
    const companiesOfPeople = async () => (await leadsOf(stack, alice, people.id)).prospects?.map((p) => [p.company?.name, p.company?.network_url]);
    expect(await companiesOfPeople()).toEqual([['epsilon-labs', canonical]]);
    const companies = await createList(stack, alice, 'Named companies', 'COMPANY');
    await importLeads(stack, alice, companies.id, { leads: [{ name: 'Epsilon Labs', network_url: page }] });
    await importLeads(stack, alice, people.id, { leads: [person(42, { company: { network_url: page } })] });
    expect(await companiesOfPeople()).toEqual([
      ['Epsilon Labs', canonical],
      ['Epsilon Labs', canonical],
    ]);
  });

  it('a company update reaches the filters of PEOPLE lists holding its prospects', async () => {
    const people = await createList(stack, alice, 'People at Zeta');
    const accounts = await createList(stack, alice, 'Zeta account', 'COMPANY');
    await importLeads(stack, alice, people.id, {
      leads: [person(1, { company_name: 'Zeta', company_website_url: 'zeta.example', company_industry: 'Mining' }), person(2)],
    });
    expect((await leadsOf(stack, alice, people.id, 'company_industry=mining')).total_count).toBe(1);
    await importLeads(stack, alice, accounts.id, { leads: [{ name: 'Zeta', website_url: 'zeta.example', industry: 'Robotics' }] });
    expect((await leadsOf(stack, alice, people.id, 'company_industry=mining')).total_count).toBe(0);
    const robotics = await leadsOf(stack, alice, people.id, 'company_industry=robotics');
    expect(robotics.prospects?.map((p) => p.first_name)).toEqual(['First1']);
    expect(robotics.prospects?.[0]?.company).toEqual(expectedCompanySummary({ name: 'Zeta', website_url: 'zeta.example', industry: 'Robotics' }));
  });
});
