import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prospectKey } from '../../../shared/db/keys';
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
  person,
} from './helpers';

/** Importing JSON rows into a PEOPLE list: fields, matching, updates, refusals, companies, workspaces. CSV: csv-import.test.ts; COMPANY lists: company-import.test.ts. */
describe('import into a lead list', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;

  const prospectsOf = async (ws: Workspace, listId: number, query = '') =>
    (await leadsOf(stack, ws, listId, query)).prospects ?? ([] as ProspectView[]);

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack());
  });
  afterAll(async () => stack?.stop());


  it('imports JSON leads with every field, nested or flat company, and answers with counts and ids', async () => {
    const list = await createList(stack, alice, 'JSON import');
    const result = await importLeads(stack, alice, list.id, {
      leads: [
        {
          first_name: 'Alex',
          last_name: 'Doe',
          network_profile_url: 'https://www.linkedin.com/in/alex-doe/',
          email: 'alex@acme.example',
          phone_number: '+31 6 1234 5678',
          job_title: 'Head of Sales',
          location: 'Amsterdam, NL',
          headline: 'Helping teams close more deals',
          industry: 'SaaS',
          profile_picture_url: 'https://example.com/alex.jpg',
          custom_fields: { plan: 'pro' },
          company: { name: 'Acme Inc', website_url: 'https://acme.example', network_url: 'https://www.linkedin.com/company/acme/', industry: 'Software', location: 'Amsterdam, NL' },
        },
        {
          first_name: 'Sam',
          last_name: 'Roe',
          email: 'sam@beta.example',
          company_name: 'Beta',
          company_website_url: 'beta.example',
          company_industry: 'Retail',
          company_network_url: 'https://www.linkedin.com/company/beta',
          company_location: 'Berlin',
        },
      ],
    });
    expect(result).toEqual({
      success: true,
      search_type: 'PEOPLE',
      total_rows: 2,
      created: 2,
      updated: 0,
      skipped: 0,
      skipped_rows: [],
      leads: [
        { row: 1, id: anId(), status: 'created' },
        { row: 2, id: anId(), status: 'created' },
      ],
      total_prospects: 2,
    });
    const [alex, sam] = await prospectsOf(alice, list.id);
    expect(alex).toEqual({
      id: result.leads[0]?.id,
      first_name: 'Alex',
      last_name: 'Doe',
      email: 'alex@acme.example',
      phone_number: '+31 6 1234 5678',
      network_profile_url: 'https://www.linkedin.com/in/alex-doe',
      job_title: 'Head of Sales',
      location: 'Amsterdam, NL',
      headline: 'Helping teams close more deals',
      industry: 'SaaS',
      profile_picture_url: 'https://example.com/alex.jpg',
      custom_fields: { plan: 'pro' },
      status: 'NEW',
      campaign_id: null,
      company: {
        id: anId(),
        name: 'Acme Inc',
        website_url: 'https://acme.example',
        network_url: 'https://www.linkedin.com/company/acme',
        industry: 'Software',
        location: 'Amsterdam, NL',
        amount_of_employees: '',
      },
      created_at: alex?.created_at,
      updated_at: alex?.created_at,
    });
    expect(alex?.created_at).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/));
    expect(sam).toEqual(
      expectedProspect({
        id: result.leads[1]?.id,
        first_name: 'Sam',
        last_name: 'Roe',
        email: 'sam@beta.example',
        company: expectedCompanySummary({
          name: 'Beta',
          website_url: 'beta.example',
          network_url: 'https://www.linkedin.com/company/beta',
          industry: 'Retail',
          location: 'Berlin',
        }),
      }),
    );
  });

  it('normalises before matching: one person however the profile URL or email is spelled', async () => {
    const list = await createList(stack, alice, 'Normalise');
    const first = await importLeads(stack, alice, list.id, {
      leads: [
        { first_name: 'Jane', last_name: 'Roe', network_profile_url: 'http://uk.linkedin.com/in/Jane-Roe/?trk=public#about' },
        { first_name: 'Kim', last_name: 'Lee', email: '  Kim.Lee@Example.COM ' },
      ],
    });
    expect(first).toEqual(
      expectedImport({
        total_rows: 2,
        created: 2,
        leads: [
          { row: 1, id: anId(), status: 'created' },
          { row: 2, id: anId(), status: 'created' },
        ],
        total_prospects: 2,
      }),
    );
    const [jane, kim] = await prospectsOf(alice, list.id);
    expect(jane?.network_profile_url).toBe('https://www.linkedin.com/in/jane-roe');
    expect(kim?.email).toBe('kim.lee@example.com');

    const again = await importLeads(stack, alice, list.id, {
      leads: [
        { first_name: 'Jane', last_name: 'Roe', network_profile_url: 'linkedin.com/in/jane-roe', job_title: 'CEO' },
        { first_name: 'Jane', last_name: 'Roe-Smith', network_profile_url: 'https://m.linkedin.com/in/JANE-ROE//' },
        { first_name: 'Kim', last_name: 'Lee', email: 'kim.lee@example.com', location: 'Seoul' },
      ],
    });
    expect(again).toEqual(
      expectedImport({
        total_rows: 3,
        created: 0,
        updated: 2,
        skipped: 1,
        skipped_rows: [{ row: 2, reason: 'duplicate of row 1 (same network_profile_url or email)' }],
        leads: [
          { row: 1, id: jane?.id, status: 'updated' },
          { row: 3, id: kim?.id, status: 'updated' },
        ],
        total_prospects: 2,
      }),
    );
    expect(again.skipped_rows).toEqual([{ row: 2, reason: 'duplicate of row 1 (same network_profile_url or email)' }]);
    expect(again.leads.map((l) => l.id)).toEqual([jane?.id, kim?.id]);
    const after = await prospectsOf(alice, list.id);
    expect(after.map((p) => [p.id, p.job_title, p.location])).toEqual([
      [jane?.id, 'CEO', ''],
      [kim?.id, '', 'Seoul'],
    ]);
  });

  it('keeps the case of a provider member id in a profile URL, and matches the person however it is written', async () => {
    const list = await createList(stack, alice, 'Member ids');
    // Stored lower-cased, as every member id was before they kept their case.
    const first = await importLeads(stack, alice, list.id, {
      leads: [
        { first_name: 'Ida', last_name: 'Ng', network_profile_url: 'https://www.linkedin.com/in/acoaab3xyz' },
        { first_name: 'Sal', last_name: 'Nav', network_profile_url: 'https://www.linkedin.com/sales/lead/acwaaab1x2y3,name_search,abcd' },
      ],
    });
    const again = await importLeads(stack, alice, list.id, {
      leads: [
        { first_name: 'Ida', last_name: 'Ng', network_profile_url: 'https://www.linkedin.com/in/ACoAAB3xYz/' },
        { first_name: 'Sal', last_name: 'Nav', network_profile_url: 'https://www.linkedin.com/sales/lead/ACwAAAB1x2Y3,NAME_SEARCH,AbCd' },
      ],
    });
    expect(again.leads).toEqual([
      { row: 1, id: first.leads[0]?.id, status: 'updated' },
      { row: 2, id: first.leads[1]?.id, status: 'updated' },
    ]);
    const people = await prospectsOf(alice, list.id);
    expect(people.map((p) => [p.first_name, p.network_profile_url])).toEqual([
      ['Ida', 'https://www.linkedin.com/in/ACoAAB3xYz'],
      ['Sal', 'https://www.linkedin.com/sales/lead/ACwAAAB1x2Y3,NAME_SEARCH,AbCd'],
    ]);
    // A lower-cased (or upper-cased) export of the same person matches, and leaves the id's case alone.
    const lowered = await importLeads(stack, alice, list.id, {
      leads: [
        { first_name: 'Ida', last_name: 'Ng', network_profile_url: 'https://www.linkedin.com/in/acoaab3xyz', job_title: 'CFO' },
        { first_name: 'Sal', last_name: 'Nav', network_profile_url: 'https://WWW.LINKEDIN.COM/SALES/LEAD/ACWAAAB1X2Y3,NAME_SEARCH,ABCD' },
      ],
    });
    expect(lowered.leads.map((lead) => [lead.id, lead.status])).toEqual([
      [first.leads[0]?.id, 'updated'],
      [first.leads[1]?.id, 'updated'],
    ]);
    expect((await prospectsOf(alice, list.id)).map((p) => [p.network_profile_url, p.job_title])).toEqual([
      ['https://www.linkedin.com/in/ACoAAB3xYz', 'CFO'],
      ['https://www.linkedin.com/sales/lead/ACwAAAB1x2Y3,NAME_SEARCH,AbCd', ''],
    ]);
  });

  it('updates a matched lead with the row’s values and keeps values the row leaves out', async () => {
    const list = await createList(stack, alice, 'Updates');
    await importLeads(stack, alice, list.id, {
      leads: [person(1, { email: 'p1@example.com', job_title: 'CTO', location: 'Oslo', custom_fields: { a: 1 } })],
    });
    const updated = await importLeads(stack, alice, list.id, {
      leads: [person(1, { first_name: 'Renamed', job_title: 'CEO', custom_fields: { b: 2 } })],
    });
    expect(updated).toEqual(expectedImport({ total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id: anId(), status: 'updated' }], total_prospects: 1 }));
    const [p] = await prospectsOf(alice, list.id);
    expect(p).toEqual(
      expectedProspect({
        id: updated.leads[0]?.id,
        first_name: 'Renamed',
        last_name: 'Last1',
        network_profile_url: 'https://www.linkedin.com/in/person-1',
        job_title: 'CEO',
        location: 'Oslo',
        email: 'p1@example.com',
        custom_fields: { a: 1, b: 2 },
      }),
    );
    // The list's sort and filter values follow the update.
    expect((await leadsOf(stack, alice, list.id, 'job_title=ceo')).total_count).toBe(1);
    expect((await leadsOf(stack, alice, list.id, 'job_title=cto')).total_count).toBe(0);
  });

  it('matches leads across lists: a lead imported into a second list is updated and joins it', async () => {
    const one = await createList(stack, alice, 'First home');
    const two = await createList(stack, alice, 'Second home');
    const created = await importLeads(stack, alice, one.id, { leads: [person(2), person(3)] });
    const second = await importLeads(stack, alice, two.id, { leads: [person(2, { job_title: 'VP' })] });
    expect(second).toEqual(
      expectedImport({ total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id: created.leads[0]?.id, status: 'updated' }], total_prospects: 1 }),
    );
    expect(second.leads[0]?.id).toBe(created.leads[0]?.id);
    expect((await getList(stack, alice, one.id))?.total_prospects).toBe(2);
    expect((await prospectsOf(alice, one.id, 'job_title=vp')).map((p) => p.id)).toEqual([created.leads[0]?.id]);
  });

  it('refuses bad rows with a reason each and imports the good ones', async () => {
    const list = await createList(stack, alice, 'Bad rows');
    const result = await importLeads(stack, alice, list.id, {
      leads: [
        person(10),
        { last_name: 'NoFirst', email: 'a@example.com' },
        { first_name: 'NoLast', email: 'b@example.com' },
        { first_name: 'No', last_name: 'Contact' },
        { first_name: 'Bad', last_name: 'Email', email: 'not-an-email' },
        { first_name: 'Bad', last_name: 'Url', network_profile_url: 'ftp://nowhere' },
        'just a string',
        { first_name: 'Bad', last_name: 'Custom', email: 'c@example.com', custom_fields: ['x'] },
        { first_name: 'Bad', last_name: 'Type', email: 'd@example.com', job_title: { title: 'x' } },
        { first_name: 'x'.repeat(1001), last_name: 'Long', email: 'e@example.com' },
        person(11),
      ],
    });
    expect(result).toEqual(
      expectedImport({
        total_rows: 11,
        created: 2,
        updated: 0,
        skipped: 9,
        skipped_rows: result.skipped_rows,
        leads: [
          { row: 1, id: anId(), status: 'created' },
          { row: 11, id: anId(), status: 'created' },
        ],
        total_prospects: 2,
      }),
    );
    expect(result.skipped_rows).toEqual([
      { row: 2, reason: 'first_name is required' },
      { row: 3, reason: 'last_name is required' },
      { row: 4, reason: 'network_profile_url or email is required' },
      { row: 5, reason: 'email is not a valid email address' },
      { row: 6, reason: 'network_profile_url is not a valid URL' },
      { row: 7, reason: 'lead must be an object' },
      { row: 8, reason: 'custom_fields must be an object' },
      { row: 9, reason: 'job_title must be a string' },
      { row: 10, reason: 'first_name must be at most 1000 characters' },
    ]);
    expect(result.leads.map((l) => l.row)).toEqual([1, 11]);
  });

  it('refuses emails that are no address and numbers that lost digits, and takes one saved person named twice once', async () => {
    const list = await createList(stack, alice, 'Strict rows');
    const bad = ['x@y.example<script>', 'x@y.example;', '(x)@y.example', 'javascript:x@y.example', 'x@-y.example', '<x@y.example>', 'z@y\u200d.example', 'z@y.exa\u200bmple'];
    const result = await importLeads(stack, alice, list.id, {
      leads: [
        ...bad.map((email) => ({ first_name: 'Bad', last_name: 'Email', email })),
        { first_name: 'Big', last_name: 'Number', email: 'big@strict.example', phone_number: 2 ** 64 },
        { first_name: 'Exp', last_name: 'Number', email: 'exp@strict.example', job_title: 1e21 },
        { first_name: 'Fine', last_name: 'Number', email: 'josé@exämple.de', phone_number: 31612345678 },
        { first_name: 'Kim', last_name: 'Lee', network_profile_url: 'https://www.linkedin.com/in/kim-lee-strict', email: 'kim@strict.example' },
        // Invisible characters at the ends are no part of a value: the same Kim, and a name of nothing.
        { first_name: 'Kim', last_name: 'Lee', email: '\u200bkim@strict.example\u200b' },
        { first_name: '\u200b', last_name: '\u200f', email: 'nobody@strict.example' },
      ],
    });
    expect(result.skipped_rows).toEqual([
      ...bad.map((_, i) => ({ row: i + 1, reason: 'email is not a valid email address' })),
      { row: 9, reason: 'phone_number is a number too large to keep exactly: send it as a string' },
      { row: 10, reason: 'job_title is a number too large to keep exactly: send it as a string' },
      { row: 13, reason: 'duplicate of row 12 (same network_profile_url or email)' },
      { row: 14, reason: 'first_name is required' },
    ]);
    expect(result.leads).toEqual([
      { row: 11, id: anId(), status: 'created' },
      { row: 12, id: anId(), status: 'created' },
    ]);
    const kim = result.leads[1]?.id;
    // The same saved person by its URL and by its email: the second row is the first one named again
    // (before 2026-11-29 both were applied, the second over the first).
    const again = await importLeads(stack, alice, list.id, {
      leads: [
        { first_name: 'Kim', last_name: 'Lee', network_profile_url: 'https://www.linkedin.com/in/kim-lee-strict', job_title: 'CEO' },
        { first_name: 'Kim', last_name: 'Lee', email: 'kim@strict.example', job_title: 'CTO' },
      ],
    });
    expect([again.updated, again.leads, again.skipped_rows]).toEqual([1, [{ row: 1, id: kim, status: 'updated' }], [{ row: 2, reason: 'duplicate of row 1 (same network_profile_url or email)' }]]);
    expect((await prospectsOf(alice, list.id)).find((prospect) => prospect.id === kim)?.job_title).toBe('CEO');
  });

  it('refuses a profile page that names no one, so people sent with it are never merged; a company given by its name is taken', async () => {
    const list = await createList(stack, alice, 'No one');
    const result = await importLeads(stack, alice, list.id, {
      leads: [
        { first_name: 'First', last_name: 'Person', network_profile_url: 'https://www.linkedin.com/in/' },
        { first_name: 'Other', last_name: 'Person', network_profile_url: 'linkedin.com/in' },
        { first_name: 'Broken', last_name: 'Slug', network_profile_url: 'https://www.linkedin.com/in/%zz' },
        { first_name: 'Named', last_name: 'Company', email: 'named@company.example', company: 'StringCo' },
        { first_name: 'Listed', last_name: 'Company', email: 'listed@company.example', company: ['x'] },
        { first_name: 'Sales', last_name: 'Section', network_profile_url: 'https://www.linkedin.com/sales/lead/' },
        { first_name: 'Legacy', last_name: 'One', network_profile_url: 'http://linkedin.com/profile/view?trk=x&id=111' },
        { first_name: 'Legacy', last_name: 'Two', network_profile_url: 'https://www.linkedin.com/profile/view?id=222' },
        { first_name: 'Legacy', last_name: 'Nobody', network_profile_url: 'https://www.linkedin.com/profile/view' },
      ],
    });
    expect(result.skipped_rows).toEqual([
      { row: 1, reason: 'network_profile_url is not a valid URL' },
      { row: 2, reason: 'network_profile_url is not a valid URL' },
      { row: 3, reason: 'network_profile_url is not a valid URL' },
      { row: 5, reason: 'company must be an object (the company_* fields without their prefix) or a string (its name)' },
      { row: 6, reason: 'network_profile_url is not a valid URL' },
      { row: 9, reason: 'network_profile_url is not a valid URL' },
    ]);
    expect(result.leads).toEqual([
      { row: 4, id: anId(), status: 'created' },
      { row: 7, id: anId(), status: 'created' },
      { row: 8, id: anId(), status: 'created' },
    ]);
    const prospects = (await leadsOf(stack, alice, list.id)).prospects ?? [];
    expect(prospects.find((prospect) => prospect.first_name === 'Named')).toMatchObject({ company: { name: 'StringCo' } });
    // Two members of the legacy profile page are two people, each known by its id.
    expect(prospects.filter((prospect) => prospect.first_name === 'Legacy').map((prospect) => prospect.network_profile_url).sort()).toEqual([
      'https://www.linkedin.com/profile/view?id=111',
      'https://www.linkedin.com/profile/view?id=222',
    ]);
  });

  it('skips a row whose profile URL and email belong to two different prospects', async () => {
    const list = await createList(stack, alice, 'Two owners');
    await importLeads(stack, alice, list.id, { leads: [person(20), { first_name: 'E', last_name: 'Mail', email: 'owner@example.com' }] });
    const result = await importLeads(stack, alice, list.id, { leads: [person(20, { email: 'owner@example.com' })] });
    expect(result).toEqual(
      expectedImport({
        total_rows: 1,
        created: 0,
        updated: 0,
        skipped: 1,
        skipped_rows: [{ row: 1, reason: 'network_profile_url and email belong to two different prospects' }],
        leads: [],
        total_prospects: 2,
      }),
    );
    expect(result.skipped_rows).toEqual([{ row: 1, reason: 'network_profile_url and email belong to two different prospects' }]);
  });

  it('shares companies: matched by domain or network URL (or name when that is all there is); an existing company is linked, not changed', async () => {
    const list = await createList(stack, alice, 'Shared companies');
    const result = await importLeads(stack, alice, list.id, {
      leads: [
        person(30, { company_name: 'Gamma', company_website_url: 'https://www.gamma.example/', company_industry: 'Energy' }),
        person(31, { company_name: 'Gamma Holding', company_website_url: 'gamma.example', company_industry: 'Oil' }),
        person(32, { company: { name: 'Gamma', network_url: 'https://www.linkedin.com/company/gamma' } }),
        person(33, { company_name: 'Solo Name' }),
        person(34, { company_name: 'solo  name' }),
      ],
    });
    expect(result).toEqual(
      expectedImport({ total_rows: 5, created: 5, leads: [1, 2, 3, 4, 5].map((row) => ({ row, id: anId(), status: 'created' })), total_prospects: 5 }),
    );
    const byRow = new Map((await prospectsOf(alice, list.id)).map((p) => [p.first_name, p.company]));
    expect(byRow.get('First31')?.id).toBe(byRow.get('First30')?.id);
    expect(byRow.get('First30')).toEqual(expectedCompanySummary({ name: 'Gamma', website_url: 'https://www.gamma.example/', industry: 'Energy' }));
    // Linked, not changed: the second row's name and industry are not taken.
    expect(byRow.get('First31')).toEqual(byRow.get('First30'));
    expect(byRow.get('First33')).toEqual(expectedCompanySummary({ name: 'Solo Name' }));
    expect(byRow.get('First32')?.id).toBe(byRow.get('First30')?.id);
    expect(byRow.get('First34')?.id).toBe(byRow.get('First33')?.id);
    expect(byRow.get('First33')?.id).not.toBe(byRow.get('First30')?.id);
  });

  it('does not match across workspaces: the same person in another workspace is another prospect', async () => {
    const mine = await createList(stack, alice, 'Mine');
    const theirs = await createList(stack, bob, 'Theirs');
    const a = await importLeads(stack, alice, mine.id, { leads: [person(40, { job_title: 'Alice says CTO' })] });
    const b = await importLeads(stack, bob, theirs.id, { leads: [person(40, { job_title: 'Bob says CEO' })] });
    expect(b).toEqual(expectedImport({ total_rows: 1, created: 1, leads: [{ row: 1, id: anId(), status: 'created' }], total_prospects: 1 }));
    expect(b.leads[0]?.id).not.toBe(a.leads[0]?.id);
    expect((await prospectsOf(alice, mine.id))[0]?.job_title).toBe('Alice says CTO');
  });

  it('re-importing an archived prospect brings it back as NEW', async () => {
    const list = await createList(stack, alice, 'Revive');
    const created = await importLeads(stack, alice, list.id, { leads: [person(50)] });
    const id = created.leads[0]?.id as number;
    await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: alice.key, body: { prospect_ids: [id] } });
    const archived = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: prospectKey(id), ConsistentRead: true }));
    expect(archived.Item?.status).toBe('ARCHIVED');
    const again = await importLeads(stack, alice, list.id, { leads: [person(50)] });
    expect(again).toEqual(expectedImport({ total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id, status: 'updated' }], total_prospects: 1 }));
    expect((await prospectsOf(alice, list.id)).map((p) => [p.id, p.status])).toEqual([[id, 'NEW']]);
  });


  it('refuses more than 1000 rows with 413, JSON or CSV, and writes nothing', async () => {
    const list = await createList(stack, alice, 'Too many');
    const leads = Array.from({ length: 1001 }, (_, i) => person(10_000 + i));
    const json = await stack.call('POST', `/public/lead-lists/${list.id}/import/`, { apiKey: alice.key, body: { leads } });
    expect(json.status).toBe(413);
    expect(json.body).toEqual({ error: 'Too many leads: 1001 rows; at most 1000 rows per import request' });
    const csv = ['first_name,last_name,email', ...leads.map((_, i) => `A,B,a${i}@example.com`)].join('\n');
    const csvResponse = await stack.call('POST', `/public/lead-lists/${list.id}/import/`, { apiKey: alice.key, body: { csv } });
    expect(csvResponse.status).toBe(413);
    expect(csvResponse.body).toEqual({ error: 'Too many leads: 1001 rows; at most 1000 rows per import request' });
    expect((await getList(stack, alice, list.id))?.total_prospects).toBe(0);
  });

  it('answers 404 "Lead list not found" for an unknown list and another workspace’s list', async () => {
    const theirs = await createList(stack, bob, 'Bob import');
    for (const id of [987654321, theirs.id]) {
      const response = await stack.call('POST', `/public/lead-lists/${id}/import/`, { apiKey: alice.key, body: { leads: [person(60)] } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Lead list not found' });
    }
    expect((await getList(stack, bob, theirs.id))?.total_prospects).toBe(0);
  });
});
