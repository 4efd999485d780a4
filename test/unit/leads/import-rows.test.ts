import { describe, expect, it } from 'vitest';
import { flattenJsonLead, normalizeCompany, normalizeProspect, csvLayout, readCsvLeads, readJsonLeads } from '../../../shared/domain/leads/import-rows';
import { type CompanyInput, CompanyImportRow, PeopleImportRow, type ProspectInput, importRowSchema } from '../../../shared/domain/leads/import-schemas';

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
      { row: 2, input: { name: 'x.com', nameDerived: true, websiteUrl: 'x.com', domain: 'x.com' } },
      { row: 3, error: 'name is required' },
    ]);
  });
});

describe('import row reasons', () => {
  const person = (overrides: Record<string, unknown>) => ({ first_name: 'A', last_name: 'B', email: 'a@example.com', ...overrides });

  it.each([
    [{ last_name: 'NoFirst', email: 'a@example.com' }, 'first_name is required'],
    [person({ first_name: null }), 'first_name is required'],
    [person({ first_name: ' \u0001 ' }), 'first_name is required'],
    [{ first_name: 'NoLast', email: 'b@example.com' }, 'last_name is required'],
    [{ first_name: 'No', last_name: 'Contact' }, 'network_profile_url or email is required'],
    [person({ email: 'not-an-email' }), 'email is not a valid email address'],
    [person({ network_profile_url: 'ftp://nowhere' }), 'network_profile_url is not a valid URL'],
    [person({ custom_fields: ['x'] }), 'custom_fields must be an object'],
    [person({ custom_fields: 'plan=pro' }), 'custom_fields must be an object'],
    [person({ job_title: { title: 'x' } }), 'job_title must be a string'],
    [person({ first_name: 'x'.repeat(1001) }), 'first_name must be at most 1000 characters'],
    [person({ company_website_url: 'not a url' }), 'company_website_url is not a valid URL'],
    [person({ company: { network_url: 'mailto:x' } }), 'company_network_url is not a valid URL'],
    [person({ profile_picture_url: 'javascript:alert(1)' }), 'profile_picture_url is not a valid URL'],
    [person({ profile_picture_url: 'data:image/png;base64,AAAA' }), 'profile_picture_url is not a valid URL'],
    [person({ company_name: 'Acme', company_logo_url: 'javascript:alert(1)' }), 'company_logo_url is not a valid URL'],
  ])('skips the PEOPLE row %j: %s', (lead, reason) => {
    expect(readJsonLeads([lead], 'PEOPLE')).toEqual([{ row: 1, error: reason }]);
  });

  it('skips a lead that is not an object', () => {
    expect(readJsonLeads(['just a string', null, [], 5], 'PEOPLE').map((row) => ('error' in row ? row.error : row))).toEqual([
      'lead must be an object',
      'lead must be an object',
      'lead must be an object',
      'lead must be an object',
    ]);
  });

  it('takes numbers and booleans as text and a first name of 1000 characters', () => {
    const [row] = readJsonLeads([person({ first_name: 'x'.repeat(1000), phone_number: 31612345678, headline: true })], 'PEOPLE');
    expect(row).toMatchObject({ input: { fields: { firstName: 'x'.repeat(1000), phoneNumber: '31612345678', headline: 'true' } } });
  });

  it('gets nothing from a lead’s own `__proto__` key', () => {
    const lead = JSON.parse('{"__proto__":{"first_name":"Sneaky","email":"s@example.com"},"last_name":"Roe","email":"r@example.com"}');
    const flat = flattenJsonLead(lead, 'PEOPLE');
    expect(Object.getPrototypeOf(flat)).toBeNull();
    expect(readJsonLeads([lead], 'PEOPLE')).toEqual([{ row: 1, error: 'first_name is required' }]);
  });

  it('flattens a nested company; flat company_* fields win, and for COMPANY rows the plain name wins', () => {
    expect(flattenJsonLead({ company_name: 'Flat', company: { name: 'Nested', industry: 'Oil' } }, 'PEOPLE')).toEqual({
      company_name: 'Flat',
      company_industry: 'Oil',
    });
    expect(flattenJsonLead({ name: 'Plain', company_name: 'Prefixed', company_industry: 'Oil' }, 'COMPANY')).toEqual({ name: 'Plain', industry: 'Oil' });
    expect(flattenJsonLead({ company_name: 'Prefixed', name: 'Plain' }, 'COMPANY')).toEqual({ name: 'Plain' });
  });

  it("reads a PEOPLE row's company given as its name, and refuses one that is neither its fields nor its name", () => {
    const someone = { first_name: 'Nest', last_name: 'Co', email: 'nest@x.example' };
    expect(flattenJsonLead({ ...someone, company: 'StringCo' }, 'PEOPLE')).toEqual({ ...someone, company_name: 'StringCo' });
    expect(flattenJsonLead({ ...someone, company: 'StringCo', company_name: 'Flat' }, 'PEOPLE')).toEqual({ ...someone, company_name: 'Flat' });
    const rows = readJsonLeads(
      [
        { ...someone, company: ['x'] },
        { ...someone, company: 7 },
        { ...someone, company: null },
        { first_name: 'Nest', company: true },
        { ...someone, company: 'StringCo' },
      ],
      'PEOPLE',
    );
    const refused = 'company must be an object (the company_* fields without their prefix) or a string (its name)';
    expect(rows.slice(0, 2)).toEqual([
      { row: 1, error: refused },
      { row: 2, error: refused },
    ]);
    expect(rows[2]).toEqual({ row: 3, input: { fields: { firstName: 'Nest', lastName: 'Co', email: 'nest@x.example' } } });
    // The person's own reasons come first.
    expect(rows[3]).toEqual({ row: 4, error: 'last_name is required' });
    expect(rows[4]).toMatchObject({ row: 5, input: { company: { name: 'StringCo' } } });
  });

  it('names the company rules of a COMPANY row', () => {
    expect(readJsonLeads([{ industry: 'No name' }, { name: 'x', website_url: 'not a url' }, { name: 5, revenue: [] }], 'COMPANY')).toEqual([
      { row: 1, error: 'name is required' },
      { row: 2, error: 'website_url is not a valid URL' },
      { row: 3, error: 'revenue must be a string' },
    ]);
    expect(importRowSchema('PEOPLE')).toBe(PeopleImportRow);
    expect(importRowSchema('COMPANY')).toBe(CompanyImportRow);
  });

  it('keeps custom fields in objects without a prototype', () => {
    const [row] = readJsonLeads([person({ custom_fields: { plan: 'pro', nested: { seats: 3 }, list: [{ a: 1 }] } })], 'PEOPLE');
    const custom = (row as { input: { fields: { customFields: Record<string, Record<string, unknown>> } } }).input.fields.customFields;
    expect(custom).toEqual({ plan: 'pro', nested: { seats: 3 }, list: [{ a: 1 }] });
    expect(Object.getPrototypeOf(custom)).toBeNull();
    expect(Object.getPrototypeOf(custom.nested)).toBeNull();
    expect(Object.getPrototypeOf((custom.list as unknown as object[])[0])).toBeNull();
  });
});

