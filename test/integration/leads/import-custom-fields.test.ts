import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../../support/test-stack';
import { type ImportResponse, type ProspectView, type Workspace, createList, getList, importLeads, leadsOf, leadsStack, person } from './helpers';

/** custom_fields nested `levels` deep, custom_fields itself being level 1. */
const nested = (levels: number): Record<string, unknown> => (levels === 1 ? { a: 'leaf' } : { a: nested(levels - 1) });

const RESERVED = (key: string) => `custom_fields key '${key}' is reserved`;
const TOO_DEEP = 'custom_fields must not nest deeper than 10 levels';
const BAD_NUMBER = 'custom_fields numbers must be 0 or between 1e-130 and 9007199254740991 in magnitude';

describe('import: custom fields and CSV columns whose names are not plain', () => {
  let stack: TestStack;
  let alice: Workspace;

  /** Every prospect of the workspace, archived ones aside: what "nothing was written" is checked against. */
  const workspaceProspects = async () => {
    const response = await stack.call<{ total_count: number }>('POST', '/public/prospects/search/', {
      apiKey: alice.key,
      body: { source: 'WORKSPACE', page_size: 1 },
    });
    expect(response.status).toBe(200);
    return response.body.total_count;
  };

  const importRaw = async (listId: number, rawBody: string) => {
    const response = await stack.call<ImportResponse>('POST', `/public/lead-lists/${listId}/import/`, { apiKey: alice.key, rawBody });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };

  const byFirstName = async (listId: number) =>
    new Map(((await leadsOf(stack, alice, listId, 'page_size=100')).prospects ?? ([] as ProspectView[])).map((p) => [p.first_name, p]));

  const created = (rows: number[]) => rows.map((row) => ({ row, id: expect.any(Number), status: 'created' }));

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  it('skips each row with bad custom_fields with its reason, saves the others, and keeps the good custom fields exactly', async () => {
    const list = await createList(stack, alice, 'Custom fields');
    const before = await workspaceProspects();
    const leads = [
      person(1, { custom_fields: { plan: 'pro', seats: 3, tags: ['a', 'b'], nested: { ok: true, none: null } } }),
      person(2, { custom_fields: { '': 'x' } }),
      person(3, { custom_fields: 'PROTO_PLACEHOLDER' }),
      person(4, { custom_fields: { constructor: 'x' } }),
      person(5, { custom_fields: { a: { prototype: 1 } } }),
      person(6, { custom_fields: nested(31) }),
      person(7, { custom_fields: nested(10) }),
      person(8, { custom_fields: nested(11) }),
      person(9, { custom_fields: { ['k'.repeat(101)]: 1 } }),
      person(10, { custom_fields: { ['k'.repeat(100)]: 1 } }),
      person(11, { custom_fields: { 'tab\tkey': 1 } }),
      person(12, { custom_fields: { big: 2 ** 53 } }),
      person(13, { custom_fields: { tiny: 1e-131 } }),
      person(14, { custom_fields: { max: 9007199254740991, min: -9007199254740991, small: 1e-130, zero: 0 } }),
      person(15),
    ];
    // Sent as raw JSON so that `__proto__` is an own key of the parsed object, as an attacker's would be.
    const raw = JSON.stringify({ leads }).replace('"PROTO_PLACEHOLDER"', '{"__proto__":{"polluted":true},"plan":"x"}');
    const result = await importRaw(list.id, raw);
    expect(result).toEqual({
      success: true,
      search_type: 'PEOPLE',
      total_rows: 15,
      created: 5,
      updated: 0,
      skipped: 10,
      skipped_rows: [
        { row: 2, reason: 'custom_fields keys must not be empty' },
        { row: 3, reason: RESERVED('__proto__') },
        { row: 4, reason: RESERVED('constructor') },
        { row: 5, reason: RESERVED('prototype') },
        { row: 6, reason: TOO_DEEP },
        { row: 8, reason: TOO_DEEP },
        { row: 9, reason: 'custom_fields keys must be at most 100 characters' },
        { row: 11, reason: 'custom_fields keys must not contain control characters' },
        { row: 12, reason: BAD_NUMBER },
        { row: 13, reason: BAD_NUMBER },
      ],
      leads: created([1, 7, 10, 14, 15]),
      total_prospects: 5,
    });
    expect(await workspaceProspects()).toBe(before + 5);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const saved = await byFirstName(list.id);
    expect([...saved.keys()].sort()).toEqual(['First1', 'First10', 'First14', 'First15', 'First7']);
    expect(saved.get('First1')?.custom_fields).toEqual({ plan: 'pro', seats: 3, tags: ['a', 'b'], nested: { ok: true, none: null } });
    expect(saved.get('First7')?.custom_fields).toEqual(nested(10));
    expect(saved.get('First10')?.custom_fields).toEqual({ ['k'.repeat(100)]: 1 });
    expect(saved.get('First14')?.custom_fields).toEqual({ max: 9007199254740991, min: -9007199254740991, small: 1e-130, zero: 0 });
    expect(saved.get('First15')?.custom_fields).toEqual({});
  });

  it('answers the 300-row import of the report with 200: the bad rows are skipped, all 297 good rows are saved', async () => {
    const list = await createList(stack, alice, 'Three hundred');
    const before = await workspaceProspects();
    const bad = new Map<number, Record<string, unknown>>([
      [150, { constructor: 'x' }],
      [200, { '': 1 }],
      [250, nested(31)],
    ]);
    const rows = Array.from({ length: 300 }, (_, i) => i + 1);
    const leads = rows.map((row) => person(1000 + row, bad.has(row) ? { custom_fields: bad.get(row) } : { custom_fields: { row } }));
    const result = await importLeads(stack, alice, list.id, { leads });
    expect(result).toEqual({
      success: true,
      search_type: 'PEOPLE',
      total_rows: 300,
      created: 297,
      updated: 0,
      skipped: 3,
      skipped_rows: [
        { row: 150, reason: RESERVED('constructor') },
        { row: 200, reason: 'custom_fields keys must not be empty' },
        { row: 250, reason: TOO_DEEP },
      ],
      leads: created(rows.filter((row) => !bad.has(row))),
      total_prospects: 297,
    });
    expect(await workspaceProspects()).toBe(before + 297);
    expect((await getList(stack, alice, list.id))?.total_prospects).toBe(297);
  });

  it('skips CSV rows whose unmapped `constructor` or `__proto__` column holds a value; rows with those cells empty are saved', async () => {
    const list = await createList(stack, alice, 'CSV with odd headers');
    const csv = [
      'first_name,last_name,email,constructor,__proto__,Plan',
      'Ada,One,ada@example.com,,,gold',
      'Bob,Two,bob@example.com,builder,,',
      'Cy,Three,cy@example.com,,x,',
      'Dee,Four,dee@example.com,,,',
    ].join('\n');
    const result = await importLeads(stack, alice, list.id, { csv });
    expect(result).toEqual({
      success: true,
      search_type: 'PEOPLE',
      total_rows: 4,
      created: 2,
      updated: 0,
      skipped: 2,
      skipped_rows: [
        { row: 2, reason: RESERVED('constructor') },
        { row: 3, reason: RESERVED('__proto__') },
      ],
      leads: created([1, 4]),
      total_prospects: 2,
    });
    const saved = await byFirstName(list.id);
    expect([...saved.keys()].sort()).toEqual(['Ada', 'Dee']);
    expect(saved.get('Ada')?.custom_fields).toEqual({ Plan: 'gold' });
    expect(saved.get('Dee')?.custom_fields).toEqual({});
  });

  it('maps CSV columns named `constructor` and `__proto__` like any other column', async () => {
    const list = await createList(stack, alice, 'CSV mapped odd headers');
    const csv = ['first_name,last_name,email,constructor,__proto__', 'Eve,Five,eve@example.com,builder,L-1', 'Fay,Six,fay@example.com,,'].join('\n');
    // Raw JSON: `__proto__` must reach the server as an own key of the mapping.
    const raw = `{"csv":${JSON.stringify(csv)},"mapping":{"constructor":"job_title","__proto__":"custom_fields.legacy_id"}}`;
    const result = await importRaw(list.id, raw);
    expect(result).toEqual({
      success: true,
      search_type: 'PEOPLE',
      total_rows: 2,
      created: 2,
      updated: 0,
      skipped: 0,
      skipped_rows: [],
      leads: created([1, 2]),
      total_prospects: 2,
    });
    const saved = await byFirstName(list.id);
    expect(saved.get('Eve')).toMatchObject({ job_title: 'builder', custom_fields: { legacy_id: 'L-1' } });
    expect(saved.get('Fay')).toMatchObject({ job_title: '', custom_fields: {} });

    const ignored = await createList(stack, alice, 'CSV odd headers ignored');
    const others = ['first_name,last_name,email,constructor,__proto__', 'Hal,Eight,hal@example.com,builder,L-2'].join('\n');
    const none = await importRaw(ignored.id, `{"csv":${JSON.stringify(others)},"mapping":{"constructor":null,"__proto__":null}}`);
    expect(none).toMatchObject({ created: 1, skipped: 0, skipped_rows: [] });
    expect((await byFirstName(ignored.id)).get('Hal')).toMatchObject({ job_title: '', custom_fields: {} });
  });

  it.each([
    [
      'a mapping to custom_fields.constructor',
      { csv: 'first_name,last_name,email,Plan\nGus,Seven,gus@example.com,gold', mapping: { Plan: 'custom_fields.constructor' } },
      400,
      "mapping: column 'Plan' cannot go to 'custom_fields.constructor': custom_fields key 'constructor' is reserved",
    ],
    [
      'a mapping to custom_fields.__proto__',
      { csv: 'first_name,last_name,email,Plan\nGus,Seven,gus@example.com,gold', mapping: { Plan: 'custom_fields.__proto__' } },
      400,
      "mapping: column 'Plan' cannot go to 'custom_fields.__proto__': custom_fields key '__proto__' is reserved",
    ],
    [
      'a mapping to a custom field named by 101 characters',
      { csv: 'first_name,last_name,email,Plan\nGus,Seven,gus@example.com,gold', mapping: { Plan: `custom_fields.${'k'.repeat(101)}` } },
      400,
      `mapping: column 'Plan' cannot go to 'custom_fields.${'k'.repeat(101)}': custom_fields keys must be at most 100 characters`,
    ],
    [
      'leads and csv together',
      { leads: [person(2000, { custom_fields: { constructor: 'x' } }), person(2001)], csv: 'a\n1' },
      400,
      'Send either leads or csv, not both',
    ],
    [
      '1001 rows, some with bad custom fields',
      { leads: Array.from({ length: 1001 }, (_, i) => person(3000 + i, i % 2 ? { custom_fields: { '': i } } : {})) },
      413,
      'Too many leads: 1001 rows; at most 1000 rows per import request',
    ],
  ])('rejects %s as a whole and writes nothing', async (_name, body, status, error) => {
    const list = await createList(stack, alice, 'Rejected whole');
    const before = await workspaceProspects();
    const response = await stack.call('POST', `/public/lead-lists/${list.id}/import/`, { apiKey: alice.key, body });
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error });
    expect(await workspaceProspects()).toBe(before);
    expect((await getList(stack, alice, list.id))?.total_prospects).toBe(0);
    expect((await leadsOf(stack, alice, list.id)).prospects).toEqual([]);
  });

  it('a row updating a lead with bad custom_fields is skipped and the stored custom fields stay as they were', async () => {
    const list = await createList(stack, alice, 'Update custom fields');
    await importLeads(stack, alice, list.id, { leads: [person(4000, { custom_fields: { a: 1 } })] });
    const refused = await importLeads(stack, alice, list.id, { leads: [person(4000, { custom_fields: { constructor: 'x', b: 2 } })] });
    expect(refused).toMatchObject({ created: 0, updated: 0, skipped: 1, skipped_rows: [{ row: 1, reason: RESERVED('constructor') }] });
    expect((await byFirstName(list.id)).get('First4000')?.custom_fields).toEqual({ a: 1 });
    const merged = await importLeads(stack, alice, list.id, { leads: [person(4000, { custom_fields: { b: 2 } })] });
    expect(merged).toMatchObject({ created: 0, updated: 1, skipped: 0 });
    expect((await byFirstName(list.id)).get('First4000')?.custom_fields).toEqual({ a: 1, b: 2 });
  });

  it('a lead’s own `__proto__` key supplies no fields', async () => {
    const list = await createList(stack, alice, 'Proto lead');
    const before = await workspaceProspects();
    const result = await importRaw(
      list.id,
      '{"leads":[{"__proto__":{"first_name":"Sneaky"},"last_name":"Roe","network_profile_url":"https://www.linkedin.com/in/sneaky"}]}',
    );
    expect(result).toEqual({
      success: true,
      search_type: 'PEOPLE',
      total_rows: 1,
      created: 0,
      updated: 0,
      skipped: 1,
      skipped_rows: [{ row: 1, reason: 'first_name is required' }],
      leads: [],
      total_prospects: 0,
    });
    expect(await workspaceProspects()).toBe(before);
  });

  it('COMPANY rows ignore custom_fields, whatever their keys', async () => {
    const list = await createList(stack, alice, 'Companies with custom fields', 'COMPANY');
    const result = await importLeads(stack, alice, list.id, { leads: [{ name: 'Acme', custom_fields: { constructor: 'x', '': 1 } }] });
    expect(result).toEqual({
      success: true,
      search_type: 'COMPANY',
      total_rows: 1,
      created: 1,
      updated: 0,
      skipped: 0,
      skipped_rows: [],
      leads: created([1]),
      total_prospects: 1,
    });
  });
});
