import { describe, expect, it } from 'vitest';
import { readCsvLeads, readJsonLeads } from '../../../shared/domain/leads/import-rows';

describe('readJsonLeads', () => {
  it('normalises a PEOPLE row and takes the nested company', () => {
    const [row] = readJsonLeads(
      [
        {
          first_name: ' Alex ',
          last_name: 'Doe',
          email: 'ALEX@Acme.com',
          network_profile_url: 'uk.linkedin.com/in/Alex',
          phone_number: 31612345678,
          company: { name: 'Acme', website_url: 'https://www.acme.com/', amount_of_employees: '11-50' },
        },
      ],
      'PEOPLE',
    );
    expect(row).toEqual({
      row: 1,
      input: {
        fields: {
          firstName: 'Alex',
          lastName: 'Doe',
          email: 'alex@acme.com',
          networkProfileUrl: 'https://www.linkedin.com/in/alex',
          phoneNumber: '31612345678',
        },
        company: { name: 'Acme', websiteUrl: 'https://www.acme.com/', domain: 'acme.com', amountOfEmployees: '11-50' },
      },
    });
  });

  it('names a company after its domain when only the website is given', () => {
    const [row] = readJsonLeads([{ first_name: 'A', last_name: 'B', email: 'a@b.co', company_website_url: 'beta.io' }], 'PEOPLE');
    expect(row).toMatchObject({ input: { company: { name: 'beta.io', domain: 'beta.io' } } });
  });

  it('reads COMPANY rows, with or without the company_ prefix; the domain names a company without a name', () => {
    const rows = readJsonLeads(
      [
        { company_name: 'Acme', company_website_url: 'acme.com', industry: 'Software' },
        { website_url: 'x.com' },
        { network_url: 'https://www.linkedin.com/company/nameless' },
      ],
      'COMPANY',
    );
    expect(rows).toEqual([
      { row: 1, input: { name: 'Acme', websiteUrl: 'acme.com', domain: 'acme.com', industry: 'Software' } },
      { row: 2, input: { name: 'x.com', websiteUrl: 'x.com', domain: 'x.com' } },
      { row: 3, error: 'name is required' },
    ]);
  });
});

describe('readCsvLeads', () => {
  it('maps columns, turns unknown PEOPLE columns into custom fields and skips empty cells', () => {
    const rows = readCsvLeads('Vorname,Nachname,E-Mail,Team\nAnna,Schmidt,anna@example.de,\n', { Vorname: 'first_name', Nachname: 'last_name', 'E-Mail': 'email' }, 'PEOPLE');
    expect(rows).toEqual([{ row: 1, input: { fields: { firstName: 'Anna', lastName: 'Schmidt', email: 'anna@example.de' } } }]);
  });

  it('ignores unknown columns for COMPANY lists and accepts company_ headers', () => {
    const rows = readCsvLeads('Company Name,Website URL,Notes\nAcme,acme.com,call later', undefined, 'COMPANY');
    expect(rows).toEqual([{ row: 1, input: { name: 'Acme', websiteUrl: 'acme.com', domain: 'acme.com' } }]);
  });

  it('refuses custom field mappings for COMPANY lists', () => {
    expect(() => readCsvLeads('a\n1', { a: 'custom_fields.x' }, 'COMPANY')).toThrow("mapping: unknown field 'custom_fields.x' for column 'a'");
  });
});