describe('provider leads', () => {
  it('normalises a directory person whose missing fields are undefined', () => {
    expect(
      normalizeProspect({ first_name: 'Ada', last_name: 'L', email: undefined, network_profile_url: 'linkedin.com/in/Ada', company_name: 'Acme', company_website_url: undefined }),
    ).toEqual({ fields: { firstName: 'Ada', lastName: 'L', networkProfileUrl: 'https://www.linkedin.com/in/ada' }, company: { name: 'Acme' } });
    expect(normalizeProspect({ first_name: '', last_name: 'L', email: 'l@example.com' })).toBeUndefined();
  });

  it("normalises a directory company; one known by its page alone is named by the page's slug", () => {
    expect(normalizeCompany({ name: '', network_url: 'https://www.linkedin.com/company/x-labs%C3%A9/', website_url: undefined })).toEqual({
      name: 'x-labsé',
      nameDerived: true,
      networkUrl: 'https://www.linkedin.com/company/x-labs%C3%A9',
    });
    // A page without a usable slug names it by its URL: never "".
    expect(normalizeCompany({ name: '', network_url: 'https://example.com/' })).toBeUndefined();
    expect(normalizeCompany({ name: '', network_url: 'https://www.linkedin.com/showcase/-/' })).toEqual({
      name: '-',
      nameDerived: true,
      networkUrl: 'https://www.linkedin.com/showcase/-',
    });
    // `/company/` alone is no company's page.
    expect(normalizeCompany({ name: '', network_url: 'https://www.linkedin.com/company/' })).toBeUndefined();
    expect(normalizeCompany({ name: 'Acme', website_url: 'not a url' })).toBeUndefined();
    expect(normalizeCompany({ name: '' })).toBeUndefined();
  });
});

