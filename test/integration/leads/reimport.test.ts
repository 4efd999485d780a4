import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyKey, leadIdentityKey, prospectKey } from '../../../shared/db/keys';
import { anId } from '../../support/formats';
import type { TestStack } from '../../support/test-stack';
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

/**
 * Re-importing rows: a row that changes nothing is confirmed by the fingerprint its last import
 * left on the prospect's primary identity guard and by conditional checks on the prospect (and its
 * company) versions, without reading the lead (shared/domain/leads/lead-writer.ts,
 * upsertProspects). Whatever changed the lead or its company in between makes the checks fail, and
 * the row is planned as it always was: these tests pin what planning does then.
 */
describe('re-importing the same rows', () => {
  let stack: TestStack;
  let alice: Workspace;

  const item = async (key: { pk: string; sk: string }) =>
    (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }))).Item;
  /** The version a prospect is at: every write of it moves it. */
  const version = async (id: number) => (await item(prospectKey(id)))?.version;
  /** The fingerprint attributes of a prospect identity guard. */
  const fingerprint = async (identity: string) => {
    const guard = await item(leadIdentityKey(alice.workspaceId, 'PROSPECT', identity));
    return guard && { leadId: guard.leadId, fpVersion: guard.fpVersion, fpCompanyId: guard.fpCompanyId, fpCompanyVersion: guard.fpCompanyVersion };
  };
  const url = (n: number) => `url:https://www.linkedin.com/in/person-${n}`;
  const prospectsOf = async (listId: number, query = '') => (await leadsOf(stack, alice, listId, query)).prospects ?? ([] as ProspectView[]);
  const updatedRows = (ids: (number | undefined)[]) => ids.map((id, i) => ({ row: i + 1, id, status: 'updated' }));
  const workspaceTotal = async () =>
    (
      await stack.call<{ total_count: number }>('POST', '/public/prospects/search/', {
        apiKey: alice.key,
        body: { source: 'WORKSPACE', page_size: 1 },
      })
    ).body.total_count;

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  it('answers `updated` with the same ids and leaves every lead as it was (no write: versions and updated_at unchanged)', async () => {
    const list = await createList(stack, alice, 'Twice');
    const rows = [
      person(1, { email: 'p1@example.com', job_title: 'CTO', location: 'Oslo', company_name: 'Acme', company_website_url: 'acme.example' }),
      person(2, { job_title: 'CEO', custom_fields: { tier: 'gold' } }),
      { first_name: 'Mail', last_name: 'Only', email: 'mail-only@example.com', company_name: 'Acme', company_website_url: 'https://www.acme.example/' },
    ];
    const first = await importLeads(stack, alice, list.id, { leads: rows });
    expect(first).toEqual(
      expectedImport({ total_rows: 3, created: 3, leads: [1, 2, 3].map((row) => ({ row, id: anId(), status: 'created' })), total_prospects: 3 }),
    );
    const ids = first.leads.map((lead) => lead.id);
    const before = await prospectsOf(list.id);
    const versions = await Promise.all(ids.map(version));
    expect(versions).toEqual([1, 1, 1]);
    expect(await fingerprint(url(1))).toEqual({ leadId: ids[0], fpVersion: 1, fpCompanyId: before[0]?.company?.id, fpCompanyVersion: 1 });
    // A row without a profile URL carries its fingerprint on its email guard.
    expect(await fingerprint('email:mail-only@example.com')).toEqual({
      leadId: ids[2],
      fpVersion: 1,
      fpCompanyId: before[0]?.company?.id,
      fpCompanyVersion: 1,
    });

    for (let round = 0; round < 2; round += 1) {
      const again = await importLeads(stack, alice, list.id, { leads: rows });
      expect(again).toEqual(expectedImport({ total_rows: 3, created: 0, updated: 3, leads: updatedRows(ids), total_prospects: 3 }));
      expect(await prospectsOf(list.id)).toEqual(before);
      expect(await Promise.all(ids.map(version))).toEqual([1, 1, 1]);
    }
    expect(await getList(stack, alice, list.id)).toMatchObject({ total_prospects: 3, status: 'ACTIVE' });
    expect(await workspaceTotal()).toBe(3);
  });

  it('(a) restores a prospect archived in between: NEW, back in the list, counted again', async () => {
    const list = await createList(stack, alice, 'Restore');
    const rows = [person(10, { job_title: 'CTO' }), person(11, { job_title: 'CFO' })];
    const ids = (await importLeads(stack, alice, list.id, { leads: rows })).leads.map((lead) => lead.id);
    const before = await prospectsOf(list.id);
    const total = await workspaceTotal();
    const removed = await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: alice.key, body: { prospect_ids: [ids[0]] } });
    expect(removed.status).toBe(200);
    expect((await item(prospectKey(ids[0] as number)))?.status).toBe('ARCHIVED');
    expect(await getList(stack, alice, list.id)).toMatchObject({ total_prospects: 1 });
    expect(await workspaceTotal()).toBe((total as number) - 1);

    const again = await importLeads(stack, alice, list.id, { leads: rows });
    expect(again).toEqual(expectedImport({ total_rows: 2, created: 0, updated: 2, leads: updatedRows(ids), total_prospects: 2 }));
    const after = await prospectsOf(list.id);
    expect(after).toEqual([{ ...before[0], status: 'NEW', updated_at: after[0]?.updated_at }, before[1]]);
    // Archived (2), restored (3); the untouched one was confirmed without a write.
    expect(await Promise.all(ids.map(version))).toEqual([3, 1]);
    expect((await leadsOf(stack, alice, list.id, 'job_title=cto')).total_count).toBe(1);
    expect(await workspaceTotal()).toBe(total);
    // The restoring row left its fingerprint: the next import is confirmed without a write.
    expect(await fingerprint(url(10))).toEqual({ leadId: ids[0], fpVersion: 3, fpCompanyId: undefined, fpCompanyVersion: undefined });
    expect(await importLeads(stack, alice, list.id, { leads: rows })).toEqual(
      expectedImport({ total_rows: 2, created: 0, updated: 2, leads: updatedRows(ids), total_prospects: 2 }),
    );
    expect(await Promise.all(ids.map(version))).toEqual([3, 1]);
  });

  it('(b) applies the original values again after another row changed the prospect (same identity, same or another list)', async () => {
    const list = await createList(stack, alice, 'Original');
    const other = await createList(stack, alice, 'Other');
    const original = person(20, { email: 'p20@example.com', job_title: 'CTO', location: 'Oslo' });
    const [id] = (await importLeads(stack, alice, list.id, { leads: [original] })).leads.map((lead) => lead.id);
    const [before] = await prospectsOf(list.id);

    // Another row for the same person, through the same guard and list.
    await importLeads(stack, alice, list.id, { leads: [person(20, { job_title: 'CEO' })] });
    expect((await prospectsOf(list.id))[0]?.job_title).toBe('CEO');
    const back = await importLeads(stack, alice, list.id, { leads: [original] });
    expect(back).toEqual(expectedImport({ total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id, status: 'updated' }], total_prospects: 1 }));
    let [now] = await prospectsOf(list.id);
    expect(now).toEqual({ ...before, updated_at: now?.updated_at });
    expect(await version(id as number)).toBe(3);

    // A row naming the person by email only (its fingerprint goes to the email guard; the URL
    // guard still holds the original row's), into another list.
    await importLeads(stack, alice, other.id, {
      leads: [{ first_name: 'First20', last_name: 'Last20', email: 'p20@example.com', job_title: 'VP', location: 'Rome' }],
    });
    expect(await fingerprint(url(20))).toEqual({ leadId: id, fpVersion: 3, fpCompanyId: undefined, fpCompanyVersion: undefined });
    expect(await version(id as number)).toBe(4);
    const restored = await importLeads(stack, alice, list.id, { leads: [original] });
    expect(restored).toEqual(expectedImport({ total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id, status: 'updated' }], total_prospects: 1 }));
    [now] = await prospectsOf(list.id);
    expect(now).toEqual({ ...before, updated_at: now?.updated_at });
    expect(await version(id as number)).toBe(5);
    expect((await prospectsOf(other.id)).map((p) => [p.id, p.job_title, p.location])).toEqual([[id, 'CTO', 'Oslo']]);
    expect((await leadsOf(stack, alice, other.id, 'job_title=vp')).total_count).toBe(0);
  });

  it('(c1) after the company is renamed by a COMPANY import, re-importing the row leaves the company as renamed (companies are linked, never changed, by person rows)', async () => {
    const people = await createList(stack, alice, 'People at Zeta');
    const accounts = await createList(stack, alice, 'Zeta accounts', 'COMPANY');
    const row = person(30, { company_name: 'Zeta', company_website_url: 'zeta.example', company_industry: 'Mining' });
    const [id] = (await importLeads(stack, alice, people.id, { leads: [row] })).leads.map((lead) => lead.id);
    const companyId = (await prospectsOf(people.id))[0]?.company?.id as number;
    const renamed = await importLeads(stack, alice, accounts.id, { leads: [{ name: 'Zeta Holding', website_url: 'zeta.example', industry: 'Robotics' }] });
    expect(renamed.leads).toEqual([{ row: 1, id: companyId, status: 'updated' }]);
    // The company's change reached the prospect's list member (a write of the prospect).
    expect(await version(id as number)).toBe(2);
    expect((await item(companyKey(companyId)))?.version).toBe(2);
    const [before] = await prospectsOf(people.id);

    const again = await importLeads(stack, alice, people.id, { leads: [row] });
    expect(again).toEqual(expectedImport({ total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id, status: 'updated' }], total_prospects: 1 }));
    const [after] = await prospectsOf(people.id);
    expect(after).toEqual(before);
    expect(after?.company).toEqual(expectedCompanySummary({ id: companyId, name: 'Zeta Holding', website_url: 'zeta.example', industry: 'Robotics' }));
    expect(await version(id as number)).toBe(2);
    expect((await item(companyKey(companyId)))?.version).toBe(2);
    expect((await leadsOf(stack, alice, people.id, 'company_name=zeta%20holding&company_industry=robotics')).total_count).toBe(1);
    // Found unchanged by planning, but not stamped again: the row names the company as `Zeta`, an
    // identity the renamed company no longer holds, so another company could claim it and make the
    // same row link elsewhere. Such a row is always planned; the guard keeps its first stamp, which
    // no longer matches the prospect's version.
    expect(await fingerprint(url(30))).toEqual({ leadId: id, fpVersion: 1, fpCompanyId: companyId, fpCompanyVersion: 1 });
    expect(await importLeads(stack, alice, people.id, { leads: [row] })).toEqual(again);
    expect(await version(id as number)).toBe(2);
  });

  it('(c2) after the company moved to another domain, re-importing the row links the prospect to a new company with the row’s domain', async () => {
    const people = await createList(stack, alice, 'People at Eta');
    const accounts = await createList(stack, alice, 'Eta accounts', 'COMPANY');
    // The company is known by its domain, network page and name; the person row names its domain and name.
    const page = 'https://www.linkedin.com/company/eta';
    const [companyId] = (await importLeads(stack, alice, accounts.id, { leads: [{ name: 'Eta', website_url: 'eta.example', network_url: page }] })).leads.map(
      (lead) => lead.id,
    );
    const row = person(40, { company_name: 'Eta', company_website_url: 'eta.example', company_industry: 'Mining' });
    const [id] = (await importLeads(stack, alice, people.id, { leads: [row] })).leads.map((lead) => lead.id);
    // Linked, not changed: the row's industry is not taken.
    expect((await prospectsOf(people.id))[0]?.company).toEqual(expectedCompanySummary({ id: companyId, name: 'Eta', website_url: 'eta.example', network_url: page }));
    // A new website, the company matched by its page.
    const moved = await importLeads(stack, alice, accounts.id, { leads: [{ name: 'Eta', website_url: 'eta.io', network_url: page }] });
    expect(moved.leads).toEqual([{ row: 1, id: companyId, status: 'updated' }]);
    expect((await prospectsOf(people.id))[0]?.company).toEqual(expectedCompanySummary({ id: companyId, name: 'Eta', website_url: 'eta.io', network_url: page }));
    expect(await version(id as number)).toBe(2);

    // The row's domain is free now and its name belongs to a company with another domain: a new
    // company is created for the row (with the row's values), and the prospect is linked to it.
    const again = await importLeads(stack, alice, people.id, { leads: [row] });
    expect(again).toEqual(expectedImport({ total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id, status: 'updated' }], total_prospects: 1 }));
    const [after] = await prospectsOf(people.id);
    expect(after?.company).toEqual(expectedCompanySummary({ id: anId(), name: 'Eta', website_url: 'eta.example', industry: 'Mining' }));
    expect(after?.company?.id).not.toBe(companyId);
    expect(await version(id as number)).toBe(3);
    // The old company is untouched and still the COMPANY list's only member.
    expect((await leadsOf(stack, alice, accounts.id)).companies?.map((c) => [c.id, c.name, c.website_url, c.network_url])).toEqual([
      [companyId, 'Eta', 'eta.io', page],
    ]);
    expect((await leadsOf(stack, alice, people.id, 'company_website_url=eta.example')).total_count).toBe(1);
    expect((await leadsOf(stack, alice, people.id, 'company_website_url=eta.io')).total_count).toBe(0);
    // A third import finds nothing to do.
    expect(await importLeads(stack, alice, people.id, { leads: [row] })).toEqual(again);
    expect(await version(id as number)).toBe(3);
    expect((await prospectsOf(people.id))[0]).toEqual(after);
  });

  /**
   * Found writing (c2): a COMPANY row that updates a company never claims the identities it adds
   * (lead-writer.ts, upsertCompanies: the row's identities go into `batchClaims` before
   * `claim = desired.filter(free)`, and `free` excludes them), while the ones it drops are
   * released. A page, domain or name a company got from an update does not find it afterwards.
   */
  it('(c3) a network page a COMPANY import added to a company finds that company in a later import', async () => {
    const accounts = await createList(stack, alice, 'Kappa accounts', 'COMPANY');
    const page = 'https://www.linkedin.com/company/kappa';
    const [companyId] = (await importLeads(stack, alice, accounts.id, { leads: [{ name: 'Kappa', website_url: 'kappa.example' }] })).leads.map((lead) => lead.id);
    const withPage = await importLeads(stack, alice, accounts.id, { leads: [{ name: 'Kappa', website_url: 'kappa.example', network_url: page }] });
    expect(withPage.leads).toEqual([{ row: 1, id: companyId, status: 'updated' }]);
    const byPage = await importLeads(stack, alice, accounts.id, { leads: [{ name: 'Kappa Group', network_url: page }] });
    expect(byPage).toEqual(
      expectedImport({ search_type: 'COMPANY', total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id: companyId, status: 'updated' }], total_prospects: 1 }),
    );
  });

  it('(c3) a row whose company identities another company may claim later is never stamped: re-imported after that claim, it links to the new company', async () => {
    const people = await createList(stack, alice, 'People at Omicron');
    const accounts = await createList(stack, alice, 'Omicron accounts', 'COMPANY');
    // A company known by its name only; the person row names that name and a domain nobody holds.
    const [byName] = (await importLeads(stack, alice, accounts.id, { leads: [{ name: 'Omicron' }] })).leads.map((lead) => lead.id);
    const row = person(77, { company_name: 'Omicron', company_website_url: 'omicron.example' });
    const [id] = (await importLeads(stack, alice, people.id, { leads: [row] })).leads.map((lead) => lead.id);
    expect((await prospectsOf(people.id))[0]?.company?.id).toBe(byName);
    expect(await fingerprint(url(77))).toEqual({ leadId: id, fpVersion: undefined, fpCompanyId: undefined, fpCompanyVersion: undefined });
    // Another company claims the row's domain.
    const [byDomain] = (await importLeads(stack, alice, accounts.id, { leads: [{ name: 'Omicron Group', website_url: 'omicron.example' }] })).leads.map(
      (lead) => lead.id,
    );
    expect(byDomain).not.toBe(byName);
    const again = await importLeads(stack, alice, people.id, { leads: [row] });
    expect(again.leads).toEqual([{ row: 1, id, status: 'updated' }]);
    expect((await prospectsOf(people.id))[0]?.company?.id).toBe(byDomain);
  });

  it('(d) reports the second row with the same identity as a duplicate, even when the first would be confirmed by its fingerprint', async () => {
    const list = await createList(stack, alice, 'Duplicates');
    const rows = [person(50, { email: 'p50@example.com' }), person(51), person(52)];
    const ids = (await importLeads(stack, alice, list.id, { leads: rows })).leads.map((lead) => lead.id);
    const before = await prospectsOf(list.id);

    // Rows 1 and 3 are confirmed by their fingerprints; rows 2 and 4 name the same person, so
    // both are planned, and row 4 is the duplicate of row 2 (not of the 2nd planned row).
    const same = await importLeads(stack, alice, list.id, { leads: [rows[1], rows[0], rows[2], rows[0]] });
    expect(same).toEqual(
      expectedImport({
        total_rows: 4,
        created: 0,
        updated: 3,
        skipped: 1,
        skipped_rows: [{ row: 4, reason: 'duplicate of row 2 (same network_profile_url or email)' }],
        leads: [
          { row: 1, id: ids[1], status: 'updated' },
          { row: 2, id: ids[0], status: 'updated' },
          { row: 3, id: ids[2], status: 'updated' },
        ],
        total_prospects: 3,
      }),
    );
    // The same person named by email only in the second row.
    const byEmail = await importLeads(stack, alice, list.id, {
      leads: [rows[0], { first_name: 'First50', last_name: 'Last50', email: 'p50@example.com' }],
    });
    expect(byEmail).toEqual(
      expectedImport({
        total_rows: 2,
        created: 0,
        updated: 1,
        skipped: 1,
        skipped_rows: [{ row: 2, reason: 'duplicate of row 1 (same network_profile_url or email)' }],
        leads: [{ row: 1, id: ids[0], status: 'updated' }],
        total_prospects: 3,
      }),
    );
    expect(await prospectsOf(list.id)).toEqual(before);
    expect(await Promise.all(ids.map(version))).toEqual([1, 1, 1]);
  });

  it('imports a re-imported row into another list as a join (the fingerprint names the list)', async () => {
    const one = await createList(stack, alice, 'Home');
    const two = await createList(stack, alice, 'Second home');
    const row = person(60, { job_title: 'CTO' });
    const [id] = (await importLeads(stack, alice, one.id, { leads: [row] })).leads.map((lead) => lead.id);
    const joined = await importLeads(stack, alice, two.id, { leads: [row] });
    expect(joined).toEqual(expectedImport({ total_rows: 1, created: 0, updated: 1, leads: [{ row: 1, id, status: 'updated' }], total_prospects: 1 }));
    expect((await prospectsOf(two.id)).map((p) => p.id)).toEqual([id]);
    expect(await version(id as number)).toBe(2);
    expect((await item(prospectKey(id as number)))?.listIds).toEqual(new Set([one.id, two.id]));
    expect((await prospectsOf(one.id))[0]).toEqual(expectedProspect({ id, first_name: 'First60', last_name: 'Last60', job_title: 'CTO', network_profile_url: 'https://www.linkedin.com/in/person-60' }));
  });

  it('updates the prospects of a company just added to or removed from a COMPANY list (its views move, not its data)', async () => {
    const people = await createList(stack, alice, 'BugCo people');
    const again = await createList(stack, alice, 'BugCo people again');
    const companies = await createList(stack, alice, 'BugCo companies', 'COMPANY');
    const row = { first_name: 'Kim', last_name: 'Lee', email: 'kim@bugco.example', company_name: 'BugCo', company_website_url: 'bugco.example' };
    const [id] = (await importLeads(stack, alice, people.id, { leads: [row] })).leads.map((lead) => lead.id);
    const companyId = (await prospectsOf(people.id))[0]?.company?.id as number;
    for (const [path, list] of [
      ['add-leads', again],
      ['delete-leads', people],
    ] as const) {
      const moved = await stack.call(path === 'add-leads' ? 'POST' : 'DELETE', `/public/lead-lists/${companies.id}/${path}/`, {
        apiKey: alice.key,
        body: { company_ids: [companyId] },
      });
      expect(moved.status, moved.text).toBe(200);
      const title = `CTO ${path}`;
      const updated = await importLeads(stack, alice, list.id, { leads: [{ ...row, job_title: title }] });
      expect([updated.updated, updated.skipped, updated.skipped_rows], path).toEqual([1, 0, []]);
      expect((await prospectsOf(list.id)).find((p) => p.id === id)?.job_title).toBe(title);
    }
  });
});
