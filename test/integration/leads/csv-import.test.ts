import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../../support/test-stack';
import { anId } from '../../support/formats';
import {
  type ProspectView,
  type Workspace,
  createList,
  expectedCompanySummary,
  expectedImport,
  expectedProspect,
  getList,
  importLeads,
  leadsOf,
  leadsStack,
} from './helpers';

/** Importing CSV into a PEOPLE list: a header of field names, or a column mapping. */
describe('import of CSV into a lead list', () => {
  let stack: TestStack;
  let alice: Workspace;

  const prospectsOf = async (ws: Workspace, listId: number, query = '') =>
    (await leadsOf(stack, ws, listId, query)).prospects ?? ([] as ProspectView[]);

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  it('imports CSV whose header uses field names (any case and spacing); other columns become custom fields', async () => {
    const list = await createList(stack, alice, 'CSV');
    const csv = [
      '\uFEFFFirst Name,last_name,Network Profile URL,EMAIL,Job Title,Company Name,company_website_url,Plan',
      'Ada,Lovelace,https://www.linkedin.com/in/ada-l/,ADA@example.com,"Analyst, Engines",Engines Ltd,engines.example,gold',
      'Alan,Turing,,alan@example.com,,,,',
      ',Nobody,,nobody@example.com,,,,',
    ].join('\r\n');
    const result = await importLeads(stack, alice, list.id, { csv });
    expect(result).toEqual(
      expectedImport({
        total_rows: 3,
        created: 2,
        skipped: 1,
        skipped_rows: [{ row: 3, reason: 'first_name is required' }],
        leads: [
          { row: 1, id: anId(), status: 'created' },
          { row: 2, id: anId(), status: 'created' },
        ],
        total_prospects: 2,
      }),
    );
    const [ada, alan] = await prospectsOf(alice, list.id);
    expect(ada).toEqual(
      expectedProspect({
        id: result.leads[0]?.id,
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.com',
        network_profile_url: 'https://www.linkedin.com/in/ada-l',
        job_title: 'Analyst, Engines',
        custom_fields: { Plan: 'gold' },
        company: expectedCompanySummary({ name: 'Engines Ltd', website_url: 'engines.example' }),
      }),
    );
    expect(alan).toEqual(
      expectedProspect({ id: result.leads[1]?.id, first_name: 'Alan', last_name: 'Turing', email: 'alan@example.com', company: null, custom_fields: {} }),
    );
  });

  it('imports CSV through a column mapping; a null mapping ignores a column', async () => {
    const list = await createList(stack, alice, 'Mapped CSV');
    const csv = 'Given,Family,Profile,Mail,Secret,Tier\nGrace,Hopper,linkedin.com/in/grace-h,grace@example.com,xyz,1';
    const result = await importLeads(stack, alice, list.id, {
      csv,
      mapping: { Given: 'first_name', Family: 'last_name', profile: 'network_profile_url', Mail: 'email', Secret: null, Tier: 'custom_fields.tier' },
    });
    expect(result).toEqual(expectedImport({ total_rows: 1, created: 1, leads: [{ row: 1, id: anId(), status: 'created' }], total_prospects: 1 }));
    const [grace] = await prospectsOf(alice, list.id);
    expect(grace).toEqual(
      expectedProspect({
        id: result.leads[0]?.id,
        first_name: 'Grace',
        last_name: 'Hopper',
        email: 'grace@example.com',
        network_profile_url: 'https://www.linkedin.com/in/grace-h',
        custom_fields: { tier: '1' },
      }),
    );
    expect(JSON.stringify(grace)).not.toContain('xyz');
  });

  it.each([
    [{}, 'leads or csv is required'],
    [{ leads: [], csv: 'a,b' }, 'Send either leads or csv, not both'],
    [{ leads: [{ Email: 'ada@example.com' }], mapping: { Email: 'email' } }, 'mapping applies to csv only: leads are read by their field names'],
    [{ leads: 'nope' }, 'leads must be an array of lead objects'],
    [{ csv: 5 }, 'csv must be a string holding the CSV text'],
    [{ csv: '' }, 'csv must have a header row'],
    [{ csv: 'first_name,last_name\n"unclosed,x' }, 'csv could not be parsed: Quote Not Closed: the parsing is finished with an opening quote at line 2'],
    [
      { csv: 'a,b\n1,2', mapping: { a: 'shoe_size' } },
      "mapping: unknown field 'shoe_size' for column 'a'. Fields: first_name, last_name, network_profile_url, email, phone_number, job_title, location, headline, industry, profile_picture_url, custom_fields.<key>, company_name, company_website_url, company_network_url, company_logo_url, company_industry, company_location, company_amount_of_employees, company_revenue",
    ],
    [{ csv: 'a,b\n1,2', mapping: { c: 'first_name' } }, "mapping: column 'c' is not in the CSV header"],
    [{ csv: 'a,b\n1,2', mapping: ['first_name'] }, 'mapping must be an object of column name -> field name'],
    // A misspelt field is named: it was ignored, and every row read without the mapping.
    [{ csv: 'Vorname,Nachname\nAda,Lovelace', maping: { Vorname: 'first_name' } }, 'maping is not a field of a lead list import (fields: leads, csv, mapping)'],
  ])('refuses %j with 400', async (body, error) => {
    const list = await createList(stack, alice, 'Import errors');
    const response = await stack.call('POST', `/public/lead-lists/${list.id}/import/`, { apiKey: alice.key, body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error });
    expect((await getList(stack, alice, list.id))?.total_prospects).toBe(0);
  });

  it('reads the headers other tools export (lemlist, Apollo) without a mapping', async () => {
    const list = await createList(stack, alice, 'Exported elsewhere');
    const csv = [
      'firstName,lastName,email,linkedinUrl,companyName,Title,Website,Person Linkedin Url,Source',
      'Grace,Hopper,grace.exported@navy.example,https://www.linkedin.com/in/grace-hopper-export,Navy,Rear Admiral,https://navy.example,,lemlist',
      'Katherine,Johnson,,,NASA,Mathematician,,https://www.linkedin.com/in/katherine-exported,apollo',
    ].join('\n');
    const result = await importLeads(stack, alice, list.id, { csv });
    expect([result.created, result.skipped]).toEqual([2, 0]);
    const people = (await prospectsOf(alice, list.id)).map((p) => [p.first_name, p.last_name, p.email, p.network_profile_url, p.job_title, p.company?.name, p.company?.website_url, p.custom_fields]);
    expect(people).toEqual([
      ['Grace', 'Hopper', 'grace.exported@navy.example', 'https://www.linkedin.com/in/grace-hopper-export', 'Rear Admiral', 'Navy', 'https://navy.example', { Source: 'lemlist' }],
      ['Katherine', 'Johnson', '', 'https://www.linkedin.com/in/katherine-exported', 'Mathematician', 'NASA', '', { Source: 'apollo' }],
    ]);
  });

  it('reads a semicolon-separated spreadsheet export, its rows of empty cells being no rows', async () => {
    const list = await createList(stack, alice, 'Semicolons');
    const csv = ['Vorname;Nachname;E-Mail;Firma;# Employees;Notiz', 'Anna;Schmidt;anna@beispiel.example;Beispiel GmbH;11-50;"Termin, Montag"', ';;;;;', ';;;;;'].join('\r\n');
    const result = await importLeads(stack, alice, list.id, { csv, mapping: { Vorname: 'first_name', Nachname: 'last_name', 'E-Mail': 'email', Firma: 'company_name' } });
    expect(result).toEqual(expectedImport({ total_rows: 1, created: 1, leads: [{ row: 1, id: anId(), status: 'created' }], total_prospects: 1 }));
    const [anna] = await prospectsOf(alice, list.id);
    expect([anna?.first_name, anna?.email, anna?.company?.name, anna?.company?.amount_of_employees, anna?.custom_fields]).toEqual(['Anna', 'anna@beispiel.example', 'Beispiel GmbH', '11-50', { Notiz: 'Termin, Montag' }]);
  });
});