describe('readCsvLeads', () => {
  it('maps columns, turns unknown PEOPLE columns into custom fields and skips empty cells', () => {
    const rows = readCsvLeads('Vorname,Nachname,E-Mail,Team\nAnna,Schmidt,anna@example.de,\n', { Vorname: 'first_name', Nachname: 'last_name', 'E-Mail': 'email' }, 'PEOPLE');
    expect(rows).toEqual([{ row: 1, input: { fields: { firstName: 'Anna', lastName: 'Schmidt', email: 'anna@example.de' } } }]);
  });

  it('reads headers other tools export: camelCase, LinkedIn URL, Title, Company, Website', () => {
    const csv = 'firstName,Last Name,Email Address,LinkedIn URL,Title,Company,websiteUrl,Team\nAda,Byron,ada@x.com,https://www.linkedin.com/in/ada-b,CTO,Engines,https://engines.example,R&D\n';
    const rows = readCsvLeads(csv, undefined, 'PEOPLE');
    const fields = (rows[0] as { input: ProspectInput }).input.fields;
    expect([fields.firstName, fields.lastName, fields.email, fields.networkProfileUrl, fields.jobTitle, fields.customFields]).toEqual(['Ada', 'Byron', 'ada@x.com', 'https://www.linkedin.com/in/ada-b', 'CTO', { Team: 'R&D' }]);
    expect((rows[0] as { input: ProspectInput }).input.company).toMatchObject({ name: 'Engines', websiteUrl: 'https://engines.example' });
    const companies = readCsvLeads('companyName,Company LinkedIn URL,Website\nEngines,https://www.linkedin.com/company/engines,https://engines.example\n', undefined, 'COMPANY');
    expect(companies).toEqual([{ row: 1, input: expect.objectContaining({ name: 'Engines', networkUrl: 'https://www.linkedin.com/company/engines', websiteUrl: 'https://engines.example' }) }]);
  });

  it('reads Apollo\'s # Employees and Annual Revenue and lemlist\'s companyDomain as the company\'s size, revenue and website', () => {
    const apolloPhone = readCsvLeads('First Name,Last Name,Email,First Phone\nLou,Reed,lou@x.com,+1 555 0100\n', undefined, 'PEOPLE');
    expect((apolloPhone[0] as { input: ProspectInput }).input.fields).toEqual({ firstName: 'Lou', lastName: 'Reed', email: 'lou@x.com', phoneNumber: '+1 555 0100' });
    const csv = 'First Name,Last Name,Email,Company,# Employees,Annual Revenue,companyDomain\nAda,Byron,ada@x.com,Engines,51-200,$10M,engines.example\n';
    const rows = readCsvLeads(csv, undefined, 'PEOPLE');
    expect((rows[0] as { input: ProspectInput }).input.fields.customFields).toBeUndefined();
    expect((rows[0] as { input: ProspectInput }).input.company).toMatchObject({ name: 'Engines', amountOfEmployees: '51-200', revenue: '$10M', websiteUrl: 'engines.example', domain: 'engines.example' });
    const companies = readCsvLeads('Company,Domain,Employees,Annual Revenue\nEngines,engines.example,11-50,$2M\n', undefined, 'COMPANY');
    expect(companies).toEqual([{ row: 1, input: expect.objectContaining({ name: 'Engines', websiteUrl: 'engines.example', amountOfEmployees: '11-50', revenue: '$2M' }) }]);
    // HubSpot's company export; a placeholder name, the domain names it.
    const hubspot = readCsvLeads('Company name,Company Domain Name,LinkedIn Company Page\nWayne,wayne.example,https://www.linkedin.com/company/wayne\nN/A,stark.example,\n', undefined, 'COMPANY');
    expect(hubspot).toEqual([
      { row: 1, input: expect.objectContaining({ name: 'Wayne', websiteUrl: 'wayne.example', networkUrl: 'https://www.linkedin.com/company/wayne' }) },
      { row: 2, input: expect.objectContaining({ name: 'stark.example', websiteUrl: 'stark.example' }) },
    ]);
  });

  it('keeps another tool\'s company size and revenue as custom fields in a row that names no company', () => {
    const rows = readCsvLeads('First Name,Last Name,Email,Company,Company Size,Annual Revenue\nAda,Byron,ada@x.com,,51-200,$10M\nBo,Berg,bo@x.com,Engines,11-50,$2M\n', undefined, 'PEOPLE');
    expect(rows).toEqual([
      { row: 1, input: { fields: { firstName: 'Ada', lastName: 'Byron', email: 'ada@x.com', customFields: { 'Company Size': '51-200', 'Annual Revenue': '$10M' } } } },
      { row: 2, input: { fields: { firstName: 'Bo', lastName: 'Berg', email: 'bo@x.com' }, company: expect.objectContaining({ name: 'Engines', amountOfEmployees: '11-50', revenue: '$2M' }) } },
    ]);
  });

  it('joins a location other tools split into City, State and Country, unless a column gives the location', () => {
    const csv = 'First Name,Last Name,Email,City,State,Country,Company,Company City,Company Country\nAda,Byron,ada@x.com,Boston,MA,United States,Engines,Berlin,Germany\nBo,Berg,bo@x.com,,N/A,Sweden,,Oslo,\n';
    const rows = readCsvLeads(csv, undefined, 'PEOPLE');
    expect(rows).toEqual([
      { row: 1, input: { fields: { firstName: 'Ada', lastName: 'Byron', email: 'ada@x.com', location: 'Boston, MA, United States' }, company: expect.objectContaining({ name: 'Engines', location: 'Berlin, Germany' }) } },
      { row: 2, input: { fields: { firstName: 'Bo', lastName: 'Berg', email: 'bo@x.com', location: 'Sweden', customFields: { 'Company City': 'Oslo' } } } },
    ]);
    const given = readCsvLeads('First Name,Last Name,Email,Location,City\nAda,Byron,ada@x.com,Greater Boston,Boston\n', undefined, 'PEOPLE');
    expect((given[0] as { input: ProspectInput }).input.fields).toMatchObject({ location: 'Greater Boston', customFields: { City: 'Boston' } });
    const hubspot = readCsvLeads('Company name,City,Country/Region\nWayne,Gotham,United States\n', undefined, 'COMPANY');
    expect(hubspot).toEqual([{ row: 1, input: expect.objectContaining({ name: 'Wayne', location: 'Gotham, United States' }) }]);
  });

  it('reads a semicolon- or tab-separated file by its header row, and a comma file whose header quotes a semicolon as commas', () => {
    const expected = [{ row: 1, input: { fields: { firstName: 'Anna', lastName: 'Schmidt', email: 'anna@example.de', customFields: { Note: 'a, b' } } } }];
    expect(readCsvLeads('First Name;Last Name;Email;Note\r\nAnna;Schmidt;anna@example.de;a, b\r\n', undefined, 'PEOPLE')).toEqual(expected);
    expect(readCsvLeads('First Name\tLast Name\tEmail\tNote\nAnna\tSchmidt\tanna@example.de\ta, b\n', undefined, 'PEOPLE')).toEqual(expected);
    const quoted = readCsvLeads('First Name,Last Name,Email,"Note; long"\nAnna,Schmidt,anna@example.de,"a, b"\n', undefined, 'PEOPLE');
    expect(quoted).toEqual([{ row: 1, input: { fields: { firstName: 'Anna', lastName: 'Schmidt', email: 'anna@example.de', customFields: { 'Note; long': 'a, b' } } } }]);
    expect(csvLayout('Email\nanna@example.de;x\n')).toEqual({ delimiter: ',', fromLine: 1 });
  });

  it('reads the layout past blank lines, from Excel\'s sep= line, and with a quote inside an unquoted header', () => {
    const expected = [{ row: 1, input: { fields: { firstName: 'Anna', lastName: 'Schmidt', email: 'anna@example.de' } } }];
    expect(readCsvLeads('\n  \nFirst Name;Last Name;Email\nAnna;Schmidt;anna@example.de\n', undefined, 'PEOPLE')).toEqual(expected);
    expect(csvLayout('\uFEFFsep=;\r\nFirst Name;Last Name,Email\r\n')).toEqual({ delimiter: ';', fromLine: 2 });
    expect(readCsvLeads('\uFEFFsep=;\r\nFirst Name;Last Name;Email\r\nAnna;Schmidt;anna@example.de\r\n', undefined, 'PEOPLE')).toEqual(expected);
    expect(readCsvLeads('sep=\t\nFirst Name\tLast Name\tEmail\nAnna\tSchmidt\tanna@example.de\n', undefined, 'PEOPLE')).toEqual(expected);
    expect(readCsvLeads('"sep=;"\nFirst Name;Last Name;Email\nAnna;Schmidt;anna@example.de\n', undefined, 'PEOPLE')).toEqual(expected);
    expect(readCsvLeads('sep=;;;\nFirst Name;Last Name;Email\nAnna;Schmidt;anna@example.de\n', undefined, 'PEOPLE')).toEqual(expected);
    expect(readCsvLeads(' sep=; \nFirst Name;Last Name;Email\nAnna;Schmidt;anna@example.de\n', undefined, 'PEOPLE')).toEqual(expected);
    const quoted = readCsvLeads('Size 5";First Name;Last Name;Email\n12;Anna;Schmidt;anna@example.de\n', undefined, 'PEOPLE');
    expect(quoted).toEqual([{ row: 1, input: { fields: { firstName: 'Anna', lastName: 'Schmidt', email: 'anna@example.de', customFields: { 'Size 5"': '12' } } } }]);
    expect(csvLayout('"Note; long",First Name,"Say ""hi"", then"\n')).toEqual({ delimiter: ',', fromLine: 1 });
  });

  it('takes rows of empty cells as no rows, as it takes empty lines', () => {
    const rows = readCsvLeads('First Name,Last Name,Email\nAnna,Schmidt,anna@example.de\n,,\n\n , ,\nBo,Berg,bo@example.de\n,,\n', undefined, 'PEOPLE');
    expect(rows.map((row) => [row.row, 'input' in row ? (row.input as ProspectInput).fields.firstName : row.error])).toEqual([[1, 'Anna'], [2, 'Bo']]);
  });

  it('reads another tool\'s URL column holding no URL as a custom field (a placeholder such as N/A as no value), and lets a mapping choose over another tool\'s column', () => {
    const rows = readCsvLeads('First Name,Last Name,Email,LinkedIn,Website\nAda,Lovelace,ada@x.example,Yes,N/A\n', undefined, 'PEOPLE');
    expect(rows).toEqual([{ row: 1, input: { fields: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@x.example', customFields: { LinkedIn: 'Yes' } } } }]);
    const mapped = readCsvLeads('First Name,Last Name,Contact Email,Email Address\nAda,Lovelace,ada@work.example,ada@home.example\n', { 'Contact Email': 'email' }, 'PEOPLE');
    expect((mapped[0] as { input: ProspectInput }).input.fields).toMatchObject({ email: 'ada@work.example', customFields: { 'Email Address': 'ada@home.example' } });
    const companies = readCsvLeads('companyName,companyIndustry,companyWebsiteUrl,companyLocation\nAcme,Steel,https://acme.example,Berlin\n', undefined, 'COMPANY');
    expect(companies).toEqual([{ row: 1, input: expect.objectContaining({ name: 'Acme', industry: 'Steel', websiteUrl: 'https://acme.example', location: 'Berlin' }) }]);
  });

  it('keeps another tool\'s column that holds no valid value (but a placeholder) as a custom field (PEOPLE) or drops it (COMPANY), and never lets it replace a column named for the field', () => {
    const people = readCsvLeads('First Name,Last Name,Email,LinkedIn,Work Email\nNoa,One,noa@one.io,n.a.,not-an-email\nKate,Bell,,linkedin.com/in/kate-bell,N/A\nLiam,Ng,liam@ng.io,https://linkedin.com/in/liam-ng,liam@work.io\n', undefined, 'PEOPLE');
    expect(people).toEqual([
      { row: 1, input: { fields: { firstName: 'Noa', lastName: 'One', email: 'noa@one.io', customFields: { 'Work Email': 'not-an-email' } } } },
      { row: 2, input: { fields: { firstName: 'Kate', lastName: 'Bell', networkProfileUrl: 'https://www.linkedin.com/in/kate-bell' } } },
      { row: 3, input: { fields: { firstName: 'Liam', lastName: 'Ng', email: 'liam@ng.io', networkProfileUrl: 'https://www.linkedin.com/in/liam-ng', customFields: { 'Work Email': 'liam@work.io' } } } },
    ]);
    const companies = readCsvLeads('Company,Website,Company Linkedin Url,Industry\nBeta LLC,N/A,,Software\nGamma Inc,gamma.io,n/a,Retail\n', undefined, 'COMPANY');
    expect(companies.map((row) => ('input' in row ? [(row.input as CompanyInput).name, (row.input as CompanyInput).websiteUrl, (row.input as CompanyInput).networkUrl] : row))).toEqual([
      ['Beta LLC', undefined, undefined],
      ['Gamma Inc', 'gamma.io', undefined],
    ]);
  });

  it('takes placeholder cells (N/A, #N/A, -, null, none) in a field as no value, but in a name or a custom field as written', () => {
    const csv = 'First Name,Last Name,Email,Work Email,Company,Phone,Title,Plan\n-,Ng,N/A,liam@work.io,#N/A,null,--,n/a\nAda,Byron,ada@x.com,,None,+44 20 1234 5678,CTO,gold\n';
    const rows = readCsvLeads(csv, undefined, 'PEOPLE');
    expect(rows).toEqual([
      { row: 1, input: { fields: { firstName: '-', lastName: 'Ng', email: 'liam@work.io', customFields: { Plan: 'n/a' } } } },
      { row: 2, input: { fields: { firstName: 'Ada', lastName: 'Byron', email: 'ada@x.com', phoneNumber: '+44 20 1234 5678', jobTitle: 'CTO', customFields: { Plan: 'gold' } } } },
    ]);
    const companies = readCsvLeads('Company,Website,Industry\nBeta LLC,N/A,-\n', undefined, 'COMPANY');
    expect(companies).toEqual([{ row: 1, input: { name: 'Beta LLC' } }]);
    // Quoted, with spaces around it (exports that quote every cell).
    const quoted = readCsvLeads('"First Name","Last Name","Email","Work Email","Company"\n"Ann","Lee"," N/A ","ann@work.io","N/A "\n', undefined, 'PEOPLE');
    expect(quoted).toEqual([{ row: 1, input: { fields: { firstName: 'Ann', lastName: 'Lee', email: 'ann@work.io' } } }]);
  });

  it('lets a column named for a field win over another tool\'s, whatever their order, keeping the other as a custom field', () => {
    const rows = readCsvLeads('First Name,Last Name,Work Email,Email,Title,Job Title\nAnn,Lee,ann@work.example,ann@home.example,Dr.,CTO\n', undefined, 'PEOPLE');
    expect((rows[0] as { input: ProspectInput }).input.fields).toMatchObject({
      email: 'ann@home.example',
      jobTitle: 'CTO',
      customFields: { 'Work Email': 'ann@work.example', Title: 'Dr.' },
    });
    // A COMPANY list takes its page from a company's column, never a person's LinkedIn URL.
    const companies = readCsvLeads('Company,Company Linkedin Url,LinkedIn URL\nR2 Corp,https://www.linkedin.com/company/r2corp,https://www.linkedin.com/in/r2-ceo\n', undefined, 'COMPANY');
    expect(companies).toEqual([{ row: 1, input: expect.objectContaining({ name: 'R2 Corp', networkUrl: 'https://www.linkedin.com/company/r2corp' }) }]);
  });

  it('refuses a mapping to custom_fields itself: a column goes to one of its keys', () => {
    expect(() => readCsvLeads('First Name,Last Name,Email,Tier\nBo,Ray,bo@x.example,gold\n', { Tier: 'custom_fields' }, 'PEOPLE')).toThrow("mapping: unknown field 'custom_fields' for column 'Tier'");
  });

  it('two columns going to one field: a row takes the last of them that is not empty in it', () => {
    const csv = 'first_name,last_name,Email,email,Work Email\nA,One,a@x.com,,\nB,Two,,b@x.com,\nC,Three,c@x.com,c2@x.com,\nD,Four,d@x.com,,d-work@x.com\n';
    const rows = readCsvLeads(csv, { 'Work Email': 'email' }, 'PEOPLE');
    expect(rows.map((row) => ('input' in row ? (row.input as ProspectInput).fields.email : row))).toEqual(['a@x.com', 'b@x.com', 'c2@x.com', 'd-work@x.com']);
  });

  it('takes a quote inside an unquoted field as text, so one such cell does not lose the file', () => {
    const rows = readCsvLeads('first_name,last_name,email,job_title\nTV,Guy,tv@x.com,5" screen seller\nOk,Row,ok@x.com,=HYPERLINK("x")\n', undefined, 'PEOPLE');
    expect(rows).toEqual([
      { row: 1, input: { fields: { firstName: 'TV', lastName: 'Guy', email: 'tv@x.com', jobTitle: '5" screen seller' } } },
      { row: 2, input: { fields: { firstName: 'Ok', lastName: 'Row', email: 'ok@x.com', jobTitle: '=HYPERLINK("x")' } } },
    ]);
  });

  it('ignores unknown columns for COMPANY lists and accepts company_ headers', () => {
    const rows = readCsvLeads('Company Name,Website URL,Notes\nAcme,acme.com,call later', undefined, 'COMPANY');
    expect(rows).toEqual([{ row: 1, input: { name: 'Acme', websiteUrl: 'acme.com', domain: 'acme.com' } }]);
  });

  it('refuses custom field mappings for COMPANY lists', () => {
    expect(() => readCsvLeads('a\n1', { a: 'custom_fields.x' }, 'COMPANY')).toThrow("mapping: unknown field 'custom_fields.x' for column 'a'");
  });

  const HEADER = 'first_name,last_name,email,constructor,__proto__,prototype';

  it('skips rows whose unmapped constructor, __proto__ or prototype column holds a value', () => {
    const csv = `${HEADER}\nA,B,a@example.com,x,,\nC,D,c@example.com,,y,\nE,F,e@example.com,,,z\nG,H,g@example.com,,,`;
    expect(readCsvLeads(csv, undefined, 'PEOPLE')).toEqual([
      { row: 1, error: "custom_fields key 'constructor' is reserved" },
      { row: 2, error: "custom_fields key '__proto__' is reserved" },
      { row: 3, error: "custom_fields key 'prototype' is reserved" },
      { row: 4, input: { fields: { firstName: 'G', lastName: 'H', email: 'g@example.com' } } },
    ]);
  });

  it('maps columns named constructor and __proto__ as any other column', () => {
    const mapping = JSON.parse('{"constructor":"job_title","__proto__":"custom_fields.legacy","prototype":null}');
    expect(readCsvLeads(`${HEADER}\nA,B,a@example.com,Builder,L-1,ignored`, mapping, 'PEOPLE')).toEqual([
      { row: 1, input: { fields: { firstName: 'A', lastName: 'B', email: 'a@example.com', jobTitle: 'Builder', customFields: { legacy: 'L-1' } } } },
    ]);
  });

  it.each([
    [{ Tier: 'custom_fields.constructor' }, "mapping: column 'Tier' cannot go to 'custom_fields.constructor': custom_fields key 'constructor' is reserved"],
    [{ Tier: 'custom_fields.a\tb' }, "mapping: column 'Tier' cannot go to 'custom_fields.a\tb': custom_fields keys must not contain control characters"],
    [{ Tier: 'custom_fields.' }, "mapping: unknown field 'custom_fields.' for column 'Tier'. Fields: first_name, last_name,"],
    [{ Tier: 5 }, 'mapping.Tier must be a string'],
    [['first_name'], 'mapping must be an object of column name -> field name'],
    [{ Nope: 'first_name' }, "mapping: column 'Nope' is not in the CSV header"],
  ])('refuses the mapping %j as a whole', (mapping, message) => {
    expect(() => readCsvLeads('first_name,last_name,email,Tier\nA,B,a@example.com,gold', mapping as never, 'PEOPLE')).toThrow(message);
  });
});

describe('person rows are checked in the order the reader always used', () => {
  const long = 'x'.repeat(1001);
  const read = (lead: Record<string, unknown>) => readJsonLeads([lead], 'PEOPLE')[0];

  it('ignores the company details of a row that names no company, as it ignores the company', () => {
    expect(read({ first_name: 'Ada', last_name: 'L', email: 'ada@example.com', company_logo_url: long })).toEqual({
      row: 1,
      input: { fields: { firstName: 'Ada', lastName: 'L', email: 'ada@example.com' } },
    });
    expect(read({ first_name: 'Ada', last_name: 'L', email: 'ada@example.com', company: { industry: ['x'], revenue: long } })).toEqual({
      row: 1,
      input: { fields: { firstName: 'Ada', lastName: 'L', email: 'ada@example.com' } },
    });
  });

  it('checks the company details once the row names a company', () => {
    expect(read({ first_name: 'Ada', last_name: 'L', email: 'ada@example.com', company: { name: 'Acme', industry: ['x'] } })).toEqual({
      row: 1,
      error: 'company_industry must be a string',
    });
  });

  it('refuses a row that names nobody for that first, whatever else is wrong with it', () => {
    expect(read({ first_name: 'Ada', last_name: 'L', phone_number: long })).toEqual({ row: 1, error: 'network_profile_url or email is required' });
    expect(read({ first_name: 'Ada', last_name: 'L', custom_fields: 'x' })).toEqual({ row: 1, error: 'network_profile_url or email is required' });
    expect(read({ first_name: 'Ada', last_name: 'L', email: 'ada@example.com', custom_fields: 'x', phone_number: long })).toEqual({
      row: 1,
      error: 'custom_fields must be an object',
    });
    expect(read({ first_name: 'Ada', last_name: 'L', email: 'ada@example.com', phone_number: long })).toEqual({
      row: 1,
      error: 'phone_number must be at most 1000 characters',
    });
  });
});
